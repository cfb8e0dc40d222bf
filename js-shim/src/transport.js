// The HTTP side of a run: POST the RunAgentInput (JSON text), check the answer is an event
// stream, and hand its bytes to the core as they arrive. Every failure becomes
// one message that names what went wrong and where.
import { now, schedule } from './timers.js';

function describe(error) {
  if (error && typeof error === 'object' && 'message' in error) {
    const cause = error.cause && error.cause.message ? ` (${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

// Fires `onIdle` once nothing has arrived for `ms` (0: never). One deadline at a
// time: a chunk only notes the time, and the deadline is set again for what is left.
function idleWatch(ms, onIdle) {
  if (!(ms > 0)) return { touch() {}, stop() {} };
  let last = now();
  let cancel;
  const arm = (delay) => {
    cancel = schedule(delay, () => {
      const quiet = now() - last;
      if (quiet >= ms) onIdle();
      else arm(ms - quiet);
    });
  };
  arm(ms);
  return {
    touch: () => {
      last = now();
    },
    stop: () => cancel(),
  };
}

/**
 * @param {{url: string, headers?: Record<string,string>, fetch: typeof fetch, body: string,
 *          controller: AbortController, idleTimeoutMs?: number, onBytes: (bytes: Uint8Array) => boolean,
 *          onEnd: () => void, onFailure: (message: string) => void}} run
 * The run's controller: aborting it cancels the request (the caller's abort),
 * and so does an agent gone quiet for idleTimeoutMs (reported as a failure).
 * Either ends the run here and now, whether or not `fetch` honours the signal:
 * every wait below also ends when the signal aborts, and the reader is cancelled.
 */
export async function postRun(run) {
  const { controller, idleTimeoutMs = 0, url, onFailure } = run;
  let idle = false;
  const watch = idleWatch(idleTimeoutMs, () => {
    idle = true;
    controller.abort();
  });
  const { signal } = controller;
  const fail = (message) => {
    if (idle) onFailure(`the agent at ${url} sent nothing for ${idleTimeoutMs} ms (idleTimeoutMs)`);
    else if (!signal.aborted) onFailure(message);
  };
  // What `promise` gives, or ABORTED as soon as the signal aborts (a custom fetch
  // may ignore it); a late rejection of `promise` is then dropped. One wait at a
  // time, woken by the one abort listener: no Promise.race, whose reactions on a
  // never-settled promise would pile up with every chunk read.
  let wake = null;
  signal.addEventListener('abort', () => wake?.(ABORTED), { once: true });
  const untilAborted = (promise) =>
    new Promise((resolve, reject) => {
      wake = resolve;
      promise.then(resolve, reject);
      if (signal.aborted) resolve(ABORTED);
    });
  try {
    // (run is passed as it is: copying it with a spread cost more than the rest of this function)
    await streamRetryingEmpty(run, signal, watch, fail, untilAborted);
  } finally {
    watch.stop();
  }
}

const ABORTED = Symbol('aborted');
const EMPTY = Symbol('empty');

// A server that goes on running a thread after the client left it (CopilotKit
// does, after this client's abort() or a superseding send()) answers the next
// run on it with an empty 200 stream. After such a leave the runtime passes
// `emptyRetryDelaysMs`: the same request is sent again after each delay, and
// only an empty answer to the last one is a failure.
async function streamRetryingEmpty(run, signal, watch, fail, untilAborted) {
  const delays = run.emptyRetryDelaysMs ?? [];
  for (let attempt = 0; ; attempt += 1) {
    if ((await stream(run, signal, watch, fail, untilAborted)) !== EMPTY) return;
    const tries = attempt === 0 ? '' : ` (sent ${attempt + 1} times)`;
    if (attempt === delays.length) {
      return fail(
        `the agent at ${run.url} answered with an empty event stream (not even RUN_STARTED)${tries}: the server may still be running an earlier run on this thread (abort() stops this client only)`,
      );
    }
    let cancel;
    const waited = await untilAborted(new Promise((resolve) => (cancel = schedule(delays[attempt], resolve))));
    if (waited === ABORTED) {
      cancel();
      return fail('aborted');
    }
    watch.touch();
  }
}

// A media type, parsed: the type/subtype before any parameter, case-insensitive.
const isEventStream = (contentType) => contentType.split(';')[0].trim().toLowerCase() === 'text/event-stream';

async function stream({ url, headers, fetch, body, onBytes, onEnd }, signal, watch, fail, untilAborted) {
  let response;
  try {
    const answer = fetch(url, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body,
      signal,
    });
    response = await untilAborted(Promise.resolve(answer));
  } catch (error) {
    fail(`could not reach the agent at ${url}: ${describe(error)}`);
    return;
  }
  if (response === ABORTED) return fail('aborted');
  watch.touch();
  if (!response.ok) {
    let text = '';
    try {
      const read = await untilAborted(response.text());
      if (read !== ABORTED) text = read.slice(0, 300);
    } catch {
      // the body is a courtesy; the status says enough
    }
    fail(
      `the agent at ${url} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${text ? `: ${text}` : ''}`,
    );
    return;
  }
  const type = response.headers.get('content-type') ?? '';
  if (!isEventStream(type)) {
    response.body?.cancel().catch(() => {});
    fail(`the agent at ${url} answered with content type '${type || '(none)'}', not text/event-stream`);
    return;
  }
  if (!response.body) {
    fail(`the agent at ${url} answered with no body`);
    return;
  }
  return read(response.body.getReader(), { url, onBytes, onEnd }, watch, fail, untilAborted);
}

// The body's bytes, chunk by chunk, to the core. An empty stream is EMPTY, for
// the caller to judge: a server that refuses a run on a thread it is still
// running (after the client's abort(), the server may go on) answers 200 with nothing.
async function read(reader, { url, onBytes, onEnd }, watch, fail, untilAborted) {
  const stop = () => reader.cancel().catch(() => {});
  let received = 0;
  try {
    for (;;) {
      const chunk = await untilAborted(reader.read());
      if (chunk === ABORTED) {
        stop();
        return fail('aborted');
      }
      if (chunk.done) break;
      watch.touch();
      const { value } = chunk;
      if (!value || value.byteLength === 0) continue;
      received += value.byteLength;
      if (!onBytes(value)) {
        // The core has seen enough (a fatal problem, or the run was abandoned).
        stop();
        return;
      }
    }
  } catch (error) {
    fail(`the event stream from ${url} broke off: ${describe(error)}`);
    return;
  }
  if (received === 0) return EMPTY;
  onEnd();
}
