// The package through a Vite build, as a user's app would bundle it: the
// new URL('…/agui_core.wasm', import.meta.url) in the package must come out as
// an emitted asset, and the built app must run a turn in Debian's Chromium.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium } from './chromium.mjs';
import { mkdtemp, mkdir, writeFile, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { startDemoServer } = await import(join(root, 'demo-page', 'server', 'main.mjs'));

test('a Vite build ships the .wasm and the built app runs a turn', { timeout: 120_000 }, async () => {
  const app = await mkdtemp(join(tmpdir(), 'agui-vite-'));
  after(() => rm(app, { recursive: true, force: true }));
  // The app depends on the package by name, as from npm.
  await mkdir(join(app, 'node_modules'), { recursive: true });
  await symlink(join(root, 'js-shim'), join(app, 'node_modules', 'agui-client-tools'), 'dir');
  await writeFile(
    join(app, 'index.html'),
    '<!doctype html><meta charset="utf-8"><script type="module" src="/main.js"></script>',
  );
  await writeFile(
    join(app, 'main.js'),
    `import { createRuntime } from 'agui-client-tools';
     const runtime = await createRuntime({ url: '/agent' });
     const result = await runtime.send('help');
     window.outcome = { result, text: runtime.messages.at(-1).content };`,
  );
  await build({ root: app, logLevel: 'silent', build: { outDir: join(app, 'dist'), target: 'es2022' } });

  const assets = await readdir(join(app, 'dist', 'assets'));
  const wasm = assets.find((f) => f.endsWith('.wasm'));
  assert.ok(wasm, `Vite emitted the .wasm (assets: ${assets.join(', ')})`);
  const js = assets.filter((f) => f.endsWith('.js'));
  const bundle = (await Promise.all(js.map((f) => readFile(join(app, 'dist', 'assets', f), 'utf8')))).join('\n');
  assert.ok(bundle.includes(wasm), 'the bundle refers to the emitted .wasm by its hashed name');
  assert.ok(!bundle.includes('node:fs'), 'the browser build does not pull the node entry');

  const server = await startDemoServer({ port: 0, staticRoot: join(app, 'dist'), delayMs: 0 });
  after(() => server.close());
  const browser = await launchChromium();
  after(() => browser.close());
  const tab = await browser.newPage();
  const errors = [];
  tab.on('pageerror', (e) => errors.push(String(e)));
  await tab.goto(`${server.url}/index.html`);
  await tab.waitForFunction(() => window.outcome !== undefined || false, null, { timeout: 30_000 }).catch(() => {});
  const outcome = await tab.evaluate(() => window.outcome);
  assert.deepEqual(errors, []);
  assert.equal(outcome?.result?.reason, 'done');
  assert.match(outcome.text, /\S/, 'the agent answered');
});
