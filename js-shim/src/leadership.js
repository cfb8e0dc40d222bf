// Which tab is in charge of a thread kept in a store every tab of the origin shares
// (indexedDbStore): the one holding the thread's Web Lock. The others queue for the lock, so when
// the tab in charge closes or crashes (the browser then releases its lock) the next one takes
// over; meanwhile they follow it over the thread's BroadcastChannel. This file only does that
// I/O; what the roles do is the runtime's (runtime.js, docs/persistence.md#tabs).
import { randomId } from './options.js';

/** Why the tabs sharing a store (it has a `scope`) cannot be coordinated here, or '' when they can. */
export function uncoordinated() {
  if (typeof globalThis.navigator?.locks?.request !== 'function') return 'this environment has no Web Locks API';
  if (typeof globalThis.BroadcastChannel !== 'function') return 'this environment has no BroadcastChannel';
  return '';
}

export class Leadership {
  #name;
  #channel;
  #release = null; // resolves the held lock's promise: releases it
  #cancel = new AbortController(); // cancels a queued request
  #closed = false;
  tabId = randomId(); // this runtime's name on the channel
  onLead = () => {}; // the lock was granted to a runtime that was waiting for it
  onLost = () => {}; // the lock was taken from the runtime holding it (another tab stole it)
  onMessage = () => {};

  constructor(scope, threadId) {
    this.#name = `agui-client-tools:${scope}:${threadId}`;
    this.#channel = new BroadcastChannel(this.#name);
    this.#channel.onmessage = (e) => this.#closed || this.onMessage(e.data);
  }

  /** Takes the lock if it is free ('leader'), else queues for it ('follower'). */
  async start() {
    if (await this.#acquire({ ifAvailable: true })) return 'leader';
    this.#queue();
    return 'follower';
  }

  get leading() {
    return this.#release !== null;
  }

  post(message) {
    if (!this.#closed) this.#channel.postMessage({ ...message, from: this.tabId });
  }

  /** Takes the lock from the tab holding it, which handed the thread over (see handover). */
  steal() {
    this.#cancel.abort(); // (this runtime's queued request)
    this.#cancel = new AbortController();
    this.#acquire({ steal: true }).then((got) => got && !this.#closed && this.onLead());
  }

  /** Gives the lock up and queues for it again (once a handover did not happen). */
  requeue() {
    this.#release?.();
    this.#release = null;
    this.#queue();
  }

  close() {
    this.#closed = true;
    this.#cancel.abort();
    this.#release?.();
    this.#release = null;
    this.#channel.close();
  }

  #queue() {
    this.#acquire({ signal: this.#cancel.signal }).then((got) => got && !this.#closed && this.onLead());
  }

  // Resolves true once the lock is held (until #release is called), false when it was not free
  // (ifAvailable) or the request was cancelled. A held lock stolen by another tab calls onLost.
  #acquire(options) {
    return new Promise((granted) => {
      let held = false;
      navigator.locks
        .request(this.#name, options, (lock) => {
          if (!lock || this.#closed) return granted(false);
          held = true;
          granted(true);
          return new Promise((release) => (this.#release = release));
        })
        .catch(() => {
          // AbortError: the queued request was cancelled, or the held lock was stolen.
          if (!held) return granted(false);
          this.#release = null;
          if (!this.#closed) this.onLost();
        });
    });
  }
}
