// Two tabs on one thread, in Debian's Chromium: pages of one browser context (one origin, one
// IndexedDB), each with a runtime on indexedDbStore() and the same threadId. One is in charge (it
// holds the thread's Web Lock: it runs the turns and the handlers); the other follows it over the
// thread's BroadcastChannel, and what its user does (send, approve) is carried out by the one in
// charge, once.
//
// The chaos trials close the page in charge at one step of one round of a five-round turn (the
// stream, the approval card, the handler, the handler's end) or at a random moment, while the
// other page drives the turn; a third page opens to follow the survivor. Over all trials: no
// handler ran twice, no call was left without an answer, the agent never saw a thread with an
// open call, and the surviving pages show every message the store holds.
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

// The page: `probe` needs approval, and every page answers each approval card it sees (so the
// follower's answer and the leader's race: one is carried out, the other refused). Hooks for the
// test: window.step(name) from the page in charge, window.ran(id) when a handler starts.
const page = `<!doctype html><meta charset="utf-8"><title>tabs</title>
<script type="module">
  import { createRuntime, indexedDbStore } from '/dist/index.js';
  import { probeTool } from '/probe.js';
  const q = new URLSearchParams(location.search);
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const probe = probeTool(() => 'ok from ' + window.name);
  window.failures = [];
  window.roles = [];
  window.refused = [];
  const runtime = await createRuntime({
    url: q.get('agent'),
    persist: indexedDbStore({ name: 'tabs' }),
    threadId: q.get('thread'),
    tools: [probe],
  });
  const leading = () => runtime.role === 'leader';
  const answer = (id) =>
    setTimeout(async () => {
      if (!runtime.approvals.pending().some((a) => a.toolCallId === id)) return;
      try {
        await runtime.approvals.approve(id);
      } catch (e) {
        window.refused.push(e.code);
      }
    }, 40);
  runtime.subscribe((c) => {
    if (c.kind === 'text_appended' && leading()) window.step('stream');
    if (c.kind === 'approval_requested') {
      if (leading()) window.step('approval');
      answer(c.approval.toolCallId);
    }
    if (c.kind === 'storage_failed') window.failures.push(c.message);
    if (c.kind === 'role_changed') window.roles.push(c.role);
  });
  for (const a of runtime.approvals.pending()) answer(a.toolCallId);
  const finished = () => {
    const last = runtime.messages.at(-1);
    return last?.role === 'assistant' && /^done after/.test(last.content ?? '');
  };
  // Drives the thread to its end from this page, whichever tab is in charge: sends when the thread
  // is idle; a send the tab in charge could not answer (it closed) is sent again.
  window.drive = async () => {
    const until = Date.now() + 30_000;
    while (!finished() && Date.now() < until) {
      if (runtime.status.phase !== 'idle') {
        await sleep(50);
        continue;
      }
      try {
        await runtime.send('go on');
      } catch {
        await sleep(50);
      }
    }
    return finished();
  };
  window.runtime = runtime;
  window.ready = true;
</script>`;

const pageAt = await servePlainPage('tabs.html', page);
const agent = await startAguiServer({ scenarios: { rounds: probeRounds(ROUNDS) }, defaultScenario: 'rounds' });
after(() => agent.close());
const browser = await launchChromium();
after(() => browser.close());
const context = await browser.newContext();

const runs = new Map(); // toolCallId -> handler starts, over every page
const steps = new EventEmitter(); // (name, page)
await context.exposeFunction('ran', (id) => runs.set(id, (runs.get(id) ?? 0) + 1));
await context.exposeBinding('step', ({ page: tab }, name) => steps.emit(name, tab));

let pageNo = 0;
async function open(thread) {
  const tab = await context.newPage();
  tab.errors = [];
  tab.on('pageerror', (e) => tab.errors.push(String(e)));
  await tab.goto(`${pageAt}?agent=${encodeURIComponent(agent.url())}&thread=${thread}`);
  await tab.evaluate((name) => (window.name = name), `page ${pageNo++}`);
  await tab.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
  return tab;
}

const role = (tab) => tab.evaluate(() => window.runtime.role);
const view = (tab) => tab.evaluate(() => ({ messages: window.runtime.messages, status: window.runtime.status }));

async function stored(tab, thread) {
  return tab.evaluate(async (id) => {
    const { indexedDbStore } = await import('/dist/index.js');
    return indexedDbStore({ name: 'tabs' }).load(id);
  }, thread);
}

/** Waits until exactly one of `tabs` is in charge; resolves to it. */
async function inCharge(tabs) {
  for (let i = 0; i < 100; i += 1) {
    const roles = await Promise.all(tabs.map(role));
    if (roles.filter((r) => r === 'leader').length === 1 && roles.every((r) => r !== 'alone'))
      return tabs[roles.indexOf('leader')];
    await sleep(50);
  }
  throw new Error('no single tab took charge');
}

/** The calls and answers a thread holds: which ran twice, which lack exactly one answer. */
let threadNo = 0;

test('one tab is in charge; the other shows its thread live and its sends and approvals are carried out there once', async () => {
  const thread = `tabs-${threadNo++}`;
  const first = await open(thread);
  const second = await open(thread);
  const leader = await inCharge([first, second]);
  const follower = leader === first ? second : first;
  assert.equal(await role(follower), 'follower');
  // The follower drives the whole turn: its sends go to the tab in charge, which runs the handlers.
  const deltas = follower.evaluate(() => {
    window.deltas = 0;
    window.runtime.subscribe((c) => c.kind === 'text_appended' && (window.deltas += 1));
  });
  await deltas;
  assert.equal(await follower.evaluate(() => window.drive()), true);
  const [a, b] = [await view(leader), await view(follower)];
  assert.deepEqual(b.messages, a.messages, 'the follower shows the thread as the tab in charge has it');
  assert.deepEqual(b.status, a.status);
  const { calls, duplicates, open: unanswered } = auditCalls(a.messages, runs);
  assert.equal(calls.length, ROUNDS);
  assert.deepEqual(duplicates, []);
  assert.deepEqual(unanswered, []);
  const leaderName = await leader.evaluate(() => window.name);
  for (const m of a.messages.filter((m) => m.role === 'tool')) assert.equal(m.content, `ok from ${leaderName}`);
  assert.ok((await follower.evaluate(() => window.deltas)) >= 4 * ROUNDS, 'the follower saw each text delta live');
  assert.deepEqual(
    (await stored(follower, thread)).messages.map((m) => m.id),
    a.messages.map((m) => m.id),
  );
  for (const tab of [first, second]) {
    assert.deepEqual(await tab.evaluate(() => window.failures), []);
    assert.deepEqual(tab.errors, []);
  }
  // The tab in charge closes: the other takes over, with every message.
  await leader.close();
  assert.equal(await inCharge([follower]), follower);
  assert.deepEqual((await view(follower)).messages, a.messages);
  await follower.close();
});

test('a following tab that gains focus takes charge once the thread is idle, never mid-turn', async () => {
  const thread = `tabs-${threadNo++}`;
  const first = await open(thread);
  const second = await open(thread);
  // Pages of a headless browser all have focus: the second asked for charge as it opened, and the
  // first, idle, handed the thread over.
  assert.equal(await inCharge([first, second]), second);
  assert.deepEqual(await first.evaluate(() => window.roles), ['leader', 'follower']);
  assert.deepEqual(await second.evaluate(() => window.roles), ['follower', 'leader']);
  // Mid-turn, the first tab gains focus: the turn stays where it runs, and moves only after it.
  const turn = first.evaluate(() => window.drive());
  await new Promise((resolve) => steps.once('handler', resolve));
  await first.evaluate(() => window.dispatchEvent(new Event('focus')));
  assert.equal(await role(second), 'leader', 'still in charge while its turn runs');
  assert.equal(await turn, true);
  assert.equal(await inCharge([first, second]), first, 'charge moved once the thread was idle');
  const { messages } = await view(first);
  const secondName = await second.evaluate(() => window.name);
  const answers = messages.filter((m) => m.role === 'tool');
  assert.equal(answers.length, ROUNDS);
  for (const m of answers) assert.equal(m.content, `ok from ${secondName}`, 'every handler ran in one tab');
  assert.deepEqual(auditCalls(messages, runs).duplicates, []);
  assert.deepEqual((await view(second)).messages, messages);
  for (const tab of [first, second]) {
    assert.deepEqual(tab.errors, []);
    await tab.close();
  }
});

/** The step of a round for each trial, then random moments. */
function trials() {
  const out = [];
  for (const round of [0, 2, 4]) {
    for (const step of ['stream', 'approval', 'handler', 'handled']) out.push({ step, round });
  }
  const random = seededRandom(2202);
  // (A whole turn takes 1.5 to 2 s here: each moment falls within it.)
  for (let i = 0; i < 4; i += 1) out.push({ afterMs: 100 + Math.floor(random() * 1100) });
  return out;
}

/** Resolves to the page that reported `name` for the n-th time from now. */
function nth(name, n) {
  return new Promise((resolve) => {
    let seen = 0;
    const on = (tab) => {
      seen += 1;
      if (seen < n) return;
      steps.off(name, on);
      resolve(tab);
    };
    steps.on(name, on);
  });
}

const totals = { trials: 0, closed: 0, calls: 0, duplicates: 0, open: 0 };

for (const trial of trials()) {
  const name = trial.step
    ? `the tab in charge closes at round ${trial.round}, step "${trial.step}"`
    : `the tab in charge closes after ${trial.afterMs} ms`;
  test(name, { timeout: 60_000 }, async () => {
    const thread = `tabs-${threadNo++}`;
    const first = await open(thread);
    const second = await open(thread);
    const leader = await inCharge([first, second]);
    const driver = leader === first ? second : first;
    const perRound = trial.step === 'stream' ? 4 : 1;
    const cut = trial.step
      ? nth(trial.step, trial.round * perRound + 1)
      : sleep(trial.afterMs).then(() => inCharge([first, second]));
    const driving = driver.evaluate(() => window.drive());
    const victim = await Promise.race([cut, driving.then(() => null)]);
    assert.ok(victim, 'the turn was still going when the tab in charge was to close');
    await victim.close();
    const survivors = [first, second].filter((t) => t !== victim);
    survivors.push(await open(thread)); // a new tab follows the survivor
    assert.equal(await driving, true, 'the turn reached its end after the tab in charge closed');
    // Whatever tab the survivor's runtime follows, each ends with the thread the store holds.
    await inCharge(survivors);
    await sleep(200); // (the last step's broadcast)
    const record = await stored(survivors[0], thread);
    for (const tab of survivors) {
      const { messages } = await view(tab);
      assert.deepEqual(
        messages.map((m) => m.id),
        record.messages.map((m) => m.id),
        'the page shows every message the store holds',
      );
      assert.deepEqual(await tab.evaluate(() => window.failures), []);
      assert.deepEqual(tab.errors, []);
    }
    const { calls, duplicates, open: unanswered } = auditCalls(record.messages, runs);
    totals.trials += 1;
    totals.closed += 1;
    totals.calls += calls.length;
    totals.duplicates += duplicates.length;
    totals.open += unanswered.length;
    assert.deepEqual(duplicates, [], 'no handler ran twice');
    assert.deepEqual(unanswered, [], 'every call has exactly one answer');
    assert.ok(calls.length >= ROUNDS, `${calls.length} calls`);
    const refused = agent.requests.filter((r) => r.input?.threadId === thread && r.error);
    assert.deepEqual(
      refused.map((r) => r.error),
      [],
      'the agent never saw a thread with an open call',
    );
    for (const tab of survivors) await tab.close();
  });
}

test('the figures over every trial', () => {
  console.log(
    `# tabs chaos: ${totals.trials} trials, ${totals.closed} tabs in charge closed, ${totals.calls} calls, ` +
      `${totals.duplicates} run twice, ${totals.open} left without an answer`,
  );
  assert.equal(totals.trials, trials().length);
  assert.equal(totals.duplicates, 0);
  assert.equal(totals.open, 0);
});
