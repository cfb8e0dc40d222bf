// The error codes are defined once, in wasm/error.hpp; this keeps their two
// mirrors in step: ERROR_CODES exported by the package, and the ErrorCode union
// in js-shim/index.d.ts. The core's own list comes from the built module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { loadCore } from '../../js-shim/src/core.js';
import { ERROR_CODES, AguiError } from '../../js-shim/src/node.js';

const read = (rel) => fs.readFileSync(new URL(rel, import.meta.url), 'utf8');

async function coreCodes() {
  const module = await loadCore({ wasm: fs.readFileSync(new URL('../../js-shim/dist/agui_core.wasm', import.meta.url)) });
  return JSON.parse(module.errorCodes());
}

/** The string literals of `export type ErrorCode = | 'a' | 'b' ...;` in the .d.ts. */
function dtsCodes() {
  const text = read('../../js-shim/index.d.ts');
  const m = /export\s+type\s+ErrorCode\s*=([^;]*);/.exec(text);
  assert.ok(m, 'index.d.ts declares `export type ErrorCode = ...;`');
  const body = m[1].replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, '');
  const literals = [...body.matchAll(/'([^']*)'|"([^"]*)"/g)].map((x) => x[1] ?? x[2]);
  // Nothing else in the union: only literals joined by |.
  assert.equal(body.replace(/'[^']*'|"[^"]*"/g, '').replace(/[\s|]/g, ''), '', 'ErrorCode is a union of string literals only');
  return literals;
}

/** The wire names in AGUI_ERROR_CODES(X) of wasm/error.hpp (the one definition). */
function headerCodes() {
  const text = read('../../wasm/error.hpp');
  return [...text.matchAll(/X\(\s*k\w+\s*,\s*"([^"]+)"\s*\)/g)].map((x) => x[1]);
}

test('the core module, ERROR_CODES and the .d.ts ErrorCode union list the same codes in the same order', async () => {
  const fromCore = await coreCodes();
  assert.ok(Array.isArray(fromCore) && fromCore.length >= 10, `module.errorCodes(): ${fromCore}`);
  assert.deepEqual([...ERROR_CODES], fromCore, 'ERROR_CODES (js-shim/src/errors.js) mirrors the core');
  assert.deepEqual(dtsCodes(), fromCore, 'ErrorCode (js-shim/index.d.ts) mirrors the core');
  assert.equal(new Set(fromCore).size, fromCore.length, 'no duplicates');
});

test('the built module matches its source: wasm/error.hpp lists the same codes', async () => {
  assert.deepEqual(headerCodes(), await coreCodes(), 'rebuild js-shim/dist if this fails');
});

test('ERROR_CODES is frozen, and AguiError carries a code from it', () => {
  assert.ok(Object.isFrozen(ERROR_CODES));
  assert.throws(() => ERROR_CODES.push('new_code'));
  const e = new AguiError('invalid_state', 'x');
  assert.ok(e instanceof Error);
  assert.equal(e.name, 'AguiError');
  assert.ok(ERROR_CODES.includes(e.code));
});

test('the .d.ts parser really parses: a drifted union is caught', () => {
  // The parser above, on a union that lost one code and gained a typo.
  const drifted = "export type ErrorCode =\n  | 'invalid_tool'\n  // a comment\n  | 'duplicat_tool';";
  const m = /export\s+type\s+ErrorCode\s*=([^;]*);/.exec(drifted);
  const codes = [...m[1].replace(/\/\/[^\n]*/g, '').matchAll(/'([^']*)'/g)].map((x) => x[1]);
  assert.deepEqual(codes, ['invalid_tool', 'duplicat_tool']);
  assert.notDeepEqual(codes, [...ERROR_CODES]);
});
