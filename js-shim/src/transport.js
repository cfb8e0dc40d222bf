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
  return { touch: () => { last = now(); }, stop: () => cancel() };
}

/**
 * @param {{url: string, headers?: Record<string,string>, fetch: typeof fetch, body: string,
 *          controller: AbortController, idleTimeoutMs?: number, onBytes: (bytes: Uint8Array) => boolean,
 *          onEnd: () => void, onFailure: (message: string) => void}} run
 * The run's controller: aborting it cancels the request (the caller's abort),
 * and so does an agent gone quiet for idleTimeoutMs (reported as a failure).
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
  try {
    // (run is passed as it is: copying it with a spread cost more than the rest of this function)
    await stream(run, signal, watch, fail);
  } finally {
    watch.stop();
  }
}

async function stream({ url, headers, fetch, body, onBytes, onEnd }, signal, watch, fail) {
  let response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body,
      signal,
    });
  } catch (error) {
    fail(`could not reach the agent at ${url}: ${describe(error)}`);
    return;
  }
  watch.touch();
  if (!response.ok) {
    let body = '';
    try {
      body = (await response.text()).slice(0, 300);
    } catch {
      // the body is a courtesy; the status says enough
    }
    fail(`the agent at ${url} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${body ? `: ${body}` : ''}`);
    return;
  }
  const type = response.headers.get('content-type') ?? '';
  if (!/^\s*text\/event-stream\b/i.test(type)) {
    response.body?.cancel().catch(() => {});
    fail(`the agent at ${url} answered with content type '${type || '(none)'}', not text/event-stream`);
    return;
  }
  if (!response.body) {
    fail(`the agent at ${url} answered with no body`);
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      watch.touch();
      if (value && value.byteLength > 0 && !onBytes(value)) {
        // The core has seen enough (a fatal problem, or the run was abandoned).
        reader.cancel().catch(() => {});
        return;
      }
    }
  } catch (error) {
    fail(`the event stream from ${url} broke off: ${describe(error)}`);
    return;
  }
  onEnd();
}
