// What a runtime keeps of its thread in a store (createRuntime({persist})):
// the thread's export once, then what changed since the last write (a change
// record, appended), compacted into a new export now and then. Written when
// something that must survive a reload happened, and at most once per interval
// while a run streams. One write at a time; what changed meanwhile is written
// by the next one.
//
// Write-ahead: before a handler starts, the thread that says it is running is
// durable (the store's save() or append() resolved), and so is the thread a
// request carries before the request is written. A reload after that point
// finds the call running and closes it as one that may have completed (as
// import does): it never runs twice, and the agent never received what the
// store lacks. When no write lands (writeAhead()) and the store holds an
// earlier state of the thread, the runtime does not run the call or send the
// request. See docs/persistence.md.
import { describeSafely } from './errors.js';

// While a run streams, the thread is written at most this often.
export const STREAM_SAVE_INTERVAL_MS = 1000;
// A save() that has not settled by then counts as failed (the handlers waiting on it start);
// createRuntime({saveTimeoutMs}) sets it, 0: no limit.
export const SAVE_TIMEOUT_MS = 10_000;
// The changes appended since the last export are compacted into a new one once they hold more text
// than that export (and at least this much), or once there are this many: a load folds a bounded
// number of records, and the store holds at most about twice the thread.
const COMPACT_MIN_BYTES = 64 * 1024;
const COMPACT_MAX_CHANGES = 500;
// writeAhead(): a write that must land is tried this many times, this long apart, before the runtime
// gives up on it (the call is then not run, the request not sent). Bounded, so a turn on a store
// that has stopped working ends within seconds (plus saveTimeoutMs per try) instead of hanging.
export const DURABLE_RETRY_DELAYS_MS = [250, 1000];

const CHANGE_FORMAT = 'agui-client-tools/thread-change';

/**
 * The thread export `snapshot` with one change record applied (a new object; `snapshot` is not
 * changed), or throws an Error saying what is wrong with the change. The format is in
 * docs/persistence.md, "The record format".
 */
export function applyChange(snapshot, change) {
  const { format, version, messages, ...fields } = change ?? {};
  if (format !== CHANGE_FORMAT || version !== 1)
    throw new Error(`it is not a change record (format ${CHANGE_FORMAT}, version 1)`);
  const { from, count, edited, tail } = messages ?? {};
  const had = snapshot.messages.length;
  const fits = Number.isInteger(from) && from >= 0 && from <= had && Array.isArray(edited) && Array.isArray(tail);
  if (!fits || count !== from + tail.length)
    throw new Error(
      `its messages do not fit the thread's ${had} (from ${describeSafely(from)}, count ${describeSafely(count)})`,
    );
  // (concat, not push(...tail): spreading a tail of some 100k messages overflows the stack.)
  const list = snapshot.messages.slice(0, from).concat(tail);
  for (const [index, message] of edited) {
    if (!(Number.isInteger(index) && index >= 0 && index < from))
      throw new Error(`it edits message ${describeSafely(index)}, not one of the ${from} it keeps`);
    list[index] = message;
  }
  return { ...snapshot, ...fields, messages: list };
}

/** What call() resolves to, or a rejection once `ms` passed without it settling (0: no limit). */
async function settledWithin(ms, method, call) {
  let timer;
  const late = new Promise((_, reject) => {
    if (ms > 0) timer = setTimeout(reject, ms, new Error(`${method}() did not settle within ${ms} ms (saveTimeoutMs)`));
  });
  try {
    return await Promise.race([call(), late]);
  } finally {
    clearTimeout(timer);
  }
}

export class Journal {
  #store;
  #threadId;
  #read; // (whole) => the thread's export (whole) or its change since the last read, as JSON text
  #onFailure; // (message) => void: told once per failure streak
  #writing = null; // the save in flight
  #asked = 0; // flush() calls so far
  #landed = 0; // of those, the ones a finished write covered
  #dirty = false; // changed since the last write (written when the timer fires)
  #timer = null;
  #failing = false;
  #failure = ''; // the last failed write's error
  #wholeNext = true; // the next write is an export: the first one, and any after a failed write
  #exportBytes = 0; // the last export written
  #appendedBytes = 0; // the changes appended since
  #appended = 0;
  #last = null; // close(): the final write, taken while the core was there
  stopped = false; // set when the stored record must not be written over

  #timeoutMs;
  #holds; // the store holds some state of this thread (it was loaded from it, or a write landed)

  constructor({ store, threadId, read, onFailure, timeoutMs, holds = false }) {
    this.#timeoutMs = timeoutMs ?? SAVE_TIMEOUT_MS;
    this.#holds = holds;
    this.#store = store;
    this.#threadId = threadId;
    this.#read = read;
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
   * Writes the thread as it is now. Resolves `true` once that is durable, `false` once the write
   * failed (reported through onFailure) or when nothing more is written (stop()). Never rejects.
   */
  async flush() {
    if (this.stopped) return false;
    const wanted = ++this.#asked;
    // Until a write that began after this call has landed (the one in flight may hold less).
    while (this.#landed < wanted) {
      if (this.#writing) {
        await this.#writing;
        continue;
      }
      if (this.stopped && !this.#last) return false; // stop(): nothing more is written
      this.#writing = this.#write().finally(() => {
        this.#writing = null;
      });
    }
    return !this.#failing;
  }

  /** Whether the store holds the thread as it was at the last write (no write failed since). */
  get durable() {
    return !this.#failing;
  }

  /** What the last failed write said (its store's error), while the store is behind. */
  get failure() {
    return this.#failing ? this.#failure : '';
  }

  /**
   * Before a handler starts or a request is written: writes the thread as it is now, tried again
   * after each DURABLE_RETRY_DELAYS_MS while it fails. Resolves `true` when the runtime may go on:
   * the write landed, or the store holds nothing of this thread (nothing there can run a call
   * again, or lack what the agent received: the thread lives in memory); `false` when the store
   * holds an earlier state of the thread and no write landed (or the journal was stopped).
   */
  async writeAhead() {
    for (const delay of [...DURABLE_RETRY_DELAYS_MS, null]) {
      if (await this.flush()) return true;
      if (this.stopped) return false;
      if (!this.#holds) return true;
      if (delay === null) return false;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  // The change since the last write, or the export: when one is due, or when most messages
  // changed (the core then gives the export: a change would be about its size).
  #take() {
    if (this.#last) return this.#last;
    const due =
      this.#wholeNext ||
      typeof this.#store.append !== 'function' ||
      this.#appended >= COMPACT_MAX_CHANGES ||
      this.#appendedBytes > Math.max(this.#exportBytes, COMPACT_MIN_BYTES);
    const text = this.#read(due);
    const value = JSON.parse(text);
    return { whole: value.format !== CHANGE_FORMAT, text, value };
  }

  // Writes the thread as it is now: that covers every flush() asked so far.
  async #write() {
    const covers = this.#asked;
    clearTimeout(this.#timer);
    this.#timer = null;
    this.#dirty = false;
    try {
      const { whole, text, value } = this.#take();
      await this.#settled(whole ? 'save' : 'append', value);
      this.#wrote(whole, text.length);
    } catch (e) {
      this.#failure = describeSafely(e);
      if (!this.#failing) this.#onFailure(`saving thread '${this.#threadId}' failed: ${this.#failure}`);
      this.#failing = true;
      this.#wholeNext = true; // (what that write held is in no record: the next export holds it)
    }
    this.#landed = covers;
  }

  // store[method](threadId, value), rejected when it has not settled within the timeout.
  #settled(method, value) {
    // (A write that timed out may still land: the store then holds the thread.)
    const write = () => Promise.resolve(this.#store[method](this.#threadId, value)).then(() => (this.#holds = true));
    return settledWithin(this.#timeoutMs, method, write);
  }

  #wrote(whole, bytes) {
    this.#failing = false;
    if (!whole) {
      this.#appended += 1;
      this.#appendedBytes += bytes;
      return;
    }
    this.#wholeNext = false;
    this.#exportBytes = bytes;
    this.#appended = this.#appendedBytes = 0;
  }

  /** The last write, of the thread as it is now (the runtime is being disposed); then nothing more. Resolves once it landed. */
  close() {
    if (this.stopped) return Promise.resolve();
    const text = this.#read(true); // (a write in flight may fail: an export holds all)
    this.#last = { whole: true, text, value: JSON.parse(text) };
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
    this.#last = null;
    clearTimeout(this.#timer);
    this.#timer = null;
    this.stopped = true;
  }
}

/** How messages name a store: its `label` (memoryStore(), indexedDbStore("name")), else options.persist. */
export const storeName = (store) => (typeof store?.label === 'string' ? store.label : 'options.persist');

/**
 * The thread a store holds for `threadId` (its export), or null; a record that cannot be read
 * (corrupted, written by a newer version, another thread's, or a load() that has not settled
 * within `timeoutMs`) is reported and left as it is: `{failure}`.
 */
export async function loadThread(store, threadId, timeoutMs = SAVE_TIMEOUT_MS) {
  const failed = (why) => ({ thread: null, failure: `loading thread '${threadId}' failed: ${why}` });
  let thread;
  try {
    thread = (await settledWithin(timeoutMs, 'load', () => store.load(threadId))) ?? null;
  } catch (e) {
    // (The built-in stores' messages name them already.)
    const text = describeSafely(e);
    return failed(text.startsWith(storeName(store)) ? text : `${storeName(store)}: ${text}`);
  }
  // (The core's import checks the rest: a threadId of the wrong type is its to name.)
  if (typeof thread?.threadId === 'string' && thread.threadId !== threadId)
    return failed(
      `${storeName(store)} holds for it a record of thread ${JSON.stringify(thread.threadId)}: ` +
        'corrupted, so it is not adopted; it is left as it is, and this runtime works in memory',
    );
  return { thread };
}
