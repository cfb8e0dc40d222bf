// Tests of the demo AG-UI agent (demo-page/server): every planner path over real HTTP and SSE, the
// SQL guards, static files, and the OpenAI-compatible brain against a fake streaming endpoint.
// Beside the demo page's browser tests, which drive this agent too; no browser here.
// Run: cd demo-page && npm ci; cd .. && node --test tests/browser/demo-agent.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Packages resolve from demo-page/node_modules, where `npm install` put them.
const demoRequire = createRequire(new URL('../../demo-page/package.json', import.meta.url));
const Database = demoRequire('better-sqlite3');
const { EventSchema } = demoRequire('@ag-ui/core/schemas');
const { startDemoServer } = await import('../../demo-page/server/main.mjs');
const { HELP, createPlannerBrain } = await import('../../demo-page/server/planner.mjs');
const { createOpenAIBrain, brainFromEnv } = await import('../../demo-page/server/openai-brain.mjs');
const { createServerTools } = await import('../../demo-page/server/tools.mjs');
const { DEFAULT_DB_PATH, openPermitsDb } = await import('../../demo-page/server/db.mjs');

const db = new Database(DEFAULT_DB_PATH, { readonly: true });
const direct = (sql) => db.prepare(sql).all();

const tool = (name, properties = {}) => ({
  name,
  description: `${name} (test)`,
  parameters: { type: 'object', properties },
});
const LOCATION = tool('get_current_location');
const CLIPBOARD = tool('copy_to_clipboard', { text: { type: 'string' } });
const APPROVAL = tool('request_user_approval', { action: { type: 'string' }, details: { type: 'string' } });
const ALL_CLIENT_TOOLS = [LOCATION, CLIPBOARD, APPROVAL];

// --- a minimal AG-UI client: POST, read SSE, fold events into messages -----------------------

let runCounter = 0;
const newInput = (text, extra = {}) => ({
  threadId: 'thread-1',
  runId: `run-${++runCounter}`,
  messages: [{ id: `user-${runCounter}`, role: 'user', content: text }],
  tools: ALL_CLIENT_TOOLS,
  context: [],
  state: {},
  forwardedProps: {},
  ...extra,
});

async function readSse(response) {
  const events = [];
  let buffer = '';
  const decoder = new TextDecoder();
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split('\n').filter((l) => l.startsWith('data: '));
      assert.equal(data.length, 1, `one data line per event: ${block}`);
      events.push(JSON.parse(data[0].slice(6)));
    }
  }
  assert.equal(buffer, '', 'stream ends on an event boundary');
  return events;
}

// Posts one run and checks the frame every run must have, and every event against @ag-ui/core.
async function runAgent(baseUrl, input) {
  const response = await fetch(`${baseUrl}/agent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type'), /^text\/event-stream/);
  const events = await readSse(response);
  for (const event of events) {
    const parsed = EventSchema.safeParse(event);
    assert.ok(parsed.success, `${event.type} must validate: ${parsed.error?.message}\n${JSON.stringify(event)}`);
  }
  assert.deepEqual(events[0], { type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId });
  const terminal = events.filter((e) => e.type === 'RUN_FINISHED' || e.type === 'RUN_ERROR');
  assert.equal(terminal.length, 1, 'exactly one RUN_FINISHED or RUN_ERROR');
  assert.equal(events.at(-1), terminal[0], 'nothing after the terminal event');
  if (terminal[0].type === 'RUN_FINISHED')
    assert.deepEqual([terminal[0].threadId, terminal[0].runId], [input.threadId, input.runId]);
  return events;
}

const textOf = (events) =>
  events
    .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')
    .map((e) => e.delta)
    .join('');
const finished = (events) => events.at(-1);
const pendingOf = (events) => finished(events).outcome?.pendingToolCallIds ?? [];
function toolCallsOf(events) {
  const calls = new Map();
  for (const e of events) {
    if (e.type === 'TOOL_CALL_START')
      calls.set(e.toolCallId, {
        id: e.toolCallId,
        name: e.toolCallName,
        parent: e.parentMessageId,
        argsText: '',
        ended: false,
      });
    if (e.type === 'TOOL_CALL_ARGS') calls.get(e.toolCallId).argsText += e.delta;
    if (e.type === 'TOOL_CALL_END') calls.get(e.toolCallId).ended = true;
    if (e.type === 'TOOL_CALL_RESULT') calls.get(e.toolCallId).result = JSON.parse(e.content);
  }
  return [...calls.values()].map((c) => ({ ...c, args: JSON.parse(c.argsText) }));
}

// Events -> the messages a client appends to the thread (assistant text + toolCalls, tool results).
function foldMessages(events) {
  const messages = [];
  const byId = new Map();
  const assistant = (id) => {
    if (!byId.has(id)) byId.set(id, messages[messages.push({ id, role: 'assistant', content: '' }) - 1]);
    return byId.get(id);
  };
  const calls = new Map();
  for (const e of events) {
    if (e.type === 'TEXT_MESSAGE_START') assistant(e.messageId);
    if (e.type === 'TEXT_MESSAGE_CONTENT') assistant(e.messageId).content += e.delta;
    if (e.type === 'TOOL_CALL_START') {
      const call = { id: e.toolCallId, type: 'function', function: { name: e.toolCallName, arguments: '' } };
      calls.set(e.toolCallId, call);
      (assistant(e.parentMessageId).toolCalls ??= []).push(call);
    }
    if (e.type === 'TOOL_CALL_ARGS') calls.get(e.toolCallId).function.arguments += e.delta;
    if (e.type === 'TOOL_CALL_RESULT')
      messages.push({ id: e.messageId, role: 'tool', toolCallId: e.toolCallId, content: e.content });
  }
  return messages;
}

// Drives a turn like the runtime does: run, answer pending client calls with `answer`, follow up,
// at most `maxRounds` follow-ups. Returns the events of every run.
async function converse(baseUrl, text, answer, { tools = ALL_CLIENT_TOOLS, maxRounds = 5 } = {}) {
  let input = newInput(text, { tools });
  const runs = [];
  for (let round = 0; ; round++) {
    const events = await runAgent(baseUrl, input);
    runs.push(events);
    const pending = pendingOf(events);
    if (pending.length === 0 || round === maxRounds) return runs;
    const calls = toolCallsOf(events);
    const results = pending.map((id) => {
      const call = calls.find((c) => c.id === id);
      const { content, error } = answer(call, round);
      return {
        id: `tool-${id}`,
        role: 'tool',
        toolCallId: id,
        content: typeof content === 'string' ? content : JSON.stringify(content),
        ...(error ? { error } : {}),
      };
    });
    input = {
      ...input,
      runId: `run-${++runCounter}`,
      messages: [...input.messages, ...foldMessages(events), ...results],
    };
  }
}

// --- the planner over HTTP ---------------------------------------------------------------------

let planner;
let staticDir;
before(async () => {
  staticDir = await mkdtemp(join(tmpdir(), 'demo-static-'));
  await writeFile(join(staticDir, 'package.json'), '{"secret":"outside the root"}');
  for (const dir of ['dist', 'public', 'public/sub']) await mkdir(join(staticDir, dir), { recursive: true });
  await writeFile(join(staticDir, 'dist/index.html'), '<!doctype html><title>demo</title>');
  await writeFile(join(staticDir, 'dist/app.js'), 'export const x = 1;');
  await writeFile(join(staticDir, 'dist/app.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  await writeFile(join(staticDir, 'public/style.css'), 'body{}');
  await writeFile(join(staticDir, 'public/sub/data.json'), '{}');
  await symlink(join(staticDir, 'package.json'), join(staticDir, 'public/escape.json'));
  planner = await startDemoServer({
    port: 0,
    brain: createPlannerBrain(),
    staticRoot: [join(staticDir, 'dist'), join(staticDir, 'public')],
  });
});
after(async () => {
  await planner?.close();
  await rm(staticDir, { recursive: true, force: true });
  db.close();
});

describe('planner brain', () => {
  test('health reports the brain and the database', async () => {
    const health = await (await fetch(`${planner.url}/api/health`)).json();
    assert.equal(health.ok, true);
    assert.equal(health.brain, 'planner');
    assert.equal(health.permits, direct('SELECT COUNT(*) AS n FROM permits')[0].n);
    assert.deepEqual(
      health.serverTools.map((t) => t.name),
      ['get_database_schema', 'execute_query', 'create_chart', 'create_map'],
    );
  });

  test('help streams the HELP text in several deltas', async () => {
    const events = await runAgent(planner.url, newInput('help'));
    assert.equal(textOf(events), HELP);
    assert.ok(events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').length > 5);
    assert.deepEqual(finished(events).outcome, { type: 'success' });
  });

  test('permits by type: reasoning, schema, SQL, an ECharts snapshot, a summary from the rows', async () => {
    const events = await runAgent(planner.url, newInput('How many permits by type?'));
    const expected = direct(
      'SELECT permit_type, COUNT(*) AS permits FROM permits GROUP BY permit_type ORDER BY permits DESC',
    );
    const types = events.map((e) => e.type);
    assert.ok(types.indexOf('REASONING_START') < types.indexOf('REASONING_END'));
    const calls = toolCallsOf(events);
    assert.deepEqual(
      calls.map((c) => c.name),
      ['get_database_schema', 'execute_query', 'create_chart'],
    );
    assert.ok(calls.every((c) => c.ended && c.result && !c.result.error));
    assert.deepEqual(
      calls[0].result.tables.map((t) => t.name),
      ['permits'],
    );
    assert.deepEqual(calls[1].result.rows, expected);
    const activity = events.find((e) => e.type === 'ACTIVITY_SNAPSHOT');
    assert.equal(activity.activityType, 'application/json+echart');
    assert.deepEqual(
      activity.content.series[0].data,
      expected.map((r) => r.permits),
    );
    const total = expected.reduce((s, r) => s + r.permits, 0);
    assert.match(
      textOf(events),
      new RegExp(
        `${total.toLocaleString('en-US')} permits.*${expected[0].permit_type} leads with ${expected[0].permits.toLocaleString('en-US')}`,
      ),
    );
    assert.deepEqual(pendingOf(events), []);
  });

  test('permits per month: a line chart of the monthly counts, busiest month named', async () => {
    const events = await runAgent(planner.url, newInput('permits per month'));
    const expected = direct(
      'SELECT substr(issued_date,1,7) AS month, COUNT(*) AS permits FROM permits GROUP BY month ORDER BY month',
    );
    assert.equal(expected.length, 24, 'two years of data');
    const chart = events.find((e) => e.type === 'ACTIVITY_SNAPSHOT').content;
    assert.equal(chart.series[0].type, 'line');
    assert.deepEqual(
      chart.xAxis.data,
      expected.map((r) => r.month),
    );
    assert.deepEqual(
      chart.series[0].data,
      expected.map((r) => r.permits),
    );
    const busiest = expected.reduce((a, b) => (b.permits > a.permits ? b : a));
    assert.match(textOf(events), new RegExp(`Busiest: ${busiest.month} with ${busiest.permits}`));
  });

  test('permits on a map: a Leaflet snapshot of the most recent permits as GeoJSON points', async () => {
    const events = await runAgent(planner.url, newInput('Show permits on a map'));
    const expected = direct(
      'SELECT permit_id, lat, lon FROM permits ORDER BY issued_date DESC, permit_id DESC LIMIT 150',
    );
    const map = events.find((e) => e.type === 'ACTIVITY_SNAPSHOT');
    assert.equal(map.activityType, 'application/json+leaflet');
    assert.equal(map.content.geojson.type, 'FeatureCollection');
    assert.deepEqual(
      map.content.geojson.features.map((f) => f.geometry.coordinates),
      expected.map((r) => [r.lon, r.lat]),
    );
    assert.ok(map.content.center[0] > 30 && map.content.center[0] < 30.5 && map.content.center[1] < -97.6);
    assert.match(textOf(events), /Mapped the 150 most recent permits/);
  });

  test('largest projects, optionally filtered by type', async () => {
    const events = await runAgent(planner.url, newInput('largest projects'));
    const [top] = direct('SELECT permit_id, valuation FROM permits ORDER BY valuation DESC LIMIT 1');
    assert.match(textOf(events), new RegExp(`1\\. ${top.permit_id}.*\\$${top.valuation.toLocaleString('en-US')}`));
    const demolition = toolCallsOf(await runAgent(planner.url, newInput('largest demolition projects'))).find(
      (c) => c.name === 'execute_query',
    );
    assert.equal(demolition.result.rows.length, 10);
    assert.ok(demolition.result.rows.every((r) => r.permit_type === 'Demolition'));
  });

  test('sql: runs a SELECT, refuses a DELETE with an error result, and the table is intact', async () => {
    const ok = toolCallsOf(
      await runAgent(planner.url, newInput("sql: SELECT COUNT(*) AS n FROM permits WHERE status = 'Final'")),
    );
    assert.deepEqual(ok[1].result.rows, direct("SELECT COUNT(*) AS n FROM permits WHERE status = 'Final'"));
    const events = await runAgent(planner.url, newInput('sql: DELETE FROM permits'));
    assert.match(toolCallsOf(events)[1].result.error, /only a single SELECT/);
    assert.match(textOf(events), /The query failed/);
    assert.equal(direct('SELECT COUNT(*) AS n FROM permits')[0].n, 3000);
  });

  test('where am i: calls get_current_location, then uses the coordinates or the error', async () => {
    const runs = await converse(planner.url, 'Where am I?', () => ({
      content: { latitude: 30.2849, longitude: -97.7341, accuracy: 25 },
    }));
    assert.equal(runs.length, 2);
    const [call] = toolCallsOf(runs[0]);
    assert.deepEqual([call.name, call.args, pendingOf(runs[0])], ['get_current_location', {}, [call.id]]);
    assert.equal(call.result, undefined, 'a client tool gets no server result');
    assert.match(textOf(runs[1]), /You are at 30\.28490, -97\.73410 \(±25 m\), about 2\.\d km from downtown Austin/);
    const denied = await converse(planner.url, 'where am i', () => ({
      content: { error: 'User denied Geolocation' },
      error: 'User denied Geolocation',
    }));
    assert.match(textOf(denied[1]), /couldn't get your location: User denied Geolocation/);
  });

  test('a disabled client tool is never called; the agent says it is disabled', async () => {
    for (const [text, name] of [
      ['where am i', 'get_current_location'],
      ['copy hi to clipboard', 'copy_to_clipboard'],
      ['delete everything', 'request_user_approval'],
      ['loop', 'get_current_location'],
    ]) {
      const events = await runAgent(
        planner.url,
        newInput(text, { tools: ALL_CLIENT_TOOLS.filter((t) => t.name !== name) }),
      );
      assert.equal(events.filter((e) => e.type === 'TOOL_CALL_START').length, 0, text);
      assert.deepEqual(pendingOf(events), [], text);
      assert.match(textOf(events), new RegExp(`${name} tool is disabled`), text);
    }
  });

  test('copy ... to clipboard: copy_to_clipboard {text}, then a confirmation', async () => {
    const runs = await converse(planner.url, 'Copy "hello world" to clipboard', () => ({ content: { copied: true } }));
    assert.deepEqual(
      toolCallsOf(runs[0]).map((c) => [c.name, c.args]),
      [['copy_to_clipboard', { text: 'hello world' }]],
    );
    assert.equal(textOf(runs[1]), 'Copied "hello world" to your clipboard.');
  });

  test('delete / approve: request_user_approval {action, details}, then the decision', async () => {
    const approved = await converse(planner.url, 'delete expired permits', () => ({
      content: { decision: 'approved' },
    }));
    const [call] = toolCallsOf(approved[0]);
    assert.equal(call.name, 'request_user_approval');
    assert.equal(call.args.action, 'Delete expired permits');
    assert.equal(typeof call.args.details, 'string');
    assert.match(textOf(approved[1]), /You approved "Delete expired permits"/);
    const rejected = await converse(planner.url, 'approve', () => ({
      content: JSON.stringify({ decision: 'rejected' }),
    }));
    assert.match(textOf(rejected[1]), /You rejected "Approve", so I did nothing/);
  });

  test('several: location, then approval, then an answer, over three runs', async () => {
    const answers = {
      get_current_location: { latitude: 30.3, longitude: -97.7 },
      request_user_approval: { decision: 'approved' },
    };
    const runs = await converse(planner.url, 'do several things', (call) => ({ content: answers[call.name] }));
    assert.equal(runs.length, 3);
    assert.ok(runs[0].some((e) => e.type === 'REASONING_START'));
    assert.deepEqual(
      runs.map((r) => toolCallsOf(r).map((c) => c.name)),
      [['get_current_location'], ['request_user_approval'], []],
    );
    assert.match(toolCallsOf(runs[1])[0].args.details, /30\.30000, -97\.70000/);
    assert.match(textOf(runs[2]), /Step 3 of 3\. You are at 30\.30000.*You approved/);
    // With the approval tool off, the chain skips it and says so.
    const skipped = await converse(planner.url, 'multi', (call) => ({ content: answers[call.name] }), {
      tools: [LOCATION],
    });
    assert.equal(skipped.length, 2);
    assert.match(textOf(skipped[1]), /request_user_approval is disabled/);
  });

  test("loop: a new get_current_location call every round until the client's cap of 5 stops it", async () => {
    const runs = await converse(
      planner.url,
      'loop',
      (call) => ({ content: { latitude: 30, longitude: -97, round: call.args.round } }),
      { maxRounds: 5 },
    );
    assert.equal(runs.length, 6, 'the first run plus 5 follow-up rounds');
    const calls = runs.map((r) => toolCallsOf(r));
    assert.ok(calls.every((c) => c.length === 1 && c[0].name === 'get_current_location'));
    assert.deepEqual(
      calls.map((c) => c[0].args.round),
      [1, 2, 3, 4, 5, 6],
    );
    assert.equal(new Set(calls.map((c) => c[0].id)).size, 6, "every round's call has its own id");
    assert.ok(
      runs.every((r) => pendingOf(r).length === 1),
      'the agent never stops on its own',
    );
    // A closed schema (the shim's own get_current_location) gets {} rather than invalid arguments.
    const closed = { ...LOCATION, parameters: { type: 'object', properties: {}, additionalProperties: false } };
    const strict = await converse(planner.url, 'loop', () => ({ content: { latitude: 30, longitude: -97 } }), {
      tools: [closed],
      maxRounds: 2,
    });
    assert.deepEqual(
      strict.map((r) => toolCallsOf(r)[0].args),
      [{}, {}, {}],
    );
  });

  test('interrupt: RUN_FINISHED with an interrupt outcome, answered by resume', async () => {
    const input = newInput('start the interrupt demo');
    const events = await runAgent(planner.url, input);
    const { outcome } = finished(events);
    assert.equal(outcome.type, 'interrupt');
    assert.equal(outcome.interrupts.length, 1);
    const [interrupt] = outcome.interrupts;
    assert.deepEqual(
      { ...interrupt, id: undefined },
      {
        id: undefined,
        reason: 'confirmation',
        message: 'Proceed with the bulk export?',
        responseSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean' }, note: { type: 'string' } },
          required: ['confirm'],
        },
      },
    );
    const resume = (entry) =>
      runAgent(planner.url, {
        ...input,
        runId: `run-${++runCounter}`,
        messages: [...input.messages, ...foldMessages(events)],
        resume: [{ interruptId: interrupt.id, ...entry }],
      });
    const confirmed = await resume({ status: 'resolved', payload: { confirm: true, note: 'for the audit' } });
    assert.match(textOf(confirmed), /Exported 3000 permits.*Your note: "for the audit"/s);
    assert.deepEqual(finished(confirmed).outcome, { type: 'success' });
    assert.match(textOf(await resume({ status: 'resolved', payload: { confirm: false } })), /did not export/);
    assert.match(
      textOf(await resume({ status: 'cancelled' })),
      new RegExp(`Export cancelled \\(interrupt ${interrupt.id}\\)`),
    );
  });

  test('error: the run ends with RUN_ERROR after its partial text', async () => {
    const events = await runAgent(planner.url, newInput('please error'));
    assert.deepEqual(finished(events), {
      type: 'RUN_ERROR',
      message: 'Demo failure: you typed "error", so this run ends with RUN_ERROR.',
      code: 'DEMO_ERROR',
    });
    assert.match(textOf(events), /on purpose/);
  });

  test("state: STATE_SNAPSHOT then STATE_DELTA, counting from the client's state", async () => {
    const events = await runAgent(planner.url, newInput('show state', { state: { counter: 4, theme: 'dark' } }));
    const snapshot = events.find((e) => e.type === 'STATE_SNAPSHOT');
    const delta = events.find((e) => e.type === 'STATE_DELTA');
    assert.ok(events.indexOf(snapshot) < events.indexOf(delta));
    assert.deepEqual(snapshot.snapshot, { counter: 4, theme: 'dark', lastCommand: 'show state' });
    assert.deepEqual(delta.delta[0], { op: 'replace', path: '/counter', value: 5 });
  });

  test('CORS: loopback origins (a dev server on another port) may call the agent, others may not', async () => {
    const preflight = (origin) => fetch(`${planner.url}/agent`, { method: 'OPTIONS', headers: { origin } });
    const local = await preflight('http://localhost:5173');
    assert.equal(local.status, 204);
    assert.equal(local.headers.get('access-control-allow-origin'), 'http://localhost:5173');
    assert.equal((await preflight('https://example.com')).headers.get('access-control-allow-origin'), null);
  });

  test('malformed requests get a 400 naming the problem, before any stream', async () => {
    const post = (body) => fetch(`${planner.url}/agent`, { method: 'POST', body });
    let res = await post('{not json');
    assert.equal(res.status, 400);
    res = await post(JSON.stringify({ threadId: 't', messages: [] }));
    assert.deepEqual([res.status, (await res.json()).error], [400, 'runId must be a non-empty string']);
    assert.equal((await fetch(`${planner.url}/agent`)).status, 405);
  });
});

// --- the SQL tools and the database ------------------------------------------------------------

describe('server tools', () => {
  test('execute_query refuses anything but one read-only SELECT', async () => {
    const tools = createServerTools();
    try {
      const refused = [
        'DELETE FROM permits',
        'UPDATE permits SET valuation = 0',
        "INSERT INTO permits (permit_id) VALUES ('x')",
        'DROP TABLE permits',
        'SELECT 1; DELETE FROM permits',
        'SELECT 1; SELECT 2',
        'WITH x AS (SELECT 1) DELETE FROM permits',
        'PRAGMA writable_schema = 1',
        "ATTACH 'x.db' AS x",
        '',
        '/* SELECT */ DELETE FROM permits',
      ];
      for (const query of refused) {
        const { result } = await tools.call('execute_query', { query });
        assert.ok(result.error, `refused: ${query}`);
        assert.equal(result.rows, undefined);
      }
      const { result } = await tools.call('execute_query', { query: '-- all\nSELECT * FROM permits;' });
      assert.deepEqual([result.rowCount, result.truncated, result.columns.length], [200, true, 12]);
      const bad = await tools.call('execute_query', { query: 'SELECT nope FROM permits' });
      assert.match(bad.result.error, /SQL error: no such column: nope/);
      assert.equal(direct('SELECT COUNT(*) AS n FROM permits')[0].n, 3000);
    } finally {
      await tools.close();
    }
  });

  test('a query that runs too long is stopped and the next one still works', async () => {
    const tools = createServerTools({ queryTimeoutMs: 300 });
    try {
      const endless = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c';
      assert.match((await tools.call('execute_query', { query: endless })).result.error, /longer than 300 ms/);
      assert.deepEqual((await tools.call('execute_query', { query: 'SELECT 7 AS x' })).result.rows, [{ x: 7 }]);
    } finally {
      await tools.close();
    }
  });

  test('the database is opened read-only: a write fails in SQLite itself', () => {
    const conn = openPermitsDb();
    try {
      assert.equal(conn.readonly, true);
      assert.throws(() => conn.prepare('DELETE FROM permits').run(), /readonly/i);
      assert.throws(() => conn.exec('CREATE TABLE t (x)'), /readonly/i);
    } finally {
      conn.close();
    }
    assert.throws(() => openPermitsDb(join(tmpdir(), 'no-such-permits.sqlite')), /does not exist|unable to open/i);
  });

  test('create_chart and create_map validate their input', async () => {
    const tools = createServerTools();
    try {
      assert.ok((await tools.call('create_chart', { config: [] })).result.error);
      assert.ok(
        (
          await tools.call('create_map', {
            data: { center: [95, 0], geojson: { type: 'FeatureCollection', features: [] } },
          })
        ).result.error,
      );
      assert.ok(
        (await tools.call('create_map', { data: { center: [30, -97], geojson: { type: 'Feature' } } })).result.error,
      );
      const ok = await tools.call('create_map', {
        data: { center: [30, -97], geojson: { type: 'FeatureCollection', features: [] } },
      });
      assert.deepEqual(ok.activity, {
        activityType: 'application/json+leaflet',
        content: { center: [30, -97], zoom: 11, geojson: { type: 'FeatureCollection', features: [] } },
      });
    } finally {
      await tools.close();
    }
  });

  test('the generator reproduces the committed database row for row', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'permits-')), 'permits.sqlite');
    execFileSync(process.execPath, [
      fileURLToPath(new URL('../../demo-page/data/generate-permits.mjs', import.meta.url)),
      out,
    ]);
    const fresh = new Database(out, { readonly: true });
    try {
      assert.deepEqual(
        fresh.prepare('SELECT * FROM permits ORDER BY permit_id').all(),
        direct('SELECT * FROM permits ORDER BY permit_id'),
      );
    } finally {
      fresh.close();
      await rm(join(out, '..'), { recursive: true, force: true });
    }
  });
});

// --- static files ------------------------------------------------------------------------------

// Raw paths: fetch() would normalise "/../x" to "/x" before sending it.
const rawGet = (path) =>
  new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port: planner.port, path }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body }));
    })
      .on('error', reject)
      .end();
  });

describe('static files', () => {
  test('served from the roots in order, with the right content types', async () => {
    for (const [path, type] of [
      ['/', 'text/html'],
      ['/app.js', 'text/javascript'],
      ['/app.wasm', 'application/wasm'],
      ['/style.css', 'text/css'],
      ['/sub/data.json', 'application/json'],
    ]) {
      const res = await fetch(planner.url + path);
      assert.equal(res.status, 200, path);
      assert.ok(res.headers.get('content-type').startsWith(type), `${path}: ${res.headers.get('content-type')}`);
    }
    const wasm = new Uint8Array(await (await fetch(`${planner.url}/app.wasm`)).arrayBuffer());
    assert.deepEqual([...wasm.slice(0, 4)], [0, 0x61, 0x73, 0x6d]);
    assert.equal((await fetch(`${planner.url}/missing.js`)).status, 404);
  });

  test('no way out of the root: traversal, encoded traversal and symlinks are refused', async () => {
    for (const path of [
      '/../package.json',
      '/%2e%2e/package.json',
      '/..%2fpackage.json',
      '/sub/..%5c..%5cpackage.json',
      '/sub/../../package.json',
      '/escape.json',
      '/%00',
      '/%zz',
    ]) {
      const res = await rawGet(path);
      assert.ok([400, 403, 404].includes(res.status), `${path}: ${res.status}`);
      assert.ok(!res.body.includes('secret'), path);
    }
  });
});

// --- the OpenAI-compatible brain against a fake streaming endpoint -----------------------------

// A loopback chat-completions server: each request is answered by the next scripted list of
// chunks, written as SSE split mid-line so the brain's reader must reassemble lines.
function fakeOpenAI() {
  const requests = [];
  const scripts = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    requests.push({ url: req.url, headers: req.headers, body: JSON.parse(body) });
    const script = scripts.shift();
    if (script.status) return res.writeHead(script.status).end('upstream says no');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const wire =
      script
        .map((c) => `data: ${JSON.stringify({ id: 'cmpl', object: 'chat.completion.chunk', choices: [c] })}\n\n`)
        .join('') + 'data: [DONE]\n\n';
    for (let i = 0; i < wire.length; i += 37) {
      res.write(wire.slice(i, i + 37));
      await new Promise((r) => setImmediate(r));
    }
    res.end();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, requests, scripts, url: `http://127.0.0.1:${server.address().port}/v1` }),
    ),
  );
}
const delta = (d, finish_reason = null) => ({ index: 0, delta: d, finish_reason });
const callDelta = (index, fields) => delta({ tool_calls: [{ index, ...fields }] });

describe('openai brain', () => {
  let fake;
  let agent;
  before(async () => {
    fake = await fakeOpenAI();
    agent = await startDemoServer({
      port: 0,
      brain: createOpenAIBrain({ baseUrl: fake.url, apiKey: 'test-key', model: 'fake-model' }),
    });
  });
  after(async () => {
    await agent?.close();
    fake?.server.closeAllConnections();
    fake?.server.close();
  });

  test('chooses itself only when all three env variables are set', () => {
    assert.equal(brainFromEnv({ AGUI_DEMO_OPENAI_BASE_URL: 'http://x', AGUI_DEMO_OPENAI_API_KEY: 'k' }), null);
    assert.equal(
      brainFromEnv({
        AGUI_DEMO_OPENAI_BASE_URL: 'http://x',
        AGUI_DEMO_OPENAI_API_KEY: 'k',
        AGUI_DEMO_OPENAI_MODEL: 'm',
      }).name,
      'openai:m',
    );
  });

  test('streams text and tool calls, runs server tools, stops at a client tool, continues after it', async () => {
    fake.scripts.push(
      [
        delta({ role: 'assistant', content: '' }),
        delta({ content: 'Let me ' }),
        delta({ content: 'check the schema.' }),
        callDelta(0, { id: 'call_schema', type: 'function', function: { name: 'get_database_schema', arguments: '' } }),
        callDelta(0, { function: { arguments: '{' } }),
        callDelta(0, { function: { arguments: '}' } }),
        delta({}, 'tool_calls'),
      ],
      [
        delta({ reasoning_content: 'Counting rows, ' }),
        delta({ reasoning_content: 'then locating.' }),
        callDelta(0, { id: 'call_sql', type: 'function', function: { name: 'execute_query', arguments: '' } }),
        callDelta(0, { function: { arguments: '{"query":"SELECT COUNT(*) AS n' } }),
        callDelta(1, { id: 'call_loc', type: 'function', function: { name: 'get_current_location', arguments: '' } }),
        callDelta(0, { function: { arguments: ' FROM permits"}' } }),
        callDelta(1, { function: { arguments: '{}' } }),
        delta({}, 'tool_calls'),
      ],
      [delta({ content: 'You are near Austin, ' }), delta({ content: 'with 3000 permits.' }), delta({}, 'stop')],
    );
    const input = newInput('how many permits, and where am I?', { tools: [LOCATION, APPROVAL] });
    const events = await runAgent(agent.url, input);
    assert.equal(textOf(events), 'Let me check the schema.');
    assert.equal(
      events
        .filter((e) => e.type === 'REASONING_MESSAGE_CONTENT')
        .map((e) => e.delta)
        .join(''),
      'Counting rows, then locating.',
    );
    const calls = toolCallsOf(events);
    assert.deepEqual(
      calls.map((c) => [c.id, c.name, c.argsText]),
      [
        ['call_schema', 'get_database_schema', '{}'],
        ['call_sql', 'execute_query', '{"query":"SELECT COUNT(*) AS n FROM permits"}'],
        ['call_loc', 'get_current_location', '{}'],
      ],
    );
    assert.ok(calls.every((c) => c.ended));
    assert.ok(
      events.filter((e) => e.type === 'TOOL_CALL_ARGS' && e.toolCallId === 'call_sql').length >= 2,
      'arguments stay streamed',
    );
    assert.deepEqual(calls[1].result.rows, direct('SELECT COUNT(*) AS n FROM permits'));
    assert.equal(calls[2].result, undefined, 'the client tool is left to the client');
    assert.deepEqual(finished(events).outcome, { type: 'success', pendingToolCallIds: ['call_loc'] });

    const [first, second] = fake.requests;
    assert.equal(first.url, '/v1/chat/completions');
    assert.equal(first.headers.authorization, 'Bearer test-key');
    assert.deepEqual([first.body.model, first.body.stream], ['fake-model', true]);
    assert.deepEqual(
      first.body.tools.map((t) => t.function.name),
      [
        'get_database_schema',
        'execute_query',
        'create_chart',
        'create_map',
        'get_current_location',
        'request_user_approval',
      ],
    );
    assert.deepEqual(
      first.body.messages.map((m) => m.role),
      ['system', 'user'],
    );
    assert.deepEqual(
      second.body.messages.slice(2).map((m) => [m.role, m.tool_calls?.[0].id ?? m.tool_call_id]),
      [
        ['assistant', 'call_schema'],
        ['tool', 'call_schema'],
      ],
    );

    // The client answers call_loc and follows up; the model gets the whole thread in its format.
    const followUp = {
      ...input,
      runId: `run-${++runCounter}`,
      messages: [
        ...input.messages,
        ...foldMessages(events),
        { id: 't-loc', role: 'tool', toolCallId: 'call_loc', content: '{"latitude":30.27,"longitude":-97.74}' },
      ],
    };
    const next = await runAgent(agent.url, followUp);
    assert.equal(textOf(next), 'You are near Austin, with 3000 permits.');
    assert.deepEqual(finished(next).outcome, { type: 'success' });
    const sent = fake.requests[2].body.messages;
    assert.deepEqual(
      sent.slice(1).map((m) => m.role),
      ['user', 'assistant', 'tool', 'assistant', 'tool', 'tool'],
    );
    assert.deepEqual(
      sent[4].tool_calls.map((c) => c.function.name),
      ['execute_query', 'get_current_location'],
    );
    assert.equal(sent.at(-1).content, '{"latitude":30.27,"longitude":-97.74}');
  });

  test('a tool the client did not advertise is answered with an error, never left pending', async () => {
    fake.requests.length = 0;
    fake.scripts.push(
      [
        callDelta(0, {
          id: 'call_copy',
          type: 'function',
          function: { name: 'copy_to_clipboard', arguments: '{"text":"x"}' },
        }),
        delta({}, 'tool_calls'),
      ],
      [delta({ content: 'That tool is off.' }), delta({}, 'stop')],
    );
    const events = await runAgent(agent.url, newInput('copy x', { tools: [LOCATION] }));
    assert.match(toolCallsOf(events)[0].result.error, /no tool named copy_to_clipboard/);
    assert.deepEqual(finished(events).outcome, { type: 'success' });
    assert.ok(!fake.requests[0].body.tools.some((t) => t.function.name === 'copy_to_clipboard'));
  });

  test('an unreachable model endpoint ends the run with RUN_ERROR naming the cause', async () => {
    const closed = createServer();
    await new Promise((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address();
    await new Promise((r) => closed.close(r)); // nothing listens on this port any more
    const down = await startDemoServer({
      port: 0,
      brain: createOpenAIBrain({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'k', model: 'm' }),
    });
    try {
      const events = await runAgent(down.url, newInput('hello'));
      assert.equal(finished(events).type, 'RUN_ERROR');
      assert.match(finished(events).message, /fetch failed: .*ECONNREFUSED/);
    } finally {
      await down.close();
    }
  });

  test('an HTTP error from the model endpoint ends the run with RUN_ERROR', async () => {
    fake.scripts.push({ status: 500 });
    const events = await runAgent(agent.url, newInput('hello'));
    assert.equal(finished(events).code, 'MODEL_HTTP_ERROR');
    assert.match(finished(events).message, /HTTP 500: upstream says no/);
  });
});
