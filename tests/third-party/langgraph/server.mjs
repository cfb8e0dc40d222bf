// Starts the LangGraph stack of this folder (stack.mjs: the LangGraph API's
// in-memory server with graph.mjs, behind @ag-ui/langgraph) in a process of its
// own, and waits until its warm-up run has passed. `url(mode)`: the AG-UI
// endpoint with the bridge's default settings ('default') or with
// `emitInterruptOutcome: true` ('outcome').
import { fork } from 'node:child_process';

const STARTUP_MS = 60_000;

export async function startLangGraph() {
  const child = fork(new URL('./stack.mjs', import.meta.url), [], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let output = ''; // the stack's own logs: shown only when it fails to start
  const keep = (chunk) => (output = (output + chunk).slice(-8000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const ready = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${STARTUP_MS / 1000} s`)), STARTUP_MS);
    child.once('message', (m) => (clearTimeout(timer), m.error ? reject(new Error(m.error)) : resolve(m)));
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`it exited with code ${code}`))));
  }).catch((e) => {
    child.kill();
    throw new Error(
      `the LangGraph stack (tests/third-party/langgraph/stack.mjs) did not start: ${e.message}\n${output}`,
    );
  });
  child.stdout.removeAllListeners('data').resume();
  child.stderr.removeAllListeners('data').resume();
  return {
    url: (mode) => `${ready.url}/${mode}`,
    warmUpMs: ready.warmUpMs,
    close: () =>
      new Promise((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', resolve), child.kill()))),
  };
}
