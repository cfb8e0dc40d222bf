// A reload at every step of a five-round turn, in Debian's Chromium, with the thread kept in
// IndexedDB by the runtime itself (createRuntime({persist: indexedDbStore()})). The agent is a
// real AG-UI server (tests/support/agui-server.mjs, @ag-ui/encoder) that calls the page's `probe`
// tool once a run until five calls have answers, and refuses any request whose thread holds a call
// without an answer (as providers do). `probe` needs approval (the page approves it), so a round
// has four steps to cut: the stream, the approval card, the handler, and the handler's end.
//
// Each trial reloads the page at one step of one round (and the random trials at a random moment),
// the page reopens the thread from IndexedDB and drives it to its end. Over all trials: no handler
// ran twice, no call was left without an answer, the agent never saw a thread with an open call,
// and the page shows every message the store holds.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { launchChromium } from './chromium.mjs';
import { auditCalls, servePlainPage } from './plain-page.mjs';
import { startAguiServer } from '../support/agui-server.mjs';
import { probeRounds } from '../support/scenarios.mjs';
import { seededRandom } from '../support/random.mjs';

const ROUNDS = 5;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rounds = probeRounds(ROUNDS);

// The page: the runtime on IndexedDB, `probe` (approved by the page after a moment), and hooks
// the test follows: window.step(name) at each step, window.ran(id) when a handler starts.
const page = `<!doctype html><meta charset="utf-8"><title>reload</title>
<script type="module">
  import { createRuntime, indexedDbStore } from '/dist/index.js';
  import { probeTool } from '/probe.js';
  const q = new URLSearchParams(location.search);
  const probe = probeTool(() => 'ok');
  const runtime = await createRuntime({
    url: q.get('agent'),
    persist: indexedDbStore({ name: 'reload-chaos' }),
    threadId: q.get('thread'),
    tools: [probe],
  });
  const approveSoon = (id) => setTimeout(() => runtime.approvals.pending().some((a) => a.toolCallId === id) && runtime.approvals.approve(id), 40);
  runtime.subscribe((c) => {
    if (c.kind === 'text_appended') window.step('stream');
    if (c.kind === 'approval_requested') { window.step('approval'); approveSoon(c.approval.toolCallId); }
    if (c.kind === 'storage_failed') window.failures.push(c.message);
  });
  window.failures = [];
  for (const a of runtime.approvals.pending()) approveSoon(a.toolCallId);
  const finished = () => {
    const last = runtime.messages.at(-1);
    return last?.role === 'assistant' && /^done after/.test(last.content ?? '');
  };
  // Drives the thread to its end: waits out a restored turn, then sends until the agent is done.
  window.drive = async () => {
    if (runtime.resumed) await runtime.resumed;
    for (let i = 0; i < 12 && !finished(); i += 1) await runtime.send('go on');
    return finished();
  };
  window.runtime = runtime;
  window.ready = true;
</script>`;

const pageAt = await servePlainPage('reload.html', page);
const agent = await startAguiServer({ scenarios: { rounds }, defaultScenario: 'rounds' });
after(() => agent.close());
const browser = await launchChromium();
after(() => browser.close());
const context = await browser.newContext();

// What every page of the context reports: handler starts per call, and each step as it happens.
const runs = new Map(); // toolCallId -> handler starts
const steps = new EventEmitter();
await context.exposeFunction('ran', (id) => runs.set(id, (runs.get(id) ?? 0) + 1));
await context.exposeFunction('step', (name) => steps.emit(name));

const pageUrl = (thread) => `${pageAt}?agent=${encodeURIComponent(agent.url())}&thread=${thread}`;

async function load(tab, thread) {
  await tab.goto(pageUrl(thread));
  await tab.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
}

/** Resolves when `name` has happened `n` times from now (n = 1: the next one). */
function nth(name, n) {
  return new Promise((resolve) => {
    let seen = 0;
    const on = () => {
      seen += 1;
      if (seen < n) return;
      steps.off(name, on);
      resolve();
    };
    steps.on(name, on);
  });
}

/** The step of each round for each trial, then random moments. */
function trials() {
  const out = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const step of ['stream', 'approval', 'handler', 'handled']) out.push({ step, round });
  }
  const random = seededRandom(22);
  for (let i = 0; i < 6; i += 1) out.push({ afterMs: Math.floor(random() * 2500) });
  return out;
}

const totals = { trials: 0, reloads: 0, calls: 0, duplicates: 0, open: 0 };
let threadNo = 0;

for (const trial of trials()) {
  const name = trial.step ? `reload at round ${trial.round}, step "${trial.step}"` : `reload after ${trial.afterMs} ms`;
  test(name, { timeout: 60_000 }, async () => {
    const thread = `reload-${threadNo++}`;
    const tab = await context.newPage();
    const errors = [];
    tab.on('pageerror', (e) => errors.push(String(e)));
    await load(tab, thread);
    // The moment to cut: the step's occurrence in the round (a stream has several deltas: its first).
    const perRound = trial.step === 'stream' ? 4 : 1;
    const cut = trial.step ? nth(trial.step, trial.round * perRound + 1) : sleep(trial.afterMs);
    const driving = tab.evaluate(() => window.drive()).catch(() => 'cut by the reload');
    await Promise.race([cut, driving]);
    await tab.reload();
    await tab.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
    assert.equal(await tab.evaluate(() => window.drive()), true, 'the agent finished after the reload');

    const { messages, failures } = await tab.evaluate(() => ({
      messages: window.runtime.messages,
      failures: window.failures,
    }));
    const { calls, duplicates, open } = auditCalls(messages, runs);
    totals.trials += 1;
    totals.reloads += 1;
    totals.calls += calls.length;
    totals.duplicates += duplicates.length;
    totals.open += open.length;
    assert.deepEqual(duplicates, [], 'no handler ran twice');
    assert.deepEqual(open, [], 'every call has exactly one answer');
    assert.ok(calls.length >= ROUNDS, `${calls.length} calls`);
    assert.deepEqual(failures, [], 'the store never failed');
    const refused = agent.requests.filter((r) => r.input?.threadId === thread && r.error);
    assert.deepEqual(
      refused.map((r) => r.error),
      [],
      'the agent never saw a thread with an open call',
    );
    // The page shows what the store holds, and the store holds the whole thread.
    const stored = await tab.evaluate(async (id) => {
      const { indexedDbStore } = await import('/dist/index.js');
      return indexedDbStore({ name: 'reload-chaos' }).load(id);
    }, thread);
    assert.deepEqual(
      stored.messages.map((m) => m.id),
      messages.map((m) => m.id),
    );
    assert.deepEqual(errors, []);
    await tab.close();
  });
}

test('the figures over every trial', () => {
  console.log(
    `# reload chaos: ${totals.trials} trials, ${totals.reloads} reloads, ${totals.calls} calls, ` +
      `${totals.duplicates} run twice, ${totals.open} left without an answer`,
  );
  assert.equal(totals.trials, trials().length);
  assert.equal(totals.duplicates, 0);
  assert.equal(totals.open, 0);
});
