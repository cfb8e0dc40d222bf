// What a runtime holds in the wasm heap, and what frees it: the registry a page's
// threads share (a lease counted per thread), each thread's releaser, and the
// FinalizationRegistry that frees a runtime dropped without dispose().
import { unwrap } from './errors.js';
import { openRegistry } from './core.js';

const finalizer = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((release) => release()) : null;

/**
 * Calls `release` once `runtime` is garbage-collected; returns the function that
 * cancels it (dispose() frees at once). `release` must not reach `runtime`, or
 * the registry's hold on it keeps the runtime alive for good.
 */
export function releaseWhenCollected(runtime, release) {
  if (!finalizer) return () => {};
  const token = {};
  finalizer.register(runtime, release, token);
  return () => finalizer.unregister(token);
}

/**
 * The registry in the wasm heap and the count of threads using it. Apart from
 * the ToolSet on purpose: the finalizer's held value keeps this alive, and it
 * reaches nothing of JavaScript (no handler, no listener), so whatever a page's
 * handlers hold, a dropped runtime stays collectable.
 */
export function leaseRegistry(core, options) {
  const registry = openRegistry(core);
  try {
    if (options.stampSchemaExtensions || options.allowBacktrackingPatterns) {
      const settings = {
        stampSchemaExtensions: Boolean(options.stampSchemaExtensions),
        allowBacktrackingPatterns: Boolean(options.allowBacktrackingPatterns),
      };
      unwrap(registry.configure(JSON.stringify(settings)));
    }
  } catch (e) {
    registry.delete();
    throw e;
  }
  return { registry, refs: 0 };
}

/** A WeakRef to `target` (a strong one where WeakRef is missing, as is FinalizationRegistry then). */
export function weakRef(target) {
  return typeof WeakRef === 'function' ? new WeakRef(target) : { deref: () => target };
}

/**
 * What frees a thread's part of the wasm heap: its driver (`handle.driver`, which a tab taking
 * charge of the thread replaces), its hold on the registry, its listener.
 */
export function releaser(handle, lease, listeners, listener) {
  return () => {
    listeners.delete(listener);
    handle.driver.delete();
    releaseLease(lease);
  };
}

/** One thread fewer uses the lease; the last one frees the registry. */
export function releaseLease(lease) {
  lease.refs -= 1;
  if (lease.refs <= 0 && lease.registry) {
    lease.registry.delete();
    lease.registry = null;
  }
}
