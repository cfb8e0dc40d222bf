// The core's vocabularies are defined once, in C++: the error codes in
// wasm/common/error.hpp, the change kinds and problem codes in
// wasm/protocol/kinds.hpp, the round cap in wasm/client/driver_options.hpp. This
// keeps their mirrors in step: ERROR_CODES and MAX_FRONTEND_TOOL_ROUNDS exported
// by the package, and the ErrorCode, ProblemCode and Change types of
// js-shim/index.d.ts. The core's own lists come from the built module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { ERROR_CODES, AguiError, MAX_FRONTEND_TOOL_ROUNDS, init } from 'agui-client-tools';

const read = (rel) => fs.readFileSync(new URL(rel, import.meta.url), 'utf8');

const core = () => init({ wasm: fs.readFileSync(new URL('../../js-shim/dist/agui_core.wasm', import.meta.url)) });
const coreCodes = async () => JSON.parse((await core()).errorCodes());

/** The string literals of `export type <name> = | 'a' | 'b' ...;` in a .d.ts text. */
function unionLiterals(text, name) {
  const m = new RegExp(`export\\s+type\\s+${name}\\s*=([^;]*);`).exec(text);
  assert.ok(m, `the .d.ts declares \`export type ${name} = ...;\``);
  const body = m[1].replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, '');
  // Nothing else in the union: only literals joined by |.
  assert.equal(
    body.replace(/'[^']*'|"[^"]*"/g, '').replace(/[\s|]/g, ''),
    '',
    `${name} is a union of string literals only`,
  );
  return [...body.matchAll(/'([^']*)'|"([^"]*)"/g)].map((x) => x[1] ?? x[2]);
}

const dts = () => read('../../js-shim/index.d.ts');
const dtsCodes = () => unionLiterals(dts(), 'ErrorCode');

/** The wire names in AGUI_ERROR_CODES(X) of wasm/common/error.hpp (the one definition). */
const headerCodes = () => headerList('../../wasm/common/error.hpp', 'AGUI_ERROR_CODES');

test('the core module, ERROR_CODES and the .d.ts ErrorCode union list the same codes in the same order', async () => {
  const fromCore = await coreCodes();
  assert.ok(Array.isArray(fromCore) && fromCore.length >= 10, `module.errorCodes(): ${fromCore}`);
  assert.deepEqual([...ERROR_CODES], fromCore, 'ERROR_CODES (js-shim/src/errors.js) mirrors the core');
  assert.deepEqual(dtsCodes(), fromCore, 'ErrorCode (js-shim/index.d.ts) mirrors the core');
  assert.equal(new Set(fromCore).size, fromCore.length, 'no duplicates');
});

test('the built module matches its source: wasm/common/error.hpp lists the same codes', async () => {
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
  const codes = unionLiterals(drifted, 'ErrorCode');
  assert.deepEqual(codes, ['invalid_tool', 'duplicat_tool']);
  assert.notDeepEqual(codes, [...ERROR_CODES]);
});

const vocabulary = async () => JSON.parse((await core()).vocabulary());
/** X(kName, "wire") entries of one X-macro list in a header. */
function headerList(rel, macro) {
  const text = read(rel);
  const start = text.indexOf(`#define ${macro}(X)`);
  assert.ok(start >= 0, `${rel} defines ${macro}`);
  const block = text.slice(start, text.indexOf('\n\n', start));
  return [...block.matchAll(/X\(\s*k\w+\s*,\s*"([^"]+)"\s*\)/g)].map((x) => x[1]);
}
// Change kinds the shim itself delivers (the request body as it goes out, a tool set's edit).
const SHIM_KINDS = ['request', 'tools_changed', 'storage_failed', 'role_changed'];

test("the .d.ts ProblemCode union lists the core's problem codes in order, and the header is what was built", async () => {
  const { problemCodes } = await vocabulary();
  assert.ok(problemCodes.length >= 20, `vocabulary().problemCodes: ${problemCodes}`);
  assert.deepEqual(
    unionLiterals(dts(), 'ProblemCode'),
    problemCodes,
    'ProblemCode (js-shim/index.d.ts) mirrors the core',
  );
  assert.deepEqual(
    headerList('../../wasm/protocol/kinds.hpp', 'AGUI_PROBLEM_CODES'),
    problemCodes,
    'rebuild js-shim/dist if this fails',
  );
});

test("the .d.ts ToolCallState union lists the core's call states in order", async () => {
  const { callStates } = await vocabulary();
  assert.deepEqual(headerList('../../wasm/protocol/kinds.hpp', 'AGUI_CALL_STATES'), callStates, 'rebuild js-shim/dist');
  assert.deepEqual(unionLiterals(dts(), 'ToolCallState'), callStates, 'ToolCallState (js-shim/index.d.ts)');
});

test("the .d.ts Change union has one member per core change kind, plus the shim's own", async () => {
  const { changeKinds } = await vocabulary();
  assert.deepEqual(
    headerList('../../wasm/protocol/kinds.hpp', 'AGUI_CHANGE_KINDS'),
    changeKinds,
    'rebuild js-shim/dist if this fails',
  );
  const text = dts();
  const start = text.indexOf('export type Change =');
  const change = text.slice(start, text.indexOf('| Problem;', start) + '| Problem;'.length);
  const problem = /export\s+interface\s+Problem\s*\{([\s\S]*?)\n\}/.exec(text)[1];
  const kinds = [...`${change}\n${problem}`.matchAll(/kind:\s*'([^']+)'/g)].map((x) => x[1]);
  assert.ok(/\|\s*Problem\b/.test(change), 'Change includes Problem');
  assert.deepEqual([...kinds].sort(), [...changeKinds, ...SHIM_KINDS].sort());
  assert.equal(new Set(kinds).size, kinds.length, 'no kind listed twice');
});

test("MAX_FRONTEND_TOOL_ROUNDS in index.js and the .d.ts is the core's default round cap", async () => {
  const { maxFrontendToolRounds } = await vocabulary();
  assert.equal(MAX_FRONTEND_TOOL_ROUNDS, maxFrontendToolRounds);
  const declared = /export const MAX_FRONTEND_TOOL_ROUNDS:\s*(\d+);/.exec(dts());
  assert.equal(Number(declared?.[1]), maxFrontendToolRounds);
});
