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
// test: window.step(name) from the page in charge, window.ran(id) when a handler starts. With
// ?hold, the runtime is made once the test calls window.begin(); with ?failable, the store's writes
// reject while window.failWrites is set, which ?failAfterApproval does once the first approval is
// stored (a full quota, say).
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
  if (q.has('hold')) await new Promise((resolve) => (window.begin = resolve));
  const idb = indexedDbStore({ name: 'tabs' });
  window.failWrites = false;
  const failing = (method) => (...args) =>
    window.failWrites ? Promise.reject(new Error('QuotaExceededError (the test)')) : idb[method](...args);
  const store = q.has('failable') ? { ...idb, save: failing('save'), append: failing('append') } : idb;
  const runtime = await createRuntime({
    url: q.get('agent'),
    persist: store,
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
      if (q.has('failAfterApproval') && leading() && !window.failWrites) failOnceStored(c.approval.toolCallId);
      answer(c.approval.toolCallId);
    }
    if (c.kind === 'storage_failed') window.failures.push(c.message);
    if (c.kind === 'role_changed') window.roles.push(c.role);
  });
  for (const a of runtime.approvals.pending()) answer(a.toolCallId);
  // Sets failWrites the moment the store holds the call as waiting for approval (before its answer).
  async function failOnceStored(id) {
    for (let i = 0; i < 200 && !window.failWrites; i += 1) {
      const call = (await idb.load(runtime.threadId))?.calls?.find((c) => c.toolCallId === id);
      if (call?.status === 'pending_approval') window.failWrites = true;
      else await sleep(2);
    }
  }
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
async function open(thread, query = '') {
  const tab = await context.newPage();
  tab.errors = [];
  tab.on('pageerror', (e) => tab.errors.push(String(e)));
  await tab.goto(`${pageAt}?agent=${encodeURIComponent(agent.url())}&thread=${thread}${query}`);
  await tab.evaluate((name) => (window.name = name), `page ${pageNo++}`);
  if (query.includes('hold')) return tab;
  await tab.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
  return tab;
}

/** A page with real focus (playwright emulates focus in every page): made in charge of nothing yet. */
async function openWithRealFocus(thread, query) {
  const tab = await open(thread, `&hold${query}`);
  const cdp = await context.newCDPSession(tab);
  await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
  return tab;
}

/** Starts a held page's runtime; resolves once it is ready. */
async function begin(tab) {
  await tab.waitForFunction(() => typeof window.begin === 'function');
  await tab.evaluate(() => window.begin());
  await tab.waitForFunction(() => window.ready === true, null, { timeout: 15_000 });
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

test(
  'a tab whose writes fail keeps charge when the user focuses another, and hands over once a write lands',
  { timeout: 60_000 },
  async () => {
    const thread = `tabs-${threadNo++}`;
    const first = await openWithRealFocus(thread, '&failable&failAfterApproval');
    await first.bringToFront();
    await begin(first);
    const second = await openWithRealFocus(thread, '');
    await first.bringToFront();
    await begin(second);
    const focused = (tab) => tab.evaluate(() => document.hasFocus());
    assert.deepEqual([await focused(first), await focused(second)], [true, false], 'real focus: the first page only');
    assert.deepEqual([await role(first), await role(second)], ['leader', 'follower']);
    // A turn from the first page; its writes fail from the first approval on (how the turn then
    // ends is the write-ahead rules': docs/persistence.md).
    await first.evaluate(() => window.runtime.send('go'));
    assert.equal(await first.evaluate(() => window.failWrites), true);
    assert.ok((await first.evaluate(() => window.failures)).length >= 1, 'the failing store was reported');
    const { messages: turn } = await view(first);
    const calls = auditCalls(turn, runs).calls.map((c) => c.id);
    assert.ok(calls.length >= 1);
    const ranBefore = calls.map((id) => runs.get(id) ?? 0);
    // The user goes to the second page: the first keeps charge (its store is behind).
    await second.bringToFront();
    await second.evaluate(() => window.dispatchEvent(new Event('focus')));
    assert.equal(await focused(second), true);
    await sleep(1000);
    assert.deepEqual(
      [await role(first), await role(second)],
      ['leader', 'follower'],
      'charge stays while the store is behind',
    );
    for (const tab of [first, second]) {
      const { messages } = await view(tab);
      assert.deepEqual(messages, turn, 'no message lost');
      assert.deepEqual(await tab.evaluate(() => window.runtime.approvals.pending()), [], 'no approval came back');
    }
    // The store takes writes again: a write lands, and the focused page takes charge from it.
    await first.evaluate(() => (window.failWrites = false));
    for (let waited = 0; (await role(second)) !== 'leader'; waited += 50) {
      assert.ok(waited < 6000, 'the focused page took charge within 6 s of the store taking writes');
      await sleep(50);
    }
    assert.equal(await inCharge([first, second]), second);
    await sleep(500); // (an approval that came back would be answered by now, and its call run again)
    for (const tab of [first, second]) {
      const { messages } = await view(tab);
      assert.deepEqual(
        messages.map((m) => m.id),
        turn.map((m) => m.id),
        'every message of the turn, in both tabs',
      );
      assert.deepEqual(await tab.evaluate(() => window.runtime.approvals.pending()), []);
      assert.deepEqual(tab.errors, []);
    }
    const { duplicates, open: unanswered } = auditCalls(turn, runs);
    assert.deepEqual(
      calls.map((id) => runs.get(id) ?? 0),
      ranBefore,
      'no approved call ran again',
    );
    assert.deepEqual(duplicates, []);
    assert.deepEqual(unanswered, []);
    assert.deepEqual(
      (await stored(second, thread)).messages.map((m) => m.id),
      turn.map((m) => m.id),
      'the store holds the turn',
    );
    for (const tab of [first, second]) await tab.close();
  },
);

// A widget embedded as <iframe sandbox="allow-scripts">: an opaque origin, where navigator.locks
// refuses every request and there is no IndexedDB; the runtime gets a memory store with a scope.
const framed = `<!doctype html><meta charset="utf-8"><title>sandboxed</title>
<script type="module">
  import { createRuntime, memoryStore, indexedDbStore } from '/dist/index.js';
  const sse = (events) => events.map((e) => 'data: ' + JSON.stringify(e) + '\\n\\n').join('');
  const fetch = async (url, init) => {
    const { threadId, runId } = JSON.parse(init.body);
    const events = [
      { type: 'RUN_STARTED', threadId, runId },
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm-hi', role: 'assistant', delta: 'hi' },
      { type: 'RUN_FINISHED', threadId, runId },
    ];
    return new Response(sse(events), { headers: { 'content-type': 'text/event-stream' } });
  };
  const result = { origin: self.origin, locks: typeof navigator.locks };
  try {
    await indexedDbStore().list();
    result.indexedDb = 'opened';
  } catch (e) {
    result.indexedDb = e.code;
  }
  const runtime = await createRuntime({ url: 'http://agent.invalid/', fetch, persist: { ...memoryStore(), scope: 'test' }, threadId: 'widget' });
  const roles = [];
  runtime.subscribe((c) => c.kind === 'role_changed' && roles.push({ role: c.role, reason: c.reason }));
  const late = new Promise((resolve) => setTimeout(resolve, 5000, { reason: 'send() did not settle within 5 s' }));
  const outcome = await Promise.race([runtime.send('hello'), late]);
  window.result = { ...result, role: runtime.role, roles, outcome, messages: runtime.messages.length };
</script>`;
const framedAt = await servePlainPage('sandboxed.html', framed);
const embedderAt = await servePlainPage(
  'embedder.html',
  `<!doctype html><iframe sandbox="allow-scripts" src="${framedAt}"></iframe>`,
);

test('in a sandboxed iframe (an opaque origin) the runtime is alone, says why, and send() settles', async () => {
  const tab = await context.newPage();
  // (A module script and the .wasm fetched from an opaque origin are CORS requests.)
  await tab.route('**/dist/**', async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, headers: { ...response.headers(), 'access-control-allow-origin': '*' } });
  });
  await tab.goto(embedderAt);
  let frame;
  for (let i = 0; i < 100 && !frame; i += 1) {
    frame = tab.frames().find((f) => f.url().endsWith('sandboxed.html'));
    if (!frame) await sleep(50);
  }
  await frame.waitForFunction(() => window.result !== undefined, null, { timeout: 15_000 });
  const result = await frame.evaluate(() => window.result);
  assert.equal(result.origin, 'null', 'an opaque origin');
  assert.equal(result.locks, 'object', 'navigator.locks is there (and refuses)');
  assert.equal(result.indexedDb, 'storage_failed', 'no IndexedDB there');
  assert.equal(result.role, 'alone');
  assert.equal(result.roles.length, 1);
  assert.equal(result.roles[0].role, 'alone');
  assert.match(
    result.roles[0].reason,
    /^thread 'widget' is not coordinated with other tabs: Web Locks refused: .*SecurityError/,
  );
  assert.equal(result.outcome.reason, 'done');
  assert.equal(result.messages, 2);
  await tab.close();
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
