// The tools a page registers, shared by every thread it opens from one runtime:
// the core's registry (through its lease, heap.js), the handlers, and the
// threads to tell when the set changes.
import { AguiError, describeSafely, stringArgument, unwrap } from './errors.js';
import { leaseRegistry, releaseLease } from './heap.js';

/** Shared by every thread a page opens from one runtime: the tools and their handlers. */
export class ToolSet {
  constructor(core, options) {
    this.lease = leaseRegistry(core, options);
    this.handlers = new Map();
    this.listeners = new Set(); // threads, told when the set changes
  }

  get registry() {
    return this.lease.registry;
  }

  register(definition) {
    if (!definition || typeof definition !== 'object') {
      throw new AguiError('invalid_tool', 'tools.register() takes a tool definition object');
    }
    let handler;
    let rest;
    try {
      ({ handler, ...rest } = definition);
    } catch (e) {
      throw new AguiError('invalid_tool', `tools.register(): the definition cannot be read: ${describeSafely(e)}`);
    }
    const name = describeSafely(rest.name);
    if (typeof handler !== 'function') {
      throw new AguiError('invalid_tool', `tool '${name}': handler must be a function (args, ctx) => result`);
    }
    let text;
    try {
      text = JSON.stringify(rest);
    } catch (e) {
      throw new AguiError('invalid_tool', `tool '${name}': definition is not JSON-serialisable: ${describeSafely(e)}`);
    }
    unwrap(this.registry.add(text));
    this.handlers.set(rest.name, handler);
    this.changed();
  }

  unregister(name) {
    const text = stringArgument('tools.unregister(): name', name);
    unwrap(this.registry.remove(text));
    this.handlers.delete(name);
    this.changed();
  }

  setEnabled(name, enabled) {
    unwrap(this.registry.setEnabled(stringArgument('tools.setEnabled(): name', name), Boolean(enabled)));
    this.changed();
  }

  changed() {
    for (const listener of this.listeners) listener({ kind: 'tools_changed' });
  }

  release() {
    releaseLease(this.lease);
  }
}
