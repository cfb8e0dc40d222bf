// What the browser tests read (tests/browser/react.test.mjs): render counts per component, handler
// runs per call, the arguments each tool card drew, the storage failures, the hooks' actions. Not needed by an app of your own.
export const probe = (window.__aguiDemo ??= {
  renders: {},
  toolRuns: {},
  cardArgs: {},
  mounts: 0,
  storageFailures: [],
});

/** Counts the renders of the component named `name`. */
export function useRenderCount(name) {
  probe.renders[name] = (probe.renders[name] ?? 0) + 1;
}
