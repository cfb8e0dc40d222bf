// The package from a plain <script type="module">, no bundler: the page imports
// js-shim/dist/index.js (what ships: minified, with its chunks) as served, under a folder of another name
// than dist/ (/vendor/agui/, as a site copies a package's files): the core fetches the .wasm beside
// the module itself, and a turn runs against the demo agent in Debian's Chromium.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium } from './chromium.mjs';
import { cp, mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { startDemoServer } = await import(join(root, 'demo-page', 'server', 'main.mjs'));

// Schema patterns that only an ECMA-262 engine with the "u" flag reads: the
// module lends the validator the page's own RegExp, so Chromium decides them.
const patterns = { letters: '^\\p{L}+$', price: '(?<=\\$)\\d+$', invalidWithU: '\\-' };

const page = `<!doctype html><meta charset="utf-8"><title>plain module</title>
<script type="module">
  import { createRuntime, browserTools } from '/vendor/agui/index.js';
  const patterns = ${JSON.stringify(patterns)};
  const schema = (properties) => ({ type: 'object', properties });
  try {
    // The lookbehind needs a backtracking RegExp, which the page must allow.
    const runtime = await createRuntime({ url: '/agent', allowBacktrackingPatterns: true });
    runtime.tools.register(browserTools.getCurrentLocation);
    const deltas = [];
    runtime.subscribe((c) => c.kind === 'text_appended' && deltas.push(c.delta));
    const result = await runtime.send('where am i');
    const tools = runtime.lastInput.tools.map((t) => t.name);
    runtime.tools.register({
      name: 'greet', description: 'g', handler: () => 'hi',
      parameters: schema({ name: { type: 'string', pattern: patterns.letters }, price: { type: 'string', pattern: patterns.price } }),
    });
    let refused = null;
    try {
      runtime.tools.register({ name: 'bad', description: 'b', handler: () => 1, parameters: schema({ x: { type: 'string', pattern: patterns.invalidWithU } }) });
    } catch (e) {
      refused = { code: e.code, message: e.message };
    }
    window.outcome = { result, text: deltas.join(''), tools, registered: runtime.tools.list().map((t) => t.name), refused };
  } catch (e) {
    window.outcome = { error: String(e && e.stack || e) };
  }
</script>`;

test(
  'a plain <script type="module"> imports the package and runs a client-tool turn',
  { timeout: 60_000 },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agui-plain-'));
    after(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'plain.html'), page);
    await cp(join(root, 'js-shim', 'dist'), join(dir, 'vendor', 'agui'), { recursive: true });
    const server = await startDemoServer({ port: 0, staticRoot: dir, delayMs: 0 });
    after(() => server.close());
    const browser = await launchChromium();
    after(() => browser.close());
    const context = await browser.newContext({
      permissions: ['geolocation'],
      geolocation: { latitude: 30.27, longitude: -97.74 },
    });
    const tab = await context.newPage();
    const fetched = [];
    tab.on('request', (r) => fetched.push(new URL(r.url()).pathname));
    await tab.goto(`${server.url}/plain.html`);
    await tab.waitForFunction(() => window.outcome !== undefined, null, { timeout: 30_000 });
    const outcome = await tab.evaluate(() => window.outcome);
    assert.equal(outcome.error, undefined, outcome.error);
    assert.equal(outcome.result.reason, 'done');
    assert.deepEqual(outcome.tools, ['get_current_location']);
    assert.match(outcome.text, /30\.27/, 'the agent used the coordinates the browser gave');
    assert.ok(fetched.includes('/vendor/agui/agui_core.wasm'), 'the core fetched its .wasm beside the module');
    // \p{L} and lookbehind compile; "\-" is an invalid escape with "u", in Chromium's words.
    assert.deepEqual(outcome.registered, ['get_current_location', 'greet']);
    assert.equal(outcome.refused?.code, 'invalid_schema');
    assert.match(outcome.refused.message, /pattern '\\-' is not a valid regular expression: Invalid escape/);
  },
);
