// agui-client-tools/react: React 18+ hooks over a runtime. Thin by design: the
// thread view (thread-view.js) turns the runtime's changes into immutable
// snapshots, and each hook reads one of them through useSyncExternalStore, so
// a text delta re-renders only the component of the message it grew.
import {
  createContext,
  createElement,
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import { createRuntime } from './runtime.js';
import { ThreadView } from './thread-view.js';

const AgentContext = createContext(null);
const NONE = Object.freeze([]);
const noop = () => {};

// One view per runtime, made on first use and kept as long as the runtime is.
const views = new WeakMap();
function viewOf(runtime) {
  let view = views.get(runtime);
  if (!view) views.set(runtime, (view = new ThreadView(runtime)));
  return view;
}

/**
 * Creates a runtime with createRuntime(options) on mount and disposes it on unmount; null until it
 * is ready. `options` are read once, at mount (remount with a `key` to change them). StrictMode's
 * mount, unmount, mount leaves one runtime: the first is disposed as soon as it is made.
 * `null` options: no runtime (for a provider given one).
 */
export function useAgent(options) {
  const [runtime, setRuntime] = useState(null);
  const [failure, setFailure] = useState(null);
  const latest = useRef(options);
  latest.current = options;
  const wanted = options != null;
  useEffect(() => {
    if (!wanted) return undefined;
    let live = true;
    let made = null;
    createRuntime(latest.current).then(
      (r) => {
        if (!live) return r.dispose();
        made = r;
        setRuntime(r);
      },
      (e) => live && setFailure({ error: e }),
    );
    return () => {
      live = false;
      made?.dispose();
      setRuntime(null);
    };
  }, [wanted]);
  if (failure) throw failure.error; // to the nearest error boundary
  return runtime;
}

/**
 * Shares one runtime with the hooks below it: `runtime` (yours; you dispose it) or `options` (made
 * and disposed here, as useAgent does). Children render at once; the hooks read empty snapshots
 * until the runtime is ready.
 */
export function AgentProvider({ runtime = null, options = null, children }) {
  const own = useAgent(runtime ? null : options);
  return createElement(AgentContext.Provider, { value: runtime ?? own }, children);
}

/** The provider's runtime (null while it is being made): for send(), abort(), tools. */
export function useRuntime() {
  return useContext(AgentContext);
}

/** One snapshot of the provider's thread view, re-read when it is replaced. */
function useSnapshot(key, read, empty) {
  const runtime = useRuntime();
  const view = runtime ? viewOf(runtime) : null;
  const subscribe = useCallback((notify) => (view ? view.subscribe(key, notify) : noop), [view, key]);
  return useSyncExternalStore(
    subscribe,
    () => (view ? read(view) : empty),
    () => empty,
  );
}

/** The thread's messages as `{id, role}`, in order; a text delta does not change it. */
export function useMessages() {
  return useSnapshot('messages', (v) => v.messages(), NONE);
}

/** One message (an AG-UI Message), re-rendering only when that message changes. */
export function useMessage(id) {
  return useSnapshot(`message:${id}`, (v) => v.message(id), undefined);
}

/** One tool call: {id, name, messageId, state, args, argsText, result?, error?, invalid?}. */
export function useToolCall(id) {
  return useSnapshot(`toolCall:${id}`, (v) => v.toolCall(id), undefined);
}

/** runtime.status (phase, round, running, …), or null before the runtime is ready. */
export function useAgentStatus() {
  return useSnapshot('status', (v) => v.status(), null);
}

/** The calls waiting for the user, and the answers. */
export function useApprovals() {
  const runtime = useRuntime();
  const pending = useSnapshot('approvals', (v) => v.approvals(), NONE);
  return useMemo(
    () => ({
      pending,
      approve: (toolCallId) => runtime.approvals.approve(toolCallId),
      reject: (toolCallId, reason) => runtime.approvals.reject(toolCallId, reason),
    }),
    [runtime, pending],
  );
}

/** The AG-UI interrupts waiting for an answer, and the answers. */
export function useInterrupts() {
  const runtime = useRuntime();
  const pending = useSnapshot('interrupts', (v) => v.interrupts(), NONE);
  return useMemo(
    () => ({
      pending,
      resolve: (interruptId, payload) => runtime.interrupts.resolve(interruptId, payload),
      cancel: (interruptId, reason) => runtime.interrupts.cancel(interruptId, reason),
    }),
    [runtime, pending],
  );
}

/**
 * Registers a client tool for as long as the component is mounted. Each call runs the handler of
 * the latest render (kept in a ref), so a new handler never re-registers the tool; a change of
 * the rest of the definition (compared as JSON) does.
 */
export function useClientTool(definition) {
  const runtime = useRuntime();
  const latest = useRef(definition);
  useLayoutEffect(() => {
    latest.current = definition;
  });
  const specText = JSON.stringify({ ...definition, handler: undefined });
  useEffect(() => {
    if (!runtime) return undefined;
    const { name } = latest.current;
    runtime.tools.register({ ...JSON.parse(specText), handler: (args, ctx) => latest.current.handler(args, ctx) });
    return () => {
      try {
        runtime.tools.unregister(name);
      } catch (e) {
        // A runtime disposed first (its provider unmounting too) has nothing left to undo.
        if (e?.code !== 'invalid_state') throw e;
      }
    };
  }, [runtime, specText]);
}
