// What a runtime keeps of its thread in a store (createRuntime({persist})):
// the thread's export, written when something that must survive a reload
// happened, and at most once per interval while a run streams. One write at a
// time; what changed meanwhile is written by the next one.
//
// Write-ahead: before a handler starts, the thread that says it is running is
// durable (the store's save() resolved). A reload after that point finds the
// call running and closes it as one that may have completed (as import does):
// it never runs twice. See docs/persistence.md.
import { describeSafely } from './errors.js';

// While a run streams, the thread is written at most this often.
export const STREAM_SAVE_INTERVAL_MS = 1000;
// A save() that has not settled by then counts as failed (the handlers waiting on it start);
// createRuntime({saveTimeoutMs}) sets it, 0: no limit.
export const SAVE_TIMEOUT_MS = 10_000;

export class Journal {
  #store;
  #threadId;
  #snapshot; // () => the thread's export, now
  #onFailure; // (message) => void: told once per failure streak
  #writing = null; // the save in flight
  #asked = 0; // flush() calls so far
  #landed = 0; // of those, the ones a finished write covered
  #dirty = false; // changed since the last write (written when the timer fires)
  #timer = null;
  #failing = false;
  stopped = false; // set when the stored record must not be written over

  #timeoutMs;

  constructor({ store, threadId, snapshot, onFailure, timeoutMs }) {
    this.#timeoutMs = timeoutMs ?? SAVE_TIMEOUT_MS;
    this.#store = store;
    this.#threadId = threadId;
    this.#snapshot = snapshot;
    this.#onFailure = onFailure;
  }

  /** Something changed: written within the interval (a stream's deltas), or now when `urgent`. */
  changed(urgent) {
    if (this.stopped) return;
    if (urgent) {
      this.flush();
      return;
    }
    this.#dirty = true;
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      if (this.#dirty) this.flush();
    }, STREAM_SAVE_INTERVAL_MS);
  }

  /**
   * Writes the thread as it is now; resolves once that is durable, or once it failed (reported
   * through onFailure; the runtime goes on in memory). Never rejects.
   */
  async flush() {
    if (this.stopped) return;
    const wanted = ++this.#asked;
    // Until a write that began after this call has landed (the one in flight may hold less).
    while (this.#landed < wanted) {
      if (this.#writing) {
        await this.#writing;
        continue;
      }
      this.#writing = this.#write().finally(() => {
        this.#writing = null;
      });
    }
  }

  // Writes the thread as it is now: that covers every flush() asked so far.
  async #write() {
    const covers = this.#asked;
    clearTimeout(this.#timer);
    this.#timer = null;
    this.#dirty = false;
    let timer;
    try {
      const saved = this.#store.save(this.#threadId, this.#snapshot());
      const late = new Promise((_, reject) => {
        const ms = this.#timeoutMs;
        if (ms > 0) timer = setTimeout(reject, ms, new Error(`save() did not settle within ${ms} ms (saveTimeoutMs)`));
      });
      await Promise.race([saved, late]);
      this.#failing = false;
    } catch (e) {
      if (!this.#failing) this.#onFailure(`saving thread '${this.#threadId}' failed: ${describeSafely(e)}`);
      this.#failing = true;
    } finally {
      clearTimeout(timer);
    }
    this.#landed = covers;
  }

  /** The last write, of the thread as it is now (the runtime is being disposed); then nothing more. Resolves once it landed. */
  close() {
    if (this.stopped) return Promise.resolve();
    const last = this.#snapshot();
    this.#snapshot = () => last;
    const written = this.flush();
    this.stopped = true; // (flush() above already started)
    return written;
  }

  /** Writes nothing more, and deletes the stored thread once the write in flight has landed. */
  async forget() {
    this.stop();
    while (this.#writing) await this.#writing;
    await this.#store.delete(this.#threadId);
  }

  /** Writes nothing more: the stored record could not be read, and must not be written over. */
  stop() {
    clearTimeout(this.#timer);
    this.#timer = null;
    this.stopped = true;
  }
}

/**
 * The thread a store holds for `threadId` (its export), or null; a record that cannot be read
 * (corrupted, written by a newer version) is reported and left as it is: `{failure}`.
 */
export async function loadThread(store, threadId) {
  try {
    return { thread: (await store.load(threadId)) ?? null };
  } catch (e) {
    return { thread: null, failure: `loading thread '${threadId}' failed: ${describeSafely(e)}` };
  }
}
