// The package as users get it: `npm pack` js-shim (offline; without the built
// module it must refuse and say how to build it), check the tarball holds
// exactly the `files` whitelist and a README that stands alone, that its JavaScript
// is src/ minified (up to date, with source maps that lead back to src/), install it into a fresh project, import it BY NAME
// from node and run a one-tool turn against the test server, and bundle a browser
// entry with esbuild (platform browser: the "node" export condition, and node:fs
// with it, must stay out). Prints the sizes of what ships.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { startServer } from './helpers.mjs';
import { replies } from '../support/scenarios.mjs';
import { build, staleFiles } from '../../js-shim/scripts/build-js.mjs';

const run = promisify(execFile);
const SHIM = fileURLToPath(new URL('../../js-shim/', import.meta.url));
const manifest = JSON.parse(fs.readFileSync(path.join(SHIM, 'package.json'), 'utf8'));
const server = await startServer(after);

let work; // the temp folder: tarball, consumer project, npm cache
let tarball;
let packed; // npm pack's file list
let project;
const npm = (args, cwd) =>
  run('npm', args, {
    cwd,
    timeout: 60_000,
    env: {
      ...process.env,
      npm_config_cache: path.join(work, 'npm-cache'),
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    },
  });

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'agui-pack-'));
  const { stdout } = await npm(['pack', '--json', '--offline', '--pack-destination', work], SHIM);
  const [info] = JSON.parse(stdout);
  tarball = path.join(work, info.filename);
  packed = info.files.map((f) => f.path).sort();
  project = path.join(work, 'consumer');
  fs.mkdirSync(project);
  fs.writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  await npm(['install', '--offline', '--no-audit', '--no-fund', tarball], project);
});
after(() => work && fs.rmSync(work, { recursive: true, force: true }));

/** Every file the `files` whitelist names, on disk, plus what npm always ships. */
function whitelisted() {
  const out = new Set(['package.json']);
  const walk = (rel) => {
    const abs = path.join(SHIM, rel);
    if (!fs.existsSync(abs)) return;
    if (fs.statSync(abs).isDirectory()) for (const e of fs.readdirSync(abs)) walk(path.posix.join(rel, e));
    else out.add(rel);
  };
  for (const entry of manifest.files) {
    const [, dir, ext] = entry.match(/^(.*)\/\*(\..+)$/) ?? []; // "dist/*.js": that folder's files ending so
    if (dir) for (const f of fs.readdirSync(path.join(SHIM, dir))) f.endsWith(ext) && out.add(`${dir}/${f}`);
    else walk(entry.replace(/\/$/, ''));
  }
  for (const f of fs.readdirSync(SHIM)) if (/^(readme|license|licence)(\.|$)/i.test(f)) out.add(f);
  return [...out].sort();
}

test(
  'npm pack without the built module fails with a message that says how to build it',
  { timeout: 60_000 },
  async () => {
    // A fresh clone: the package's own files, no dist/.
    const clone = path.join(work, 'fresh-clone');
    fs.cpSync(SHIM, clone, { recursive: true, filter: (src) => !/[\\/](dist|node_modules)$/.test(src) });
    assert.ok(!fs.existsSync(path.join(clone, 'dist')));
    const failed = await npm(['pack', '--offline', '--pack-destination', work], clone).then(
      () => null,
      (e) => e,
    );
    assert.ok(failed, 'npm pack refused');
    assert.match(
      failed.stderr,
      /cannot pack without the built WebAssembly core: dist\/agui_core\.mjs and dist\/agui_core\.wasm missing/,
    );
    assert.match(
      failed.stderr,
      /emcmake cmake -S \. -B build-wasm -DCMAKE_BUILD_TYPE=MinSizeRel && cmake --build build-wasm/,
    );
    assert.ok(
      !fs.readdirSync(work).some((f) => f.endsWith('.tgz') && f !== path.basename(tarball)),
      'no tarball was written',
    );
  },
);

test('the tarball holds exactly the files whitelist: no tests, no core sources', { timeout: 60_000 }, async () => {
  const files = packed;
  assert.deepEqual(files, whitelisted());
  for (const f of files) {
    assert.ok(!/\.(cpp|hpp|h|cc|txt|cmake)$/.test(f), `${f}: no core source`);
    assert.ok(!/(^|\/)(tests?|wasm|bindings|build[^/]*|node_modules)\//.test(f), `${f}: nothing outside the package`);
  }
  for (const must of ['index.d.ts', 'react.d.ts', 'dist/agui_core.wasm', ...Object.keys(await build())]) {
    assert.ok(files.includes(must), `ships ${must}`);
  }
  // The built JavaScript only: src/ lives on in the source maps, the glue inside the chunks.
  assert.deepEqual(
    files.filter((f) => f.startsWith('src/') || f.endsWith('.mjs')),
    [],
  );
  assert.equal(manifest.dependencies, undefined, 'no dependencies: it installs offline');
  assert.ok(files.includes('README.md'), 'ships its README');
});

test('the package README is enough from npm alone: install, example, API, changes, limits, bundlers', () => {
  const readme = fs.readFileSync(path.join(project, 'node_modules', 'agui-client-tools', 'README.md'), 'utf8');
  for (const [what, pattern] of [
    ['the install line', /npm install agui-client-tools/],
    ['the example', /createRuntime\(\{ url:/],
    ['the API table', /\| `runtime\.send\(textOrMessages\)` \|/],
    ['the change kinds', /`text_appended`/],
    ['the limits', /`idleTimeoutMs`/],
    ['the bundler notes', /esbuild/],
  ]) {
    assert.match(readme, pattern, what);
  }
  for (const link of readme.matchAll(/\]\((?!https?:|#)([^)]+)\)/g)) {
    assert.fail(`a relative link that is not in the package: ${link[1]}`);
  }
});

test(
  'installed by name in a fresh project: import("agui-client-tools") runs a one-tool turn',
  { timeout: 60_000 },
  async () => {
    const installed = JSON.parse(
      fs.readFileSync(path.join(project, 'node_modules', 'agui-client-tools', 'package.json'), 'utf8'),
    );
    assert.equal(installed.version, manifest.version);
    fs.writeFileSync(
      path.join(project, 'smoke.mjs'),
      `import { createRuntime, ERROR_CODES, MAX_FRONTEND_TOOL_ROUNDS, browserTools } from 'agui-client-tools';
const url = process.argv[2];
const runtime = await createRuntime({ url, tools: [{
  name: 'get_weather', description: 'weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  handler: ({ city }) => ({ city, sky: 'sunny' }),
}] });
const result = await runtime.send('weather in Paris?');
const messages = runtime.messages;
runtime.dispose();
console.log(JSON.stringify({ result, messages, codes: ERROR_CODES.length, cap: MAX_FRONTEND_TOOL_ROUNDS,
  browserTools: browserTools.all.map((t) => t.name), resolved: import.meta.resolve('agui-client-tools') }));
`,
    );
    const { stdout } = await run(process.execPath, ['smoke.mjs', server.url('one_tool')], {
      cwd: project,
      timeout: 30_000,
    });
    const out = JSON.parse(stdout.trim().split('\n').at(-1));
    assert.deepEqual(out.result, { reason: 'done' });
    const tool = out.messages.find((m) => m.role === 'tool');
    assert.equal(tool.content, '{"city":"Paris","sky":"sunny"}');
    assert.equal(out.messages.at(-1).content, replies.weather(tool));
    assert.equal(out.cap, 5);
    assert.ok(out.codes >= 10);
    assert.equal(out.browserTools.length, 4);
    // Resolved from the consumer's node_modules, through the "node" condition.
    assert.ok(
      fileURLToPath(out.resolved).startsWith(path.join(project, 'node_modules', 'agui-client-tools')),
      out.resolved,
    );
    assert.ok(out.resolved.endsWith('/dist/node.js'), out.resolved);
  },
);

test(
  'bundled for the browser with esbuild: the "node" condition (and node:fs) stays out; sizes',
  { timeout: 60_000 },
  async (t) => {
    const esbuild = await import('esbuild');
    fs.writeFileSync(
      path.join(project, 'browser-entry.js'),
      `import { createRuntime, browserTools } from 'agui-client-tools';
export async function start(url) {
  const runtime = await createRuntime({ url, tools: [browserTools.getCurrentLocation, browserTools.requestUserApproval] });
  runtime.subscribe((change) => console.log(change.kind));
  return runtime.send('Where am I?');
}
`,
    );
    const build = (minify) =>
      esbuild.build({
        absWorkingDir: project,
        entryPoints: ['browser-entry.js'],
        bundle: true,
        platform: 'browser',
        format: 'esm',
        minify,
        write: false,
        metafile: true,
        logLevel: 'silent',
        outdir: path.join(project, 'out'),
      });
    const plain = await build(false);
    const minified = await build(true);
    assert.deepEqual(plain.errors, []);
    const inputs = Object.keys(plain.metafile.inputs);
    assert.ok(
      inputs.some((f) => f.endsWith('agui-client-tools/dist/index.js')),
      `the browser entry is dist/index.js: ${inputs.join(', ')}`,
    );
    assert.ok(!inputs.some((f) => f.endsWith('agui-client-tools/dist/node.js')), 'dist/node.js is not bundled');
    const [bundle] = plain.outputFiles.filter((f) => f.path.endsWith('.js'));
    assert.ok(!/node:fs|readFile\(/.test(bundle.text), 'nothing of node:fs in the browser bundle');
    assert.ok(!/\brequire\(\s*["'](fs|path|node:)/.test(bundle.text), 'no require of node builtins');
    for (const out of Object.values(plain.metafile.outputs)) {
      for (const imp of out.imports ?? [])
        assert.ok(!/^node:|^(fs|path)$/.test(imp.path), `external import ${imp.path}`);
    }
    // The .wasm is referenced by URL next to the glue (bundlers that follow new URL() ship it).
    assert.match(bundle.text, /agui_core\.wasm/);
    assert.match(bundle.text, /wasmBinary/, "Emscripten's glue is bundled (from the package's chunks)");

    // Sizes of what ships, from the installed package.
    const pkg = path.join(project, 'node_modules', 'agui-client-tools');
    const gz = (buf) => zlib.gzipSync(buf, { level: 9 }).length;
    const wasm = fs.readFileSync(path.join(pkg, 'dist', 'agui_core.wasm'));
    const js = Buffer.concat(
      fs
        .readdirSync(path.join(pkg, 'dist'))
        .filter((f) => f.endsWith('.js'))
        .sort()
        .map((f) => fs.readFileSync(path.join(pkg, 'dist', f))),
    );
    const min = minified.outputFiles.find((f) => f.path.endsWith('.js'));
    const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
    const lines = [
      `agui_core.wasm                      ${kb(wasm.length)} raw, ${kb(gz(wasm))} gzip -9`,
      `JS (dist/*.js, minified)           ${kb(js.length)} raw, ${kb(gz(js))} gzip -9`,
      `esbuild browser bundle              ${kb(bundle.contents.length)} raw, ${kb(gz(Buffer.from(bundle.contents)))} gzip -9`,
      `esbuild browser bundle, minified    ${kb(min.contents.length)} raw, ${kb(gz(Buffer.from(min.contents)))} gzip -9`,
      `tarball                             ${kb(fs.statSync(tarball).size)}`,
    ];
    for (const l of lines) t.diagnostic(l);
    assert.ok(wasm.length > 0 && js.length > 0);
  },
);

/** The original position of generated `line` (0-based) and `column`, from a source map's VLQ mappings. */
function originalAt(map, line, column) {
  const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const state = [0, 0, 0]; // source, line, column: deltas run on across generated lines
  let found = null;
  map.mappings.split(';').forEach((segments, genLine) => {
    let genColumn = 0;
    for (const segment of segments ? segments.split(',') : []) {
      const fields = [];
      for (let i = 0, value = 0, shift = 0; i < segment.length; i += 1) {
        const digit = DIGITS.indexOf(segment[i]);
        value += (digit & 31) << shift;
        shift += 5;
        if (!(digit & 32)) {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = shift = 0;
        }
      }
      genColumn += fields[0];
      if (fields.length < 4) continue;
      for (let k = 0; k < 3; k += 1) state[k] += fields[k + 1];
      if (genLine === line && genColumn <= column) found = { source: map.sources[state[0]], line: state[1] };
    }
  });
  return found;
}

test('what ships is src/ minified, each file with a source map that carries src/ and leads back to it', async () => {
  const dist = path.join(project, 'node_modules', 'agui-client-tools', 'dist');
  const shipped = fs.readdirSync(dist).filter((f) => f.endsWith('.js'));
  const sources = fs.readdirSync(path.join(SHIM, 'src')).map((f) => path.join(SHIM, 'src', f));
  const written = [...sources, path.join(SHIM, 'dist', 'agui_core.mjs')].reduce((n, f) => n + fs.statSync(f).size, 0);
  const built = shipped.reduce((n, f) => n + fs.statSync(path.join(dist, f)).size, 0);
  assert.ok(built < 0.6 * written, `minified: ${built} bytes shipped for ${written} written`);
  const mapped = new Set();
  const traced = new Set();
  for (const file of shipped) {
    const text = fs.readFileSync(path.join(dist, file), 'utf8');
    assert.ok(text.endsWith(`//# sourceMappingURL=${file}.map\n`), `${file} names its map`);
    for (const internal of ['describeSafely', 'setBinaryLoader', '// The error the public API throws'])
      assert.ok(!text.includes(internal), `${file}: ${internal} is minified away`);
    const map = JSON.parse(fs.readFileSync(path.join(dist, `${file}.map`), 'utf8'));
    map.sources.forEach((source, i) => {
      assert.match(source, /^(\.\.\/src\/[\w-]+\.js|agui_core\.mjs)$/, `${file}.map: ${source}`);
      assert.equal(
        map.sourcesContent[i],
        fs.readFileSync(path.join(SHIM, 'dist', source), 'utf8'),
        `${file}.map carries ${source}`,
      );
      mapped.add(source);
    });
    // Strings the code holds, each traced back to the line of src/ that wrote it.
    for (const [literal, source, pattern] of [
      ['"AguiError"', '../src/errors.js', /this\.name = 'AguiError'/],
      ['could not reach the agent at', '../src/transport.js', /could not reach the agent at/],
    ]) {
      const at = text.indexOf(literal);
      if (at < 0) continue;
      const line = text.slice(0, at).split('\n').length - 1;
      const origin = originalAt(map, line, at - text.lastIndexOf('\n', at - 1) - 1);
      assert.equal(origin?.source, source, `${file}: ${literal}`);
      assert.match(map.sourcesContent[map.sources.indexOf(source)].split('\n')[origin.line], pattern);
      traced.add(literal);
    }
  }
  const unmapped = sources.map((f) => path.basename(f)).filter((f) => !mapped.has(`../src/${f}`));
  assert.deepEqual(
    unmapped,
    ['react-node.js'],
    'every source with code of its own is in a map (react-node.js only imports)',
  );
  assert.equal(traced.size, 2, 'both strings were traced');
});

test('dist/ is what src/ builds to now; a build older than src/, or a chunk left over, is detected', async () => {
  assert.deepEqual(await staleFiles(), [], 'js-shim/dist is stale: run node js-shim/scripts/build-js.mjs');
  const copy = path.join(work, 'stale-copy');
  fs.cpSync(SHIM, copy, { recursive: true, filter: (src) => !/[\\/]node_modules$/.test(src) });
  fs.appendFileSync(path.join(copy, 'src', 'index.js'), 'export const ADDED_AFTER_THE_BUILD = 1;\n');
  fs.writeFileSync(path.join(copy, 'dist', 'chunk-LEFTOVER.js'), '');
  const stale = await staleFiles(copy);
  assert.ok(stale.includes('dist/index.js'), stale.join(', '));
  assert.ok(stale.includes('dist/chunk-LEFTOVER.js'), stale.join(', '));
  assert.ok(!stale.includes('dist/react.js'), 'an entry that did not change is not reported');
});

test('bundled for node, both entries keep the node loader: "sideEffects" names the files that set it', async () => {
  const esbuild = await import('esbuild');
  for (const entry of ['agui-client-tools', 'agui-client-tools/react']) {
    const { outputFiles, warnings } = await esbuild.build({
      stdin: { contents: `export * from '${entry}';`, resolveDir: project },
      bundle: true,
      platform: 'node',
      format: 'esm',
      external: ['react'],
      write: false,
      logLevel: 'silent',
    });
    assert.deepEqual(warnings, [], entry);
    assert.match(outputFiles[0].text, /from "node:fs\/promises"/, `${entry}: the loader (its readFile) stays`);
  }
});
