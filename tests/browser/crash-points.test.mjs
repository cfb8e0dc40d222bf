// A crash at every point where a five-round turn writes, sends or runs something, in Debian's
// Chromium, with the thread kept in IndexedDB (createRuntime({persist: indexedDbStore()})): as
// SQLite proves its journal by crashing at every write. The agent is tests/support/agui-server.mjs
// with the `probeRounds` scenario (it calls the page's `probe` tool once a run until five calls
// have answers, and refuses any request whose thread holds a call without an answer); `probe`
// needs approval (the page gives it) and its handler fetches from this test's own loopback server,
// as the README's get_weather does.
//
// The points: each store write begun (before save() or append() is called) and completed (its
// promise resolved, before the runtime sees it), each request written (the agent received it and
// holds its answer), each handler started and finished (its fetch answered, before it returns).
// The page awaits the test at each one; a first turn, uncut, counts them. Then one trial per point:
// a new thread, the same turn, and at that point the tab in charge crashes (CDP Page.crash: no
// pagehide, no unload, the IndexedDB transactions in flight are lost). A new page reopens the
// thread from IndexedDB and drives it to its end. The fault trials: a reload the moment each
// follow-up request leaves, and a reload while each handler awaits its fetch.
//
// Over every trial: no handler started twice, every call has exactly one answer, and every tool
// result the agent received (toolCallId and content) is in the final thread as it received it,
// so it never receives two different answers for one call.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { launchChromium } from './chromium.mjs';
import { auditCalls, lostResults, servePlainPage } from './plain-page.mjs';
import { startAguiServer } from '../support/agui-server.mjs';
import { probeRounds } from '../support/scenarios.mjs';

const ROUNDS = 5;
// Trials run side by side, each in its own browser context.
const CONCURRENT = 3;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// The points a crash trial cuts at, in the order of a round.
const CRASH_POINTS = ['write begun', 'write completed', 'request written', 'handler started', 'handler finished'];

// The page: the runtime on IndexedDB through a store that stops at each write (window.point),
// `probe` (approved after 40 ms, once no write is in flight; its handler stops as it starts and as it ends), and drive().
const page = `<!doctype html><meta charset="utf-8"><title>crash points</title>
<script type="module">
  import { createRuntime, indexedDbStore } from '/dist/index.js';
  const q = new URLSearchParams(location.search);
  const thread = q.get('thread');
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const point = (kind, detail) => window.point(kind, thread, detail);
  window.failures = [];
  const idb = indexedDbStore({ name: 'crash-points' });
  const store = { ...idb };
  let writing = 0;
  for (const method of ['save', 'append'])
    store[method] = async (id, value) => {
      writing += 1;
      try {
        await point('write begun', method);
        await idb[method](id, value);
        await point('write completed', method);
      } finally {
        writing -= 1;
      }
    };
  // The user answers a card after a moment, once its write is done: so every turn makes the same
  // writes (an approval while the card's write is in flight would go in the same write).
  const APPROVAL_MS = 40;
  const probe = {
    name: 'probe',
    description: 'fetches the weather',
    parameters: { type: 'object' },
    requiresApproval: true,
    handler: async (args, ctx) => {
      await point('handler started', ctx.toolCallId);
      const response = await fetch(q.get('weather') + '?thread=' + thread + '&call=' + ctx.toolCallId);
      const text = await response.text();
      await point('handler finished', ctx.toolCallId);
      return text;
    },
  };
  const runtime = await createRuntime({ url: q.get('agent'), persist: store, threadId: thread, tools: [probe] });
  const approve = (id) => {
    if (writing) return setTimeout(approve, 5, id);
    try {
      if (runtime.approvals.pending().some((a) => a.toolCallId === id)) runtime.approvals.approve(id);
    } catch (e) {
      window.failures.push('approve: ' + e.message);
    }
  };
  runtime.subscribe((c) => {
    if (c.kind === 'approval_requested') setTimeout(approve, APPROVAL_MS, c.approval.toolCallId);
    if (c.kind === 'storage_failed') window.failures.push(c.message);
  });
  for (const a of runtime.approvals.pending()) setTimeout(approve, APPROVAL_MS, a.toolCallId);
  const finished = () => {
    const last = runtime.messages.at(-1);
    return last?.role === 'assistant' && /^done after/.test(last.content ?? '');
  };
  // Drives the thread to its end: waits out a restored turn, then sends whenever it is idle; then
  // waits for the last write.
  window.drive = async () => {
    if (runtime.resumed) await runtime.resumed;
    for (let sends = 0, until = Date.now() + 20_000; !finished() && sends < 12 && Date.now() < until; ) {
      if (runtime.status.phase !== 'idle') {
        await sleep(20);
        continue;
      }
      sends += 1;
      await runtime.send('go on');
    }
    while (writing) await sleep(10); // (the turn's last write is one of its points too)
    return finished();
  };
  window.runtime = runtime;
  window.ready = true;
</script>`;

// The trials under way, by thread: {victim, mode, target: {kind, n} | null, seen: kind -> count,
// armed (its points still count), frozen (the victim is being crashed: it gets no answer), cutting}.
const trials = new Map();

/**
 * A point of `thread` (from page `tab`, or at a server: undefined) has come; resolves once the
 * test lets it go on: at once, or after the trial's cut when this is its target point (then
 * `true`: whoever reached it is gone). While the victim is being crashed it gets no answer at all.
 */
async function reached(kind, thread, tab) {
  const t = trials.get(thread);
  if (!t) return false;
  if (t.frozen && (tab === undefined || tab === t.victim)) {
    if (tab) return new Promise(() => {});
    await t.cutting;
    return true;
  }
  if (!t.armed || (tab !== undefined && tab !== t.victim)) return false;
  t.seen[kind] = (t.seen[kind] ?? 0) + 1;
  if (t.target?.kind !== kind || t.target.n !== t.seen[kind]) return false;
  t.armed = false;
  t.frozen = t.mode === 'crash';
  t.cutting = t.cut().then(() => (t.frozen = false));
  await t.cutting;
  return true;
}

// The handler's fetch: the weather for one call, numbered, so a second run would answer otherwise.
let forecasts = 0;
const weather = createServer(async (req, res) => {
  const q = new URL(req.url, 'http://127.0.0.1').searchParams;
  await reached('handler fetching', q.get('thread'));
  res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/plain' });
  res.end(`sunny, for ${q.get('call')} (forecast ${++forecasts})`);
});
await new Promise((resolve) => weather.listen(0, '127.0.0.1', resolve));
after(() => weather.close());

const rounds = probeRounds(ROUNDS);
async function* holding(input, api) {
  if (await reached('request written', input.threadId)) return; // (the page that sent it is gone)
  yield* rounds(input, api);
}
const agent = await startAguiServer({ scenarios: { rounds: holding }, defaultScenario: 'rounds' });
after(() => agent.close());
const pageAt = await servePlainPage('crash.html', page);
const browser = await launchChromium();
after(() => browser.close());

const runs = new Map(); // toolCallId -> handler starts, over every page

// A browser context per trial: its pages share IndexedDB and Web Locks, and no renderer process
// with another trial's (a crash takes down the whole process), so trials can run side by side.
async function newContext() {
  const context = await browser.newContext();
  await context.exposeBinding('point', ({ page: tab }, kind, thread, detail) => {
    if (kind === 'handler started') runs.set(detail, (runs.get(detail) ?? 0) + 1);
    return reached(kind, thread, tab);
  });
  return context;
}

let threadNo = 0;
const errors = [];
async function open(context, thread) {
  const tab = await context.newPage();
  tab.on('pageerror', (e) => errors.push(String(e)));
  const q = new URLSearchParams({
    agent: agent.url(),
    weather: `http://127.0.0.1:${weather.address().port}/weather`,
    thread,
  });
  await tab.goto(`${pageAt}?${q}`);
  await ready(tab);
  return tab;
}
const ready = (tab) => tab.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });

// The tab in charge crashes: its renderer dies at once (CDP Page.crash never answers).
async function crash(tab, cdp) {
  const crashed = new Promise((resolve) => tab.once('crash', resolve));
  cdp.send('Page.crash').catch(() => {});
  await crashed;
}

/** The thread the store holds once it holds what the page shows (its last write landed). */
async function settledRecord(tab, thread) {
  for (let i = 0; ; i += 1) {
    const { shown, stored } = await tab.evaluate(async (id) => {
      const { indexedDbStore } = await import('/dist/index.js');
      return { shown: window.runtime.messages, stored: await indexedDbStore({ name: 'crash-points' }).load(id) };
    }, thread);
    const same = JSON.stringify(stored?.messages.map((m) => m.id)) === JSON.stringify(shown.map((m) => m.id));
    if (same || i === 40) return { shown, stored };
    await sleep(50);
  }
}

const totals = {}; // trial kind -> {trials, calls, twice, open, lost, contradicted}
function count(kind, figures) {
  const sum = (totals[kind] ??= { trials: 0, calls: 0, twice: 0, open: 0, lost: 0, contradicted: 0 });
  sum.trials += 1;
  for (const key of ['calls', 'twice', 'open', 'lost', 'contradicted']) sum[key] += figures[key];
}

/**
 * One turn on a new thread, cut at `target` ({kind, n}: the n-th point of that kind) by `mode`
 * ('crash' or 'reload'), then driven to its end by a new page (a crash) or the reloaded one.
 * Resolves to the points the victim reached and what the final thread says, or null when the turn
 * ended before its target.
 */
async function turn(mode, target = null) {
  const thread = `crash-${threadNo++}`;
  const context = await newContext();
  const victim = await open(context, thread);
  const cdp = mode === 'crash' ? await context.newCDPSession(victim) : null;
  const cut = mode === 'crash' ? () => crash(victim, cdp) : () => victim.reload();
  const t = { victim, mode, target, seen: {}, armed: true, frozen: false, cutting: null, cut };
  trials.set(thread, t);
  try {
    const uncut = await victim.evaluate(() => window.drive()).catch(() => false);
    if (!target) assert.equal(uncut, true, 'the uncut turn reached its end');
    else if (!t.cutting) return null; // (writes that come close together are one write: fewer, this time)
    await t.cutting;
    let next = victim; // (an uncut turn is audited where it ran)
    if (target && mode === 'crash') {
      await victim.close();
      next = await open(context, thread);
    } else if (target) await ready(victim);
    if (target) assert.equal(await next.evaluate(() => window.drive()), true, 'the agent finished after the cut');
    const { shown, stored } = await settledRecord(next, thread);
    const failures = await next.evaluate(() => window.failures);
    return { seen: t.seen, shown, stored, failures, thread };
  } finally {
    trials.delete(thread);
    await context.close();
  }
}

/** What a trial's final thread says: counted under each of `kinds`, then asserted. */
function audit(kinds, { shown, stored, failures, thread }) {
  assert.ok(stored, 'the store holds the thread');
  const { calls, duplicates, open: unanswered } = auditCalls(stored.messages, runs);
  const requests = agent.requests.filter((r) => r.input?.threadId === thread);
  const { lost, contradicted } = lostResults(stored.messages, requests);
  const figures = {
    calls: calls.length,
    twice: duplicates.length,
    open: unanswered.length,
    lost: lost.length,
    contradicted: contradicted.length,
  };
  for (const kind of kinds) count(kind, figures);
  assert.deepEqual(duplicates, [], 'no handler started twice');
  assert.deepEqual(unanswered, [], 'every call has exactly one answer');
  assert.deepEqual(lost, [], 'every result the agent received is in the final thread, as it received it');
  assert.deepEqual(contradicted, [], 'the agent never received two answers for one call');
  assert.ok(calls.length >= ROUNDS, `${calls.length} calls`);
  const refused = requests.filter((r) => r.error).map((r) => r.error);
  assert.deepEqual(refused, [], 'the agent never saw a thread with an open call');
  assert.deepEqual(
    shown.map((m) => m.id),
    stored.messages.map((m) => m.id),
    'the page shows what the store holds',
  );
  assert.deepEqual(failures, [], 'the store never failed');
}

let points = null; // kind -> how many times an uncut turn reaches it

test('an uncut five-round turn with an approval and a fetching handler: its points', { timeout: 60_000 }, async () => {
  const outcome = await turn('crash');
  audit(['uncut'], outcome);
  points = outcome.seen;
  assert.equal(points['handler started'], ROUNDS);
  assert.equal(points['handler finished'], ROUNDS);
  assert.equal(points['handler fetching'], ROUNDS);
  assert.equal(points['request written'], ROUNDS + 1);
  assert.ok(points['write completed'] >= 2 * ROUNDS, `${points['write completed']} writes`);
});

// Turns that ended before the point their trial was to crash at: the number of writes varies (a
// change made while a write is in flight goes in the next one), so such a trial takes a new turn.
let missed = 0;

/**
 * The trials of a kind, a few at a time: each (kind, n) in `targets` once, counted under `name`
 * (and the kinds `also(target)` names).
 */
async function trialsOf(t, name, mode, targets, also) {
  await Promise.all(
    targets.map((target) =>
      t.test(`${name}: ${target.kind} #${target.n}`, { timeout: 120_000 }, async () => {
        let outcome = null;
        for (let turns = 1; !outcome && turns <= 4; turns += 1) {
          outcome = await turn(mode, target);
          if (!outcome) missed += 1;
        }
        assert.ok(outcome, `none of 4 turns reached ${target.kind} #${target.n}`);
        audit([name, ...(also?.(target) ?? [])], outcome);
      }),
    ),
  );
}
const each = (kind, from = 1) =>
  Array.from({ length: (points?.[kind] ?? 0) - from + 1 }, (_, i) => ({ kind, n: from + i }));

test('the tab in charge crashes at each point, once', { concurrency: CONCURRENT }, async (t) => {
  assert.ok(points, 'the points were counted');
  await trialsOf(
    t,
    'crash',
    'crash',
    CRASH_POINTS.flatMap((kind) => each(kind)),
    // (A request after the first carries results: the agent has them from then on.)
    (target) => (target.kind === 'request written' && target.n > 1 ? ['crash as a follow-up leaves'] : []),
  );
});

test('the page reloads the moment each follow-up request leaves', { concurrency: CONCURRENT }, async (t) => {
  assert.ok(points, 'the points were counted');
  await trialsOf(t, 'reload as a follow-up leaves', 'reload', each('request written', 2));
});

test('the page reloads while each handler awaits its fetch', { concurrency: CONCURRENT }, async (t) => {
  assert.ok(points, 'the points were counted');
  await trialsOf(t, 'reload while a handler fetches', 'reload', each('handler fetching'));
});

test('the figures over every trial', () => {
  const list = CRASH_POINTS.map((kind) => `${points?.[kind] ?? 0} ${kind}`).join(', ');
  const total = CRASH_POINTS.reduce((n, kind) => n + (points?.[kind] ?? 0), 0);
  const line = (kind, extra = '') => {
    const s = totals[kind] ?? { trials: 0, calls: 0, twice: 0, open: 0, lost: 0, contradicted: 0 };
    console.log(
      `# ${kind}: ${extra}${s.trials} trials, ${s.calls} calls, ${s.twice} run twice, ${s.open} left open, ` +
        `${s.lost} results lost that the agent had received (${s.contradicted} calls answered twice to it)`,
    );
  };
  line('crash', `${total} points (${list}), `);
  line('crash as a follow-up leaves');
  line('reload as a follow-up leaves');
  line('reload while a handler fetches');
  console.log(
    `# (${missed} turns ended before their point and were taken again; page errors: ${errors.length ? errors.join('; ') : 'none'})`,
  );
  for (const s of Object.values(totals)) {
    assert.equal(s.twice, 0);
    assert.equal(s.open, 0);
    assert.equal(s.lost, 0);
  }
  assert.equal(totals.crash?.trials, total, 'a crash trial at every point');
});
