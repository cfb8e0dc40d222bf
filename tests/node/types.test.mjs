// Proves js-shim/index.d.ts with the TypeScript compiler: tests/types/example.ts
// (the whole public API, typed) must compile, and tests/types/wrong.ts.txt (one
// deliberate mistake per `// WRONG` line) must fail on exactly those lines, so the
// check is known to be able to fail. Same as `npx tsc -p tests/types --noEmit`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TESTS = fileURLToPath(new URL('..', import.meta.url));
const TSC = path.join(TESTS, 'node_modules', 'typescript', 'bin', 'tsc');
const DTS = fileURLToPath(new URL('../../js-shim/index.d.ts', import.meta.url));

function tsc(project) {
  const r = spawnSync(process.execPath, [TSC, '-p', project, '--noEmit', '--pretty', 'false'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

test('tests/types/example.ts compiles against js-shim/index.d.ts', { timeout: 60_000 }, () => {
  const tsconfig = fs.readFileSync(path.join(TESTS, 'types', 'tsconfig.json'), 'utf8');
  assert.match(
    tsconfig,
    /"agui-client-tools":\s*\["\.\.\/\.\.\/js-shim\/index\.d\.ts"\]/,
    'the package name maps to the .d.ts',
  );
  const { status, output } = tsc(path.join(TESTS, 'types'));
  assert.equal(status, 0, `tsc failed:\n${output}`);
});

test('a deliberately wrong file fails to compile, on every WRONG line and nowhere else', { timeout: 60_000 }, (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agui-types-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const source = fs.readFileSync(path.join(TESTS, 'types', 'wrong.ts.txt'), 'utf8');
  fs.writeFileSync(path.join(dir, 'wrong.ts'), source);
  const example = JSON.parse(
    fs.readFileSync(path.join(TESTS, 'types', 'tsconfig.json'), 'utf8').replace(/^\s*\/\/.*$/gm, ''),
  );
  example.compilerOptions.paths = { 'agui-client-tools': [DTS] };
  example.compilerOptions.noUnusedLocals = false;
  example.files = ['wrong.ts'];
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(example, null, 2));

  const { status, output } = tsc(dir);
  assert.notEqual(status, 0, 'tsc must reject wrong.ts');
  // The line after each `// WRONG` comment is where an error is due (1-based).
  const lines = source.split('\n');
  const due = lines.flatMap((l, i) => (/^\s*\/\/ WRONG:/.test(l) ? [i + 2] : []));
  const got = [...new Set([...output.matchAll(/wrong\.ts\((\d+),\d+\): error TS\d+/g)].map((m) => Number(m[1])))];
  assert.ok(due.length >= 5, `${due.length} deliberate mistakes`);
  assert.deepEqual(
    got.sort((a, b) => a - b),
    due,
    `errors on exactly the WRONG lines:\n${output}`,
  );
});

// The React usage a developer copies from the READMEs (the package's and the top-level one)
// compiles, strict, against the .d.ts files: the READMEs cannot drift from the API.
test('the React usage in both READMEs compiles against react.d.ts', { timeout: 60_000 }, (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agui-readme-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const config = JSON.parse(
    fs.readFileSync(path.join(TESTS, 'types', 'tsconfig.json'), 'utf8').replace(/^\s*\/\/.*$/gm, ''),
  );
  const typesDir = path.join(TESTS, 'types');
  for (const [name, target] of Object.entries(config.compilerOptions.paths)) {
    config.compilerOptions.paths[name] = target.map((p) => path.resolve(typesDir, p));
  }
  config.compilerOptions.noUnusedLocals = false; // a snippet defines App without mounting it
  config.files = [];
  for (const readme of ['../../README.md', '../../js-shim/README.md']) {
    const text = fs.readFileSync(fileURLToPath(new URL(readme, import.meta.url)), 'utf8');
    const blocks = [...text.matchAll(/```jsx\n([\s\S]*?)```/g)].map((m) => m[1]);
    assert.equal(blocks.length, 1, `${readme} has its React usage`);
    const file = `${path.basename(path.dirname(path.resolve(readme)))}-readme.tsx`;
    // As a user's JavaScript: the snippet's own props are untyped.
    fs.writeFileSync(path.join(dir, file), blocks[0].replace(/\(\{ id \}\)/g, '({ id }: { id: string })'));
    config.files.push(file);
  }
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config, null, 2));
  const { status, output } = tsc(dir);
  assert.equal(status, 0, `tsc failed on a README's React usage:\n${output}`);
});
