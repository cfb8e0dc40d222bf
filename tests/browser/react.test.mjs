// The React demo (demo-page/react-app) in Debian's Chromium, against the demo agent: built as a
// user builds it (its own package.json, the package by name, `vite build`), in StrictMode.
// A full tool round, an approval answered, StrictMode's double mount registering the client tool
// once and running each call once, a text delta re-rendering only its message, and a server
// tool's card drawing its arguments as they stream. With `?thread=` the app keeps its thread in
// IndexedDB: StrictMode leaves one runtime, in charge and persisting; a reload and a route change
// keep a pending approval; two tabs show their roles (useRole) and answer with promises.
// Needs: cd demo-page && npm ci; cd demo-page/react-app && npm ci (tests/run.sh does both).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SCREENSHOT_DIR, screenshot, startHarness } from './harness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const APP = join(root, 'demo-page', 'react-app');
const AUSTIN = { latitude: 30.2747, longitude: -97.7404 };

/** Builds the app as its user would (`vite build`), with React's development build: StrictMode mounts twice only there (what test 3 is about). */
const buildApp = (outdir) =>
  promisify(execFile)('npm', ['run', 'build', '--', '--outDir', outdir, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: APP,
    env: { ...process.env, NODE_ENV: 'development' },
    timeout: 120_000,
  });

let harness;
before(async () => {
  // Deltas paced, so the page renders while the text and the arguments stream.
  harness = await startHarness({
    build: buildApp,
    ready: 'main[data-ready="true"]',
    server: { delayMs: 8, argsDelayMs: 40 },
  });
});
after(() => harness?.close());

/**
 * A fresh context on the app, nothing let out of the local server; `check()` asserts the page stayed
 * clean. With `thread`, the page is reopened on `?thread=<thread>` (kept in IndexedDB); `tab()`
 * opens another tab of the context there, and every page counts its Web Lock requests.
 */
async function openApp({ thread } = {}) {
  const { page, context, blocked, errors, consoleErrors } = await harness.open({
    permissions: ['geolocation'],
    geolocation: AUSTIN,
  });
  const url = `${harness.url}/?thread=${thread}`;
  if (thread) {
    await context.addInitScript(() => {
      const { locks } = navigator;
      const request = locks.request.bind(locks);
      window.__lockRequests = [];
      locks.request = (name, ...rest) => (window.__lockRequests.push(name), request(name, ...rest));
    });
    await reopen(page, url);
  }
  return {
    page,
    async tab() {
      const other = await context.newPage();
      other.on('pageerror', (e) => errors.push(String(e?.message ?? e)));
      await reopen(other, url);
      return other;
    },
    async check() {
      await context.close();
      assert.deepEqual(blocked, [], 'no request left the local server');
      assert.deepEqual([...errors, ...consoleErrors], [], 'the page logged and threw nothing');
    },
  };
}

/** Sends a message; resolves to the number of user messages once it is in the list. */
async function send(page, text) {
  const users = (await page.$$('.msg-user')).length + 1;
  await page.fill('#input', text);
  await page.click('#send');
  return users;
}

/** Waits for the turn of the `users`-th user message to end, its last answer matching `pattern`. */
async function answered(page, users, pattern) {
  await page.waitForFunction(
    ([n, source]) => {
      const texts = [...document.querySelectorAll('.msg-assistant .text')].map((p) => p.textContent);
      return (
        document.querySelectorAll('.msg-user').length === n &&
        document.querySelector('main').dataset.phase === 'idle' &&
        new RegExp(source).test(texts.at(-1) ?? '')
      );
    },
    [users, pattern.source],
    { timeout: 30_000 },
  );
}

/** Opens (or reloads, with no url) the app and waits until its runtime is ready. */
async function reopen(page, url) {
  await (url ? page.goto(url) : page.reload());
  await page.waitForSelector('main[data-ready="true"]', { timeout: 30_000 });
}

const cards = (page) =>
  page.$$eval('.tool-card', (all) =>
    all.map((c) => ({ id: c.dataset.toolCallId, name: c.dataset.name, state: c.dataset.state })),
  );
const probe = (page) =>
  page.evaluate(() => {
    const { renders, toolRuns, cardArgs, mounts } = window.__aguiDemo;
    return structuredClone({ renders, toolRuns, cardArgs, mounts });
  });

test(
  'a full tool round: the client tool runs, its result goes back, the agent answers',
  { timeout: 90_000 },
  async () => {
    const { page, check } = await openApp();
    await answered(page, await send(page, 'where am i'), /You are at 30\.27470, -97\.74040/);
    const [card] = await cards(page);
    assert.deepEqual([card.name, card.state], ['get_current_location', 'done']);
    assert.match(await page.textContent(`.tool-card[data-tool-call-id="${card.id}"] .result`), /"latitude":30\.2747/);
    assert.deepEqual((await probe(page)).toolRuns, { [card.id]: 1 }, 'the handler ran once');
    await screenshot(page, 'react-tool-round');
    await check();
  },
);

test('an approval card answered: approve, and the gated tool runs', { timeout: 90_000 }, async () => {
  const { page, check } = await openApp();
  const users = await send(page, 'delete the old permits');
  await page.waitForSelector('.approval button.approve', { timeout: 30_000 });
  const [card] = await cards(page);
  assert.deepEqual([card.name, card.state], ['request_user_approval', 'pending_approval']);
  await screenshot(page, 'react-approval-card');
  await page.click('.approval button.approve');
  await answered(page, users, /You approved/);
  assert.equal(await page.$('.approval'), null, 'the card is gone');
  assert.equal((await cards(page))[0].state, 'done');
  assert.match(await page.textContent('.tool-card .result'), /"decision":"approved"/);
  await check();
});

test(
  'StrictMode mounts twice, yet the tool is registered once, each call runs once, and the newest handler runs',
  { timeout: 90_000 },
  async () => {
    const { page, check } = await openApp();
    assert.equal((await probe(page)).mounts, 2, 'StrictMode mounted the tools component twice (a development build)');
    const registered = () =>
      page.evaluate(
        () => window.__aguiDemo.runtime.tools.list().filter((t) => t.name === 'get_current_location').length,
      );
    assert.equal(await registered(), 1);
    // A new handler (the checkbox changes what it closes over) must not re-register the tool.
    await page.evaluate(() => {
      window.__toolsChanged = 0;
      window.__aguiDemo.runtime.subscribe((c) => c.kind === 'tools_changed' && (window.__toolsChanged += 1));
    });
    await page.click('#precise');
    await answered(page, await send(page, 'where am i'), /You are at 30\.27000, -97\.74000/); // rounded: the newest handler
    await answered(page, await send(page, 'where am i'), /You are at/);
    const calls = await cards(page);
    assert.equal(calls.length, 2);
    const { toolRuns } = await probe(page);
    assert.deepEqual(toolRuns, Object.fromEntries(calls.map((c) => [c.id, 1])), 'each call ran exactly once');
    assert.equal(await page.evaluate(() => window.__toolsChanged), 0, 'no re-registration');
    assert.equal(await registered(), 1);
    const advertised = await page.evaluate(() => window.__aguiDemo.runtime.lastInput.tools.map((t) => t.name));
    assert.equal(advertised.filter((n) => n === 'get_current_location').length, 1, 'advertised once');
    await check();
  },
);

test('a text delta re-renders only the component of its message', { timeout: 90_000 }, async () => {
  const { page, check } = await openApp();
  await answered(page, await send(page, 'help'), /I am the demo agent/);
  const first = await probe(page);
  const deltas = [];
  await page.exposeFunction('__delta', (id) => deltas.push(id));
  await page.evaluate(() =>
    window.__aguiDemo.runtime.subscribe((c) => c.kind === 'text_appended' && window.__delta(c.messageId)),
  );
  await answered(page, await send(page, 'help'), /I am the demo agent/);
  const second = await probe(page);
  const streamed = [...new Set(deltas)];
  assert.equal(streamed.length, 1, 'one message streamed');
  const [id] = streamed;
  assert.ok(deltas.length >= 20, `the answer came in many deltas (${deltas.length})`);
  const grown = (name) => (second.renders[name] ?? 0) - (first.renders[name] ?? 0);
  assert.ok(grown(`message:${id}`) >= 10, `the streaming message re-rendered as it grew (${grown(`message:${id}`)})`);
  for (const name of Object.keys(first.renders).filter((n) => n.startsWith('message:')))
    assert.equal(grown(name), 0, `${name}, of the first turn, did not re-render`);
  // The list re-renders when a message is added (the user's, the answer), never per delta.
  assert.ok(grown('list') <= 8, `the list re-rendered ${grown('list')} times for ${deltas.length} deltas`);
  await check();
});

test('a server tool card draws its arguments as they stream', { timeout: 90_000 }, async () => {
  const { page, check } = await openApp();
  await send(page, 'how many permits by type');
  const chart = '.tool-card[data-name="create_chart"]';
  // The card while its arguments stream (the agent pauses 40 ms between pieces), for the eye.
  await page.waitForFunction(
    (sel) => document.querySelector(`${sel}[data-state="streaming"] .args`)?.textContent.length > 60,
    chart,
    { timeout: 30_000 },
  );
  await page.locator(chart).screenshot({ path: join(SCREENSHOT_DIR, 'react-partial-card.png') });
  await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.state === 'done', chart, {
    timeout: 30_000,
  });
  const id = await page.getAttribute(chart, 'data-tool-call-id');
  const frames = [...new Set((await probe(page)).cardArgs[id])];
  const final = JSON.parse(frames.at(-1));
  assert.ok(frames.length >= 5, `the card drew ${frames.length} values as the arguments grew`);
  assert.ok(Object.keys(final).length > 0, 'it ends with the final arguments');
  const partial = frames.slice(1, -1).map((f) => JSON.parse(f));
  assert.ok(
    partial.every((p) => JSON.stringify(p) !== JSON.stringify(final)),
    'the values before the last are partial',
  );
  await screenshot(page, 'react-server-tool-cards');
  await check();
});

/** The thread's Web Lock: the requests this page made for it, and who holds and waits for it. */
const threadLock = (page, thread) =>
  page.evaluate(async (name) => {
    const mine = (l) => l.name.endsWith(`:${name}`);
    const { held, pending } = await navigator.locks.query();
    return {
      requests: window.__lockRequests.filter((n) => n.endsWith(`:${name}`)).length,
      held: held.filter(mine).length,
      pending: pending.filter(mine).length,
    };
  }, thread);
const role = (page) => page.getAttribute('main', 'data-role');
const storageFailures = (page) => page.evaluate(() => window.__aguiDemo.storageFailures);

test(
  'StrictMode with indexedDbStore(): one runtime is made and in charge, and a turn with a tool call is back after a reload',
  { timeout: 90_000 },
  async () => {
    const { page, check } = await openApp({ thread: 'strict-tool-round' });
    for (const load of ['first load', 'reload']) {
      assert.equal((await probe(page)).mounts, 2, `${load}: StrictMode mounted twice (a development build)`);
      // One runtime asked for the thread's lock, holds it, and nobody waits for it.
      assert.deepEqual(await threadLock(page, 'strict-tool-round'), { requests: 1, held: 1, pending: 0 }, load);
      assert.equal(await role(page), 'leader', load);
      if (load === 'reload') break;
      await answered(page, await send(page, 'where am i'), /You are at 30\.27470, -97\.74040/);
      await reopen(page);
    }
    // The thread is back: the call with its result, the answer, and nothing ran again.
    const [card] = await cards(page);
    assert.deepEqual([card.name, card.state], ['get_current_location', 'done']);
    assert.match(await page.textContent('.tool-card .result'), /"latitude":30\.2747/);
    assert.match(await page.textContent('.msg-assistant:last-child .text'), /You are at 30\.27470/);
    assert.deepEqual((await probe(page)).toolRuns, {}, 'the reloaded page ran nothing');
    assert.deepEqual(await storageFailures(page), []);
    await check();
  },
);

test(
  'StrictMode with indexedDbStore(): a pending approval is back after a reload, and answered once',
  { timeout: 90_000 },
  async () => {
    const { page, check } = await openApp({ thread: 'strict-approval' });
    const users = await send(page, 'delete the old permits');
    await page.waitForSelector('.approval button.approve', { timeout: 30_000 });
    const id = await page.getAttribute('.approval', 'data-tool-call-id');
    await reopen(page);
    await page.waitForSelector(`.approval[data-tool-call-id="${id}"]`, { timeout: 10_000 });
    await page.click('.approval button.approve');
    await answered(page, users, /You approved/);
    const results = await page.$$eval('.tool-card .result', (all) => all.map((r) => r.textContent));
    assert.equal(results.length, 1, 'one answer');
    assert.match(results[0], /"decision":"approved"/);
    assert.deepEqual(await storageFailures(page), []);
    await check();
  },
);

test(
  'a route change that unmounts <AgentProvider> keeps the pending approval: back on the chat, it is answered',
  { timeout: 90_000 },
  async () => {
    const { page, check } = await openApp({ thread: 'route-change' });
    const users = await send(page, 'delete the old permits');
    await page.waitForSelector('.approval button.approve', { timeout: 30_000 });
    const id = await page.getAttribute('.approval', 'data-tool-call-id');
    await page.click('#nav-about');
    await page.waitForSelector('#about');
    assert.equal(await page.$('main'), null, 'the provider is unmounted');
    await page.click('#nav-chat');
    await page.waitForSelector('main[data-ready="true"]', { timeout: 30_000 });
    await page.waitForSelector(`.approval[data-tool-call-id="${id}"]`, { timeout: 10_000 });
    await page.click('.approval button.approve');
    await answered(page, users, /You approved/);
    assert.match(await page.textContent('.tool-card .result'), /"decision":"approved"/);
    await check();
  },
);

test('useRole() re-renders as charge of the thread moves between two tabs', { timeout: 90_000 }, async () => {
  const { page: first, tab, check } = await openApp({ thread: 'roles' });
  assert.equal(await role(first), 'leader');
  // Pages of a headless browser all have focus: the second asks for charge as it opens, and the
  // first, idle, hands the thread over.
  const second = await tab();
  const roles = async (want) =>
    Promise.all([first, second].map((p, i) => p.waitForSelector(`main[data-role="${want[i]}"]`, { timeout: 10_000 })));
  await roles(['follower', 'leader']);
  await first.evaluate(() => window.dispatchEvent(new Event('focus')));
  await roles(['leader', 'follower']);
  await second.close();
  await check();
});

test(
  "the hooks' answers are promises in every role: a refusal rejects, a follower's send and approve settle once done",
  { timeout: 90_000 },
  async () => {
    const { page: first, tab, check } = await openApp({ thread: 'answers' });
    const second = await tab();
    await second.waitForSelector('main[data-role="leader"]', { timeout: 10_000 });
    await first.waitForSelector('main[data-role="follower"]', { timeout: 10_000 });
    // A refused answer, in the tab in charge and in the follower: a rejected promise, never a throw.
    const refuse = (page) =>
      page.evaluate(async () => {
        const { approvals } = window.__aguiDemo;
        const outcomes = [
          approvals.approve('no-such-call'),
          approvals.reject('no-such-call', 'no'),
          window.__aguiDemo.send(undefined),
        ];
        return Promise.all(
          outcomes.map((p) =>
            p instanceof Promise
              ? p.then(
                  () => 'resolved',
                  (e) => e.code,
                )
              : 'not a promise',
          ),
        );
      });
    assert.deepEqual(await refuse(second), ['unknown_tool_call', 'unknown_tool_call', 'invalid_argument']);
    assert.deepEqual(await refuse(first), ['unknown_tool_call', 'unknown_tool_call', 'invalid_argument']);
    // The follower sends and approves; its promises settle once the tab in charge has done it.
    const turn = first.evaluate(() => window.__aguiDemo.send('delete the old permits').then((r) => r.reason));
    await first.waitForSelector('.approval button.approve', { timeout: 30_000 });
    const id = await first.getAttribute('.approval', 'data-tool-call-id');
    const approved = await first.evaluate(
      (call) => window.__aguiDemo.approvals.approve(call).then((value) => ({ value })),
      id,
    );
    assert.deepEqual(approved, { value: undefined });
    assert.equal(await turn, 'done');
    await answered(first, 1, /You approved/);
    assert.equal(await first.$('.refused'), null, 'no refusal shown');
    await second.close();
    await check();
  },
);
