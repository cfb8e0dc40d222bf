// The HTTP side of a run: POST the RunAgentInput, check the answer is an event
// stream, and hand its bytes to the core as they arrive. Every failure becomes
// one message that names what went wrong and where.

function describe(error) {
  if (error && typeof error === 'object' && 'message' in error) {
    const cause = error.cause && error.cause.message ? ` (${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

/**
 * @param {{url: string, headers?: Record<string,string>, fetch: typeof fetch, input: object,
 *          signal: AbortSignal, onBytes: (bytes: Uint8Array) => boolean,
 *          onEnd: () => void, onFailure: (message: string) => void}} run
 */
export async function postRun({ url, headers, fetch, input, signal, onBytes, onEnd, onFailure }) {
  let response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify(input),
      signal,
    });
  } catch (error) {
    if (signal.aborted) return;
    onFailure(`could not reach the agent at ${url}: ${describe(error)}`);
    return;
  }
  if (!response.ok) {
    let body = '';
    try {
      body = (await response.text()).slice(0, 300);
    } catch {
      // the body is a courtesy; the status says enough
    }
    if (signal.aborted) return;
    onFailure(`the agent at ${url} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${body ? `: ${body}` : ''}`);
    return;
  }
  const type = response.headers.get('content-type') ?? '';
  if (!/^\s*text\/event-stream\b/i.test(type)) {
    response.body?.cancel().catch(() => {});
    onFailure(`the agent at ${url} answered with content type '${type || '(none)'}', not text/event-stream`);
    return;
  }
  if (!response.body) {
    onFailure(`the agent at ${url} answered with no body`);
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value && value.byteLength > 0 && !onBytes(value)) {
        // The core has seen enough (a fatal problem, or the run was abandoned).
        reader.cancel().catch(() => {});
        return;
      }
    }
  } catch (error) {
    if (signal.aborted) return;
    onFailure(`the event stream from ${url} broke off: ${describe(error)}`);
    return;
  }
  onEnd();
}
