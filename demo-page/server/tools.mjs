// The demo agent's server-side tools: schema and SQL on the permits database, charts and maps.
//
// Same four tools as the platform we match (get_database_schema, execute_query, create_chart,
// create_map). They run here, on the server; charts and maps reach the page as AG-UI
// ACTIVITY_SNAPSHOT events with the content types the page renders.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DEFAULT_DB_PATH, MAX_ROWS, openPermitsDb } from './db.mjs';

export const QUERY_TIMEOUT_MS = 5000;
const START_TIMEOUT_MS = 15000;
export const ECHART_ACTIVITY = 'application/json+echart';
export const LEAFLET_ACTIVITY = 'application/json+leaflet';
const MAX_VISUAL_BYTES = 512 * 1024;
const MAX_MAP_FEATURES = 2000;

// AG-UI Tool definitions (name, description, JSON Schema parameters).
export const SERVER_TOOL_DEFINITIONS = [
  {
    name: 'get_database_schema',
    description: 'List the tables and columns of the building permits database (SQLite). Call this before writing SQL.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  },
  {
    name: 'execute_query',
    description: `Run one read-only SQL statement (SELECT, or WITH ... SELECT) on the permits database, SQLite dialect. Returns at most ${MAX_ROWS} rows as objects; aggregate in SQL.`,
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'A single SQLite SELECT statement' } },
      required: ['query'],
      additionalProperties: false,
    },
  },
  {
    name: 'create_chart',
    description:
      'Render an Apache ECharts chart in the chat. config is an ECharts option object (title, tooltip, xAxis, yAxis, series) with the data inlined.',
    parameters: {
      type: 'object',
      properties: { config: { type: 'object', description: 'An Apache ECharts option object' } },
      required: ['config'],
      additionalProperties: false,
    },
  },
  {
    name: 'create_map',
    description:
      "Render a Leaflet map in the chat. data.center is [lat, lon]; data.geojson is a GeoJSON FeatureCollection of Point features (coordinates [lon, lat]); a feature's properties.popup is shown on click.",
    parameters: {
      type: 'object',
      properties: {
        data: {
          type: 'object',
          properties: {
            center: { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2 },
            zoom: { type: 'number' },
            geojson: { type: 'object' },
          },
          required: ['center', 'geojson'],
        },
      },
      required: ['data'],
      additionalProperties: false,
    },
  },
];

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const tooBig = (v) => JSON.stringify(v).length > MAX_VISUAL_BYTES;

function chartTool(args) {
  const config = args?.config;
  if (!isObject(config)) return { result: { error: 'config must be an ECharts option object' } };
  if (config.series === undefined)
    return { result: { error: 'config.series is missing: ECharts draws nothing without it' } };
  if (tooBig(config))
    return { result: { error: `config is larger than ${MAX_VISUAL_BYTES} bytes; aggregate the data first` } };
  return {
    result: { rendered: true, activityType: ECHART_ACTIVITY },
    activity: { activityType: ECHART_ACTIVITY, content: config },
  };
}

function mapTool(args) {
  const data = args?.data;
  if (!isObject(data)) return { result: { error: 'data must be an object with center and geojson' } };
  const [lat, lon] = Array.isArray(data.center) ? data.center : [];
  if (data.center?.length !== 2 || !(Math.abs(lat) <= 90) || !(Math.abs(lon) <= 180)) {
    return { result: { error: 'data.center must be [lat, lon] with -90 <= lat <= 90 and -180 <= lon <= 180' } };
  }
  const geojson = data.geojson;
  if (!isObject(geojson) || geojson.type !== 'FeatureCollection' || !Array.isArray(geojson.features)) {
    return { result: { error: 'data.geojson must be a GeoJSON FeatureCollection with a features array' } };
  }
  if (geojson.features.length > MAX_MAP_FEATURES)
    return { result: { error: `at most ${MAX_MAP_FEATURES} features per map` } };
  if (tooBig(geojson)) return { result: { error: `geojson is larger than ${MAX_VISUAL_BYTES} bytes` } };
  const zoom = typeof data.zoom === 'number' && data.zoom >= 1 && data.zoom <= 19 ? data.zoom : 11;
  const content = { center: [lat, lon], zoom, geojson };
  return {
    result: { rendered: true, activityType: LEAFLET_ACTIVITY, features: geojson.features.length },
    activity: { activityType: LEAFLET_ACTIVITY, content },
  };
}

// Talks to query-worker.mjs (a child process). Started on first use; a query that outlives the
// timeout gets the child SIGKILLed (the only sure way to stop a synchronous SQLite call) and the
// next request starts a fresh one.
const WORKER_PATH = fileURLToPath(new URL('./query-worker.mjs', import.meta.url));
const liveChildren = new Set();
// A child stuck in a query never sees its IPC channel close, so kill it when this process exits.
process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});

class QueryWorker {
  constructor(dbPath, timeoutMs) {
    this.dbPath = dbPath;
    this.timeoutMs = timeoutMs;
    this.child = null;
    this.pending = new Map();
    this.nextId = 0;
  }

  start() {
    const child = fork(WORKER_PATH, [this.dbPath], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    // An idle child must not keep the server process (or a test run) alive; a pending request
    // keeps the loop alive through its timeout timer.
    child.unref();
    child.channel?.unref();
    liveChildren.add(child);
    // Requests wait for the child to open the database; only then does a query's clock start,
    // so a slow start (a loaded machine) is never mistaken for a runaway query.
    child.waiting = [];
    child.startTimer = setTimeout(() => {
      this.failAll(`database worker did not start within ${START_TIMEOUT_MS} ms`, child);
      child.kill('SIGKILL');
    }, START_TIMEOUT_MS);
    child.on('message', (message) => {
      if (message.ready) {
        clearTimeout(child.startTimer);
        child.ready = true;
        for (const send of child.waiting.splice(0)) send();
        return;
      }
      this.settle(message.id, message.result);
    });
    child.on('error', (err) => this.failAll(`database worker failed: ${err.message}`, child));
    child.on('exit', (code, signal) => {
      clearTimeout(child.startTimer);
      liveChildren.delete(child);
      if (this.child === child) this.child = null;
      this.failAll(`database worker exited (${signal ?? code})`, child);
    });
    this.child = child;
  }

  request(message) {
    if (!this.child) this.start();
    const child = this.child;
    const id = ++this.nextId;
    return new Promise((resolve) => {
      const entry = { resolve, timer: null, child };
      this.pending.set(id, entry);
      const send = () => {
        if (!this.pending.has(id)) return; // failed while waiting for the start
        entry.timer = setTimeout(() => {
          this.settle(id, { error: `query took longer than ${this.timeoutMs} ms and was stopped` });
          if (this.child === child) this.child = null;
          child.kill('SIGKILL');
        }, this.timeoutMs);
        child.send({ id, ...message });
      };
      if (child.ready) send();
      else child.waiting.push(send);
    });
  }

  settle(id, result) {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    if (entry.timer) clearTimeout(entry.timer);
    entry.resolve(result);
  }

  // Only the requests that went to `child`: a late exit of a killed child must not fail the
  // requests already sent to its replacement.
  failAll(error, child = undefined) {
    for (const [id, entry] of [...this.pending]) if (!child || entry.child === child) this.settle(id, { error });
  }

  async close() {
    const child = this.child;
    this.child = null;
    this.failAll('server closed');
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  }
}

// The tool set a brain uses: definitions to advertise and call(name, args) -> {result, activity?}.
// Results are plain values ({error} on failure, never a throw), as the model has to read them.
export function createServerTools({ dbPath = DEFAULT_DB_PATH, queryTimeoutMs = QUERY_TIMEOUT_MS } = {}) {
  // Open once here, so a missing database fails at startup with its path, not at the first query.
  const probe = openPermitsDb(dbPath);
  const permitCount = probe.prepare('SELECT COUNT(*) AS n FROM permits').get().n;
  probe.close();
  const worker = new QueryWorker(dbPath, queryTimeoutMs);
  const handlers = {
    get_database_schema: async () => ({ result: await worker.request({ op: 'schema' }) }),
    execute_query: async (args) => ({
      result: await worker.request({ op: 'query', sql: args?.query, maxRows: MAX_ROWS }),
    }),
    create_chart: async (args) => chartTool(args),
    create_map: async (args) => mapTool(args),
  };
  return {
    definitions: SERVER_TOOL_DEFINITIONS,
    permitCount,
    has: (name) => Object.hasOwn(handlers, name),
    async call(name, args) {
      if (!Object.hasOwn(handlers, name)) return { result: { error: `unknown server tool ${name}` } };
      return handlers[name](args);
    },
    close: () => worker.close(),
  };
}
