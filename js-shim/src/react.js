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
import { AguiError } from './errors.js';
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
 * mount, unmount, mount makes one runtime: the runtime being made is kept across its remount.
 * `null` options: no runtime (for a provider given one).
 */
export function useAgent(options) {
  const [runtime, setRuntime] = useState(null);
  const [failure, setFailure] = useState(null);
  const latest = useRef(options);
  latest.current = options;
  const made = useRef(null); // this mount's runtime (being) made: StrictMode's remount finds it here
  const wanted = options != null;
  useEffect(() => {
    if (!wanted) return undefined;
    const own = (made.current ??= makeRuntime(latest.current, setRuntime, setFailure));
    own.keep();
    return () =>
      own.release(() => {
        if (made.current === own) made.current = null;
        setRuntime(null);
      });
  }, [wanted]);
  if (failure) throw failure.error; // to the nearest error boundary
  return runtime;
}

// One createRuntime() per mount. StrictMode unmounts and mounts again in one commit: the release is
// put off by a macrotask, and the remount keeps the runtime. (A second runtime would open the thread
// while the first, disposed at once, still holds it: its store record, its tab's Web Lock.)
function makeRuntime(options, setRuntime, setFailure) {
  let runtime = null;
  let closed = false;
  let closing = null;
  createRuntime(options).then(
    (r) => {
      if (closed) return r.dispose();
      runtime = r;
      setRuntime(r);
    },
    (e) => closed || setFailure({ error: e }),
  );
  return {
    keep() {
      clearTimeout(closing);
      closing = null;
    },
    release(done) {
      closing = setTimeout(() => {
        closed = true;
        runtime?.dispose();
        done();
      }, 0);
    },
  };
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

/** runtime.role ('leader' | 'follower' | 'alone'), re-read on each role_changed; null before the runtime is ready. */
export function useRole() {
  const runtime = useRuntime();
  const subscribe = useCallback(
    (notify) => (runtime ? runtime.subscribe((c) => c.kind === 'role_changed' && notify()) : noop),
    [runtime],
  );
  return useSyncExternalStore(
    subscribe,
    () => runtime?.role ?? null,
    () => null,
  );
}

// What a hook's action gives the page: a promise in every role. A follower's answer already is one
// (the answer in the tab in charge); here, a refusal (a throw) becomes its rejection, so the page
// catches it one way whatever the tab's role is now (it may change between two renders).
function action(runtime, name, act) {
  return (...args) => {
    try {
      if (!runtime) throw new AguiError('invalid_state', `${name}: the runtime is not ready yet`);
      return Promise.resolve(act(runtime, ...args));
    } catch (e) {
      return Promise.reject(e);
    }
  };
}

/** runtime.send as a promise of the turn's end in every role; it rejects when refused. */
export function useSend() {
  const runtime = useRuntime();
  return useMemo(() => action(runtime, 'useSend(): send()', (r, input) => r.send(input)), [runtime]);
}

/** The calls waiting for the user, and the answers (promises, rejected when refused). */
export function useApprovals() {
  const runtime = useRuntime();
  const pending = useSnapshot('approvals', (v) => v.approvals(), NONE);
  return useMemo(
    () => ({
      pending,
      approve: action(runtime, 'approvals.approve()', (r, id) => r.approvals.approve(id)),
      reject: action(runtime, 'approvals.reject()', (r, id, reason) => r.approvals.reject(id, reason)),
    }),
    [runtime, pending],
  );
}

/** The AG-UI interrupts waiting for an answer, and the answers (promises, rejected when refused). */
export function useInterrupts() {
  const runtime = useRuntime();
  const pending = useSnapshot('interrupts', (v) => v.interrupts(), NONE);
  return useMemo(
    () => ({
      pending,
      resolve: action(runtime, 'interrupts.resolve()', (r, id, payload) => r.interrupts.resolve(id, payload)),
      cancel: action(runtime, 'interrupts.cancel()', (r, id, reason) => r.interrupts.cancel(id, reason)),
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
