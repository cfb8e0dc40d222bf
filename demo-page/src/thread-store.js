// Threads in localStorage: an index (order, active thread) and one record per thread holding
// runtime.thread.export(), the page's in-place notes and a title. Writes are debounced.
const INDEX_KEY = 'agui-demo/threads';
const RECORD_PREFIX = 'agui-demo/thread/';

function read(key) {
  try {
    const text = localStorage.getItem(key);
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** @returns {{active: string | null, records: {threadId, title, updatedAt, export, notes}[]}} */
export function loadThreads() {
  const index = read(INDEX_KEY);
  const order = Array.isArray(index?.order) ? index.order.filter((id) => typeof id === 'string') : [];
  const records = [];
  for (const id of order) {
    const record = read(RECORD_PREFIX + id);
    if (record && record.export && record.export.threadId === id) {
      records.push({
        threadId: id,
        title: record.title ?? '',
        updatedAt: record.updatedAt ?? null,
        export: record.export,
        notes: Array.isArray(record.notes) ? record.notes : [],
      });
    }
  }
  return { active: typeof index?.active === 'string' ? index.active : null, records };
}

export class ThreadStore {
  constructor({ onError } = {}) {
    this.onError = onError;
    this.timers = new Map();
    this.pending = new Map(); // threadId -> () => record
  }

  saveIndex(order, active) {
    this.write(INDEX_KEY, { version: 1, order, active });
  }

  /** Schedules a write of the record `build()` returns (called when the write happens). */
  schedule(threadId, build, delay = 400) {
    this.pending.set(threadId, build);
    if (this.timers.has(threadId)) return;
    this.timers.set(
      threadId,
      setTimeout(() => this.flushOne(threadId), delay),
    );
  }

  flushOne(threadId) {
    clearTimeout(this.timers.get(threadId));
    this.timers.delete(threadId);
    const build = this.pending.get(threadId);
    this.pending.delete(threadId);
    if (!build) return;
    let record;
    try {
      record = build();
    } catch (e) {
      this.onError?.(`Could not export thread ${threadId}: ${e?.message ?? e}`);
      return;
    }
    if (record) this.write(RECORD_PREFIX + threadId, record);
  }

  flush() {
    for (const id of [...this.pending.keys()]) this.flushOne(id);
  }

  remove(threadId) {
    clearTimeout(this.timers.get(threadId));
    this.timers.delete(threadId);
    this.pending.delete(threadId);
    try {
      localStorage.removeItem(RECORD_PREFIX + threadId);
    } catch {
      // nothing to do
    }
  }

  write(key, value) {
    try {
      localStorage.setItem(key, JSON.stringify(value));
    } catch (e) {
      this.onError?.(`Could not save to localStorage (${e?.name ?? 'error'}): threads may not survive a reload.`);
    }
  }
}
