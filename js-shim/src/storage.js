// Thread stores: where a runtime keeps its threads across reloads (issue 22 §1, §3).
// A store is any object with four async methods, load, save, list and delete
// (docs/persistence.md); these are the two built in: memoryStore() for node and
// tests, indexedDbStore() for a browser, on the plain IndexedDB API.
import { AguiError, describeSafely } from './errors.js';

/** The record format this version writes and reads; a larger one is from a newer version. */
const RECORD_FORMAT = 1;
const DB_VERSION = 1;
const OBJECT_STORE = 'threads';
// The code of every storage fault (bad arguments are invalid_argument).
const STORAGE_CODE = 'storage_failed';

const quote = (value) => JSON.stringify(String(value));
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** "null", "an array", "a string": what a value is, for a message. */
function kindOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return value === undefined ? 'missing' : `a ${typeof value}`;
}

/** A storage fault naming where (store and method), the thread and its record, and what was wrong. */
function storageError(where, threadId, what) {
  if (threadId === undefined) return new AguiError(STORAGE_CODE, `${where}: the ${OBJECT_STORE} records ${what}`);
  const record = `${OBJECT_STORE}[${quote(threadId)}]`;
  return new AguiError(STORAGE_CODE, `${where}: thread ${quote(threadId)} (record ${record}) ${what}`);
}

function checkThreadId(where, threadId) {
  if (typeof threadId === 'string' && threadId !== '') return threadId;
  throw new AguiError('invalid_argument', `${where}: threadId must be a non-empty string, not ${kindOf(threadId)}`);
}

function newRecord(where, threadId, snapshot, updatedAt) {
  if (!isObject(snapshot))
    throw new AguiError(
      'invalid_argument',
      `${where}: thread ${quote(threadId)}: the snapshot must be an object (thread.export()), not ${kindOf(snapshot)}`,
    );
  return { format: RECORD_FORMAT, threadId, updatedAt, snapshot };
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

/** The snapshot of a stored record, or the fault that refuses it. */
function readSnapshot(where, threadId, record) {
  const problem = recordProblem(record, threadId);
  if (problem?.newer) throw storageError(where, threadId, `${problem.newer}; it is left as it is`);
  if (problem) throw storageError(where, threadId, `${problem.corrupt}; save() replaces it`);
  return record.snapshot;
}

/** list()'s entries, newest first; a record it cannot read still shows (load() says what is wrong). */
function summarize(entries) {
  const rows = entries.map(([threadId, record]) => ({
    threadId,
    updatedAt: typeof record?.updatedAt === 'number' ? record.updatedAt : 0,
    messages: Array.isArray(record?.snapshot?.messages) ? record.snapshot.messages.length : 0,
  }));
  return rows.sort((a, b) => b.updatedAt - a.updatedAt || (a.threadId < b.threadId ? -1 : 1));
}

/** Date.now(), strictly increasing per store, so two saves in one millisecond still list in order. */
function saveClock() {
  let last = 0;
  return () => (last = Math.max(Date.now(), last + 1));
}

/** A store in this page's memory: deep copies in and out, so no caller's object is shared with it. */
export function memoryStore() {
  const records = new Map();
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
    async load(threadId) {
      const id = checkThreadId(where('load'), threadId);
      if (!records.has(id)) return null;
      return copy('load', id, readSnapshot(where('load'), id, records.get(id)));
    },
    async save(threadId, snapshot) {
      const id = checkThreadId(where('save'), threadId);
      records.set(id, copy('save', id, newRecord(where('save'), id, snapshot, now())));
    },
    async list() {
      return summarize([...records]);
    },
    async delete(threadId) {
      records.delete(checkThreadId(where('delete'), threadId));
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
      if (!db.objectStoreNames.contains(OBJECT_STORE)) db.createObjectStore(OBJECT_STORE);
    };
    request.onblocked = () => reject('the database cannot be opened: blocked by another connection that stays open');
    request.onerror = () => reject(openFailure(request.error));
    request.onsuccess = () => {
      const db = request.result;
      // Another tab upgrading (a newer version) must not wait on this one.
      db.onversionchange = () => (db.close(), onClosed());
      db.onclose = onClosed;
      resolve(db);
    };
  });
}

/**
 * Runs `body(objectStore, outcome, tx)` in one transaction; resolves with outcome.value once the
 * transaction completes (a readwrite one is then durable), rejects with outcome.refusal or the
 * transaction's error when it aborts.
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
      tx = db.transaction(OBJECT_STORE, mode, { durability: 'strict' });
    } catch (e) {
      return reject(
        storageError(where, threadId, `cannot be reached: no transaction on ${OBJECT_STORE} (${errorText(e)})`),
      );
    }
    tx.oncomplete = () => resolve(outcome.value);
    tx.onabort = () => reject(outcome.refusal ?? storageError(where, threadId, failureFor(mode)(tx.error)));
    try {
      body(tx.objectStore(OBJECT_STORE), outcome, (refusal) => fail(tx, refusal));
    } catch (e) {
      fail(tx, storageError(where, threadId, failureFor(mode)(e)));
    }
  });
}

/** A store in IndexedDB: database `name` (version 1), object store "threads", records keyed by threadId. */
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
  return {
    // Every tab of the origin sees this database: its runtimes agree on one tab in charge of each
    // thread (leadership.js). A store of your own shared by tabs names its storage the same way.
    scope: `indexeddb:${name}`,
    async load(threadId) {
      const id = checkThreadId(where('load'), threadId);
      const record = await transact(open, where('load'), id, 'readonly', (store, outcome) => {
        const get = store.get(id);
        get.onsuccess = () => (outcome.value = get.result);
      });
      return record === undefined ? null : readSnapshot(where('load'), id, record);
    },
    async save(threadId, snapshot) {
      const id = checkThreadId(where('save'), threadId);
      const record = newRecord(where('save'), id, snapshot, now());
      await transact(open, where('save'), id, 'readwrite', (store, outcome, refuse) => {
        const get = store.get(id);
        get.onsuccess = () => {
          const newer = get.result === undefined ? null : recordProblem(get.result, id)?.newer;
          if (newer) return refuse(storageError(where('save'), id, `${newer}; it is not overwritten`));
          try {
            store.put(record, id);
          } catch (e) {
            refuse(storageError(where('save'), id, writeFailure(e)));
          }
        };
      });
    },
    async list() {
      return transact(open, where('list'), undefined, 'readonly', (store, outcome) => {
        const keys = store.getAllKeys();
        const values = store.getAll();
        values.onsuccess = () => (outcome.value = summarize(keys.result.map((key, i) => [key, values.result[i]])));
      });
    },
    async delete(threadId) {
      const id = checkThreadId(where('delete'), threadId);
      await transact(open, where('delete'), id, 'readwrite', (store) => store.delete(id));
    },
  };
}
