// The React demo (demo-page/react-app) in Debian's Chromium, against the demo agent: built as a
// user builds it (its own package.json, the package by name, `vite build`), in StrictMode.
// A full tool round, an approval answered, StrictMode's double mount registering the client tool
// once and running each call once, a text delta re-rendering only its message, and a server
// tool's card drawing its arguments as they stream.
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

/** A fresh context on the app, nothing let out of the local server; `check()` asserts the page stayed clean. */
async function openApp() {
  const { page, context, blocked, errors, consoleErrors } = await harness.open({
    permissions: ['geolocation'],
    geolocation: AUSTIN,
  });
  return {
    page,
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
