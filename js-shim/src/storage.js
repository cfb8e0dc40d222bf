// Thread stores: where a runtime keeps its threads across reloads (issue 22 §1, §3).
// A store is any object with four async methods, load, save, list and delete, and
// optionally append (docs/persistence.md); these are the two built in: memoryStore()
// for node and tests, indexedDbStore() for a browser, on the plain IndexedDB API.
// Each keeps a thread as its last export and the change records appended since,
// which load() folds into the export they make (journal.js: applyChange).
import { AguiError, describeSafely, kindOf, threadIdArgument } from './errors.js';
import { applyChange } from './journal.js';

/** The record format this version writes and reads; a larger one is from a newer version. */
const RECORD_FORMAT = 1;
const DB_VERSION = 2; // 1: threads only; 2: and changes
const OBJECT_STORE = 'threads';
const CHANGES = 'changes'; // the change records, keyed [threadId, seq]
const BLOCKED_MS = 2000; // how long an upgrade waits for an older connection to close
// The code of every storage fault (bad arguments are invalid_argument).
const STORAGE_CODE = 'storage_failed';

const quote = (value) => JSON.stringify(String(value));
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A storage fault naming where (store and method), the thread and its record, and what was wrong. */
function storageError(where, threadId, what) {
  if (threadId === undefined) return new AguiError(STORAGE_CODE, `${where}: the ${OBJECT_STORE} records ${what}`);
  const record = `${OBJECT_STORE}[${quote(threadId)}]`;
  return new AguiError(STORAGE_CODE, `${where}: thread ${quote(threadId)} (record ${record}) ${what}`);
}

const checkThreadId = (where, threadId) => threadIdArgument(`${where}: threadId`, threadId);

function newRecord(where, threadId, snapshot, updatedAt) {
  if (!isObject(snapshot))
    throw new AguiError(
      'invalid_argument',
      `${where}: thread ${quote(threadId)}: the snapshot must be an object (thread.export()), not ${kindOf(snapshot)}`,
    );
  return { format: RECORD_FORMAT, threadId, updatedAt, snapshot };
}

function newChange(where, threadId, change, seq, updatedAt) {
  if (!isObject(change) || !isObject(change.messages))
    throw new AguiError(
      'invalid_argument',
      `${where}: thread ${quote(threadId)}: the change must be an object (a change record), not ${kindOf(change)}`,
    );
  return { format: RECORD_FORMAT, threadId, seq, updatedAt, messages: change.messages.count, change };
}

/** What is wrong with a stored record: {newer} (never overwritten), {corrupt} (save replaces it), or null. */
function recordProblem(record, threadId) {
  if (!isObject(record)) return { corrupt: `is corrupted: it is ${kindOf(record)}, not an object` };
  const { format } = record;
  if (typeof format === 'number' && format > RECORD_FORMAT)
    return {
      newer: `was written by a newer version (format ${format}; this version reads format ${RECORD_FORMAT})`,
    };
  if (format !== RECORD_FORMAT)
    return { corrupt: `is corrupted: its format is ${describeSafely(JSON.stringify(format))}, not ${RECORD_FORMAT}` };
  if (!isObject(record.snapshot))
    return { corrupt: `is corrupted: it has no snapshot object (snapshot is ${kindOf(record.snapshot)})` };
  if (record.threadId !== threadId)
    return { corrupt: `is corrupted: it names thread ${quote(record.threadId)}, not the key it is stored under` };
  return null;
}

const changeName = (threadId, entry) => `change record ${CHANGES}[[${quote(threadId)}, ${describeSafely(entry?.seq)}]]`;

/** What a newer version wrote among a thread's record and change records (never destroyed), or null. */
function newerRecord(threadId, record, changes) {
  const newer = record === undefined ? null : recordProblem(record, threadId)?.newer;
  if (newer) return newer;
  const entry = changes.find((c) => c?.format > RECORD_FORMAT);
  return entry ? `has a ${changeName(threadId, entry)} written by a newer version` : null;
}

/**
 * The thread a stored record and its change records make (a new object), or the fault that
 * refuses them, naming the record.
 */
function readSnapshot(where, threadId, record, changes = []) {
  const problem = recordProblem(record, threadId);
  if (problem?.newer) throw storageError(where, threadId, `${problem.newer}; it is left as it is`);
  if (problem) throw storageError(where, threadId, `${problem.corrupt}; save() replaces it`);
  let snapshot = record.snapshot;
  for (const entry of changes) {
    const named = changeName(threadId, entry);
    if (entry?.format > RECORD_FORMAT)
      throw storageError(where, threadId, `has a ${named} written by a newer version; it is left as it is`);
    try {
      if (entry?.format !== RECORD_FORMAT) throw new Error(`its format is not ${RECORD_FORMAT}`);
      snapshot = applyChange(snapshot, entry.change);
    } catch (e) {
      throw storageError(where, threadId, `has a corrupted ${named}: ${describeSafely(e)}; save() replaces it`);
    }
  }
  return snapshot;
}

/**
 * list()'s entries, newest first, from [threadId, record, its last change record or undefined]; a
 * record it cannot read still shows (load() says what is wrong).
 */
function summarize(entries) {
  const rows = entries.map(([threadId, record, last]) => {
    const exported = Array.isArray(record?.snapshot?.messages) ? record.snapshot.messages.length : 0;
    return {
      threadId,
      updatedAt: [last?.updatedAt, record?.updatedAt, 0].find((t) => typeof t === 'number'),
      messages: Number.isInteger(last?.messages) ? last.messages : exported,
    };
  });
  return rows.sort((a, b) => b.updatedAt - a.updatedAt || (a.threadId < b.threadId ? -1 : 1));
}

/** Date.now(), strictly increasing per store, so two saves in one millisecond still list in order. */
function saveClock() {
  let last = 0;
  return () => (last = Math.max(Date.now(), last + 1));
}

/** A store in this page's memory: deep copies in and out, so no caller's object is shared with it. */
export function memoryStore() {
  const records = new Map(); // threadId -> its record (the last export)
  const changes = new Map(); // threadId -> the change records appended since
  const now = saveClock();
  const where = (method) => `memoryStore().${method}()`;
  const copy = (method, threadId, value) => {
    try {
      return structuredClone(value);
    } catch (e) {
      throw new AguiError(
        'invalid_argument',
        `${where(method)}: thread ${quote(threadId)}: the snapshot cannot be copied: ${describeSafely(e)}`,
      );
    }
  };
  return {
    label: 'memoryStore()', // (how messages name it)
    async load(threadId) {
      const id = checkThreadId(where('load'), threadId);
      if (!records.has(id)) return null;
      return copy('load', id, readSnapshot(where('load'), id, records.get(id), changes.get(id)));
    },
    async save(threadId, snapshot) {
      const id = checkThreadId(where('save'), threadId);
      records.set(id, copy('save', id, newRecord(where('save'), id, snapshot, now())));
      changes.delete(id);
    },
    async append(threadId, change) {
      const id = checkThreadId(where('append'), threadId);
      if (!records.has(id)) throw storageError(where('append'), id, 'has no record to append to: save() it first');
      const list = changes.get(id) ?? [];
      list.push(copy('append', id, newChange(where('append'), id, change, list.length + 1, now())));
      changes.set(id, list);
    },
    async list() {
      return summarize([...records].map(([id, record]) => [id, record, changes.get(id)?.at(-1)]));
    },
    // (Nothing a newer version wrote can be here: this page's memory holds only what it saved.)
    async delete(threadId) {
      const id = checkThreadId(where('delete'), threadId);
      records.delete(id);
      changes.delete(id);
    },
  };
}

/** A DOMException (or anything thrown) as "Name: message". */
function errorText(error) {
  if (!error) return 'no error given';
  const name = describeSafely(error.name ?? 'Error');
  return `${name}: ${describeSafely(error)}`;
}

function writeFailure(error) {
  if (error?.name === 'QuotaExceededError')
    return `could not be written: the storage quota is exceeded (${errorText(error)}); the stored record is unchanged`;
  return `could not be written (${errorText(error)}); the stored record is unchanged`;
}

function readFailure(error) {
  return `could not be read (${errorText(error)})`;
}

const failureFor = (mode) => (mode === 'readwrite' ? writeFailure : readFailure);

function openFailure(error) {
  if (error?.name === 'VersionError')
    return `the database cannot be opened: it is at a newer version than ${DB_VERSION} (${errorText(error)})`;
  return `the database cannot be opened (${errorText(error)})`;
}

/** Opens the database once, creating its object store; a failed or closed connection is opened again next time. */
function connection(idb, name) {
  let opening = null;
  const forget = () => {
    opening = null;
  };
  const failed = (reason) => {
    forget();
    throw reason;
  };
  return () => (opening ??= openDatabase(idb, name, forget).catch(failed));
}

function openDatabase(idb, name, onClosed) {
  return new Promise((resolve, reject) => {
    let request;
    try {
      request = idb.open(name, DB_VERSION);
    } catch (e) {
      return reject(openFailure(e));
    }
    request.onupgradeneeded = () => {
      const db = request.result;
      for (const name of [OBJECT_STORE, CHANGES]) if (!db.objectStoreNames.contains(name)) db.createObjectStore(name);
    };
    // Blocked: a connection at the old version (another tab) has not closed yet. It may be closing:
    // given a moment, then refused; a connection that comes after that is closed at once.
    let blocked = null;
    request.onblocked = () => {
      blocked ??= setTimeout(() => {
        blocked = 'refused';
        reject('the database cannot be opened: blocked by another connection that stays open');
      }, BLOCKED_MS);
    };
    request.onerror = () => reject(openFailure(request.error));
    request.onsuccess = () => {
      const db = request.result;
      if (blocked === 'refused') return db.close();
      clearTimeout(blocked);
      // Another tab upgrading (a newer version) must not wait on this one.
      db.onversionchange = () => (db.close(), onClosed());
      db.onclose = onClosed;
      resolve(db);
    };
  });
}

/**
 * Runs `body({threads, changes}, outcome, refuse)` in one transaction over both object stores;
 * resolves with outcome.value once the transaction completes (a readwrite one is then durable),
 * rejects with outcome.refusal or the transaction's error when it aborts.
 */
async function transact(open, where, threadId, mode, body) {
  let db;
  try {
    db = await open();
  } catch (reason) {
    throw storageError(where, threadId, `cannot be reached: ${reason}`);
  }
  return new Promise((resolve, reject) => {
    const outcome = { value: undefined, refusal: null };
    const fail = (tx, refusal) => {
      outcome.refusal ??= refusal;
      tx.abort();
    };
    let tx;
    try {
      tx = db.transaction([OBJECT_STORE, CHANGES], mode, { durability: 'strict' });
    } catch (e) {
      return reject(
        storageError(where, threadId, `cannot be reached: no transaction on ${OBJECT_STORE} (${errorText(e)})`),
      );
    }
    tx.oncomplete = () => resolve(outcome.value);
    tx.onabort = () => reject(outcome.refusal ?? storageError(where, threadId, failureFor(mode)(tx.error)));
    try {
      const stores = { threads: tx.objectStore(OBJECT_STORE), changes: tx.objectStore(CHANGES) };
      body(stores, outcome, (refusal) => fail(tx, refusal));
    } catch (e) {
      fail(tx, storageError(where, threadId, failureFor(mode)(e)));
    }
  });
}

/** The keys of a thread's change records: [threadId, seq]. */
const changesOf = (threadId) => IDBKeyRange.bound([threadId, 0], [threadId, Infinity]);

/**
 * A store in IndexedDB: database `name` (version 2), object store "threads" (each thread's last
 * export, keyed by threadId) and "changes" (the change records appended since, keyed [threadId, seq]).
 */
export function indexedDbStore({ name = 'agui-client-tools' } = {}) {
  const label = `indexedDbStore(${quote(name)})`;
  const idb = globalThis.indexedDB;
  if (!idb)
    throw new AguiError(
      STORAGE_CODE,
      `${label}: IndexedDB is not available here (no indexedDB global: node, or a private window that disables it); ` +
        'use memoryStore() or a store of your own',
    );
  const open = connection(idb, String(name));
  const now = saveClock();
  const where = (method) => `${label}.${method}()`;
  const put = (store, value, key, refuse, method, id) => {
    try {
      store.put(value, key);
    } catch (e) {
      refuse(storageError(where(method), id, writeFailure(e)));
    }
  };
  return {
    // Every tab of the origin sees this database: its runtimes agree on one tab in charge of each
    // thread (leadership.js). A store of your own shared by tabs names its storage the same way.
    scope: `indexeddb:${name}`,
    label,
    async load(threadId) {
      const id = checkThreadId(where('load'), threadId);
      const found = await transact(open, where('load'), id, 'readonly', ({ threads, changes }, outcome) => {
        const get = threads.get(id);
        const after = changes.getAll(changesOf(id));
        after.onsuccess = () => (outcome.value = { record: get.result, changes: after.result });
      });
      return found.record === undefined ? null : readSnapshot(where('load'), id, found.record, found.changes);
    },
    async save(threadId, snapshot) {
      const id = checkThreadId(where('save'), threadId);
      const record = newRecord(where('save'), id, snapshot, now());
      await transact(open, where('save'), id, 'readwrite', ({ threads, changes }, outcome, refuse) => {
        const get = threads.get(id);
        get.onsuccess = () => {
          const newer = get.result === undefined ? null : recordProblem(get.result, id)?.newer;
          if (newer) return refuse(storageError(where('save'), id, `${newer}; it is not overwritten`));
          put(threads, record, id, refuse, 'save', id);
          changes.delete(changesOf(id)); // (now in the export)
        };
      });
    },
    // One change record after the last (the runtime appends only after its own save()).
    async append(threadId, change) {
      const id = checkThreadId(where('append'), threadId);
      await transact(open, where('append'), id, 'readwrite', ({ threads, changes }, outcome, refuse) => {
        const base = threads.getKey(id);
        const last = changes.openKeyCursor(changesOf(id), 'prev');
        last.onsuccess = () => {
          if (base.result === undefined)
            return refuse(storageError(where('append'), id, 'has no record to append to: save() it first'));
          const seq = (last.result?.key[1] ?? 0) + 1;
          put(changes, newChange(where('append'), id, change, seq, now()), [id, seq], refuse, 'append', id);
        };
      });
    },
    async list() {
      return transact(open, where('list'), undefined, 'readonly', ({ threads, changes }, outcome) => {
        const keys = threads.getAllKeys();
        const values = threads.getAll();
        values.onsuccess = () => {
          const rows = keys.result.map((key, i) => [key, values.result[i], undefined]);
          if (rows.length === 0) outcome.value = [];
          let left = rows.length;
          for (const row of rows) {
            const last = changes.openCursor(changesOf(row[0]), 'prev');
            last.onsuccess = () => {
              row[2] = last.result?.value;
              if (--left === 0) outcome.value = summarize(rows);
            };
          }
        };
      });
    },
    async delete(threadId) {
      const id = checkThreadId(where('delete'), threadId);
      await transact(open, where('delete'), id, 'readwrite', ({ threads, changes }, outcome, refuse) => {
        const get = threads.get(id);
        const after = changes.getAll(changesOf(id));
        after.onsuccess = () => {
          const newer = newerRecord(id, get.result, after.result);
          if (newer) return refuse(storageError(where('delete'), id, `${newer}; it is not deleted`));
          threads.delete(id);
          changes.delete(changesOf(id));
        };
      });
    },
  };
}
