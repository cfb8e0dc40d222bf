// The size table (tests/bench/size-table.mjs, issue 23 §3): on the shipped module its figures add up (sections and
// header to the file, function bodies to the code section, groups to the bodies, compression below raw); on a tiny
// module built byte by byte here it finds the imports, bodies, exports, names, groups and typeinfo strings it was
// given, and takes names from a named build only for byte-identical bodies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  DEFAULT_MODULE,
  attachNames,
  groupOf,
  instanceKey,
  isMangledTypeName,
  ownerOf,
  parseWasm,
  sizeTable,
  typeinfoNames,
  withoutBodies,
} from '../bench/size-table.mjs';

const run = promisify(execFile);
const SCRIPT = new URL('../bench/size-table.mjs', import.meta.url).pathname;

// ---- a module by hand -------------------------------------------------------------------------------------------

const leb = (n) => {
  const out = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const str = (s) => [...leb(Buffer.byteLength(s)), ...Buffer.from(s)];
const vec = (items) => [...leb(items.length), ...items.flat()];
const section = (id, payload) => [id, ...leb(payload.length), ...payload];

const TYPE_NAME = 'N4agui6ThreadE';
const DATA_AT = 1024;

/**
 * "\0asm" 1; a type () -> i32; an imported function env.f (index 0); three defined functions (indices 1, 2, 3) whose
 * bodies are `i32.const k` padded with `nop`s to 5, 300 and 8 bytes; the memory; an export "three" of function 3;
 * a data segment at 1024 holding a typeinfo name string and, after it, a word pointing at it; and, when `names`,
 * a "name" section naming functions 1 and 2.
 */
function tinyModule({ names = true, firstBody = 1 } = {}) {
  const body = (k, size) => {
    const code = [0x00, 0x41, k, ...Array(size - 4).fill(0x01), 0x0b]; // no locals, i32.const k, nops, end
    return [...leb(code.length), ...code];
  };
  const data = [...Buffer.from(TYPE_NAME), 0, 0, 0x00, 0x04, 0x00, 0x00]; // name, NUL, pad to 16, the word 1024
  const bytes = [
    0x00,
    0x61,
    0x73,
    0x6d,
    1,
    0,
    0,
    0,
    ...section(1, vec([[0x60, 0, 1, 0x7f]])),
    ...section(2, vec([[...str('env'), ...str('f'), 0, 0]])),
    ...section(3, vec([[0], [0], [0]])),
    ...section(5, vec([[0, 1]])),
    ...section(7, vec([[...str('three'), 0, 3]])),
    ...section(10, vec([body(firstBody, 5), body(2, 300), body(3, 8)])),
    ...section(11, vec([[0, 0x41, ...leb(DATA_AT), 0x0b, ...leb(data.length), ...data]])),
  ];
  if (names) {
    const fnames = vec([
      [1, ...str('agui::Thread::append(nlohmann::json_abi_v3_11_2::basic_json<>)')],
      [2, ...str('nlohmann::json_abi_v3_11_2::basic_json<>::dump(int) const')],
    ]);
    bytes.push(...section(0, [...str('name'), 1, ...leb(fnames.length), ...fnames]));
  }
  return Uint8Array.from(bytes);
}

test('a hand-made module: sections, imported functions, bodies, exports and its name section as built', () => {
  const bytes = tinyModule();
  const mod = parseWasm(bytes);
  assert.deepEqual(
    mod.sections.map((s) => s.kind),
    ['type', 'import', 'function', 'memory', 'export', 'code', 'data', 'custom'],
  );
  assert.equal(mod.sections.at(-1).name, 'name');
  assert.equal(8 + mod.sections.reduce((n, s) => n + s.bytes, 0), bytes.length);
  assert.equal(mod.importedFunctions, 1);
  assert.deepEqual(
    mod.functions.map((f) => [f.index, f.bytes]),
    [
      [1, 6],
      [2, 302],
      [3, 9],
    ],
  ); // each body plus its size prefix (1 byte, 2 for the 300-byte body)
  const code = mod.sections.find((s) => s.kind === 'code');
  assert.equal(mod.codeCountBytes + mod.functions.reduce((n, f) => n + f.bytes, 0), code.payload);
  assert.equal(mod.exports.get(3), 'three');
  assert.equal(mod.names.size, 2);
  const naming = attachNames(mod);
  assert.equal(naming.source, 'own name section');
  assert.deepEqual(
    mod.functions.map((f) => [f.name, groupOf(f.name)]),
    [
      ['agui::Thread::append(nlohmann::json_abi_v3_11_2::basic_json<>)', 'core: wasm/protocol'],
      ['nlohmann::json_abi_v3_11_2::basic_json<>::dump(int) const', 'nlohmann_json'],
      ['export "three"', 'exported (no name section)'],
    ],
  );
  assert.deepEqual(
    mod.dataSegments.map((s) => [s.address, s.bytes]),
    [[DATA_AT, TYPE_NAME.length + 6]],
  );
  const rtti = typeinfoNames(mod);
  assert.deepEqual(rtti.strings, [TYPE_NAME]);
  assert.equal(rtti.bytes, TYPE_NAME.length + 1);
  assert.equal(rtti.objects, 1); // the aligned word 1024 after it
});

test('a hand-made module: the table sorts its functions by size and sums its groups to the code section', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'size-table-'));
  try {
    const file = path.join(dir, 'tiny.wasm');
    fs.writeFileSync(file, tinyModule());
    const t = sizeTable({ file, top: 2, withPackage: false });
    assert.deepEqual(
      t.largest.map((f) => [f.index, f.bytes, f.group]),
      [
        [2, 302, 'nlohmann_json'],
        [3, 9, 'exported (no name section)'],
      ],
    );
    assert.equal(t.groups.reduce((n, g) => n + g.bytes, 0) + t.codeCountBytes, t.codeBytes);
    assert.equal(t.groups[0].group, 'nlohmann_json');
    assert.equal(t.groups[0].share, 302 / t.codeBytes);
    // --drop: the 300-byte body made `unreachable` (4 bytes with its prefix): 298 bytes less, and the code
    // section's size now fits one LEB128 byte instead of two; still a valid module
    const dropped = sizeTable({ file, top: 0, withPackage: false, drop: ['nlohmann_json'] }).dropped;
    assert.equal(dropped.functions, 1);
    assert.equal(dropped.raw, 302 - 4 + 1);
    const mod = parseWasm(fs.readFileSync(file));
    const smaller = withoutBodies(fs.readFileSync(file), mod, (f) => f.index === 2);
    assert.ok(WebAssembly.validate(smaller));
    assert.deepEqual(
      parseWasm(smaller).functions.map((f) => f.bytes),
      [6, 4, 9],
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A module of functions () -> i32 given as {name, calls, pad, text} in `order`: each body calls its callees
 * (dropping their results), takes the address of its `text` when it has one, then returns a constant, padded with
 * `nop`s; the texts in one data segment at 1024 + `dataAt`; names in a name section when `names`.
 */
function callGraphModule(fns, order, { names, dataAt = 0 }) {
  const index = new Map(order.map((n, i) => [n, i]));
  const byName = new Map(fns.map((f) => [f.name, f]));
  const texts = fns.filter((f) => f.text).map((f) => f.text);
  const data = [...Array(dataAt).fill(0x2e), ...texts.flatMap((t) => [...Buffer.from(t), 0])];
  const addressOf = (t) => 1024 + dataAt + texts.slice(0, texts.indexOf(t)).reduce((n, x) => n + x.length + 1, 0);
  const bodies = order.map((n) => {
    const f = byName.get(n);
    const code = [
      0x00,
      ...f.calls.flatMap((c) => [0x10, ...leb(index.get(c)), 0x1a]),
      ...(f.text ? [0x41, ...leb(addressOf(f.text)), 0x1a] : []),
      0x41,
      7,
      ...Array(f.pad).fill(0x01),
      0x0b,
    ];
    return [...leb(code.length), ...code];
  });
  const bytes = [0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0];
  bytes.push(...section(1, vec([[0x60, 0, 1, 0x7f]])));
  bytes.push(...section(3, vec(order.map(() => [0]))));
  bytes.push(...section(5, vec([[0, 1]])));
  bytes.push(...section(10, vec(bodies)));
  bytes.push(...section(11, vec([[0, 0x41, ...leb(1024), 0x0b, ...leb(data.length), ...data]])));
  if (names) {
    const fnames = vec(order.map((n, i) => [...leb(i), ...str(n)]));
    bytes.push(...section(0, [...str('name'), 1, ...leb(fnames.length), ...fnames]));
  }
  return Uint8Array.from(bytes);
}

test('names come from a named build that numbers the same functions differently, by shape and call graph', () => {
  // q and s are the same leaf; only their callers (p, r: different sizes) tell them apart.
  const fns = [
    { name: 'p', calls: ['q'], pad: 3 },
    { name: 'q', calls: [], pad: 10 },
    { name: 'r', calls: ['s', 's'], pad: 1 },
    { name: 's', calls: [], pad: 10 },
  ];
  const shipped = parseWasm(callGraphModule(fns, ['p', 'q', 'r', 's'], { names: false }));
  const named = parseWasm(callGraphModule(fns, ['s', 'r', 'q', 'p'], { names: true }));
  const naming = attachNames(shipped, named);
  assert.equal(naming.source, 'named build, the same code renumbered (matched by shape and calls)');
  assert.deepEqual(
    shipped.functions.map((f) => f.name),
    ['p', 'q', 'r', 's'],
  );
  // r calling s once, not twice, in the named build: r differs, and s is no longer told apart from q
  const other = parseWasm(
    callGraphModule(
      fns.map((f) => (f.name === 'r' ? { ...f, calls: ['s'] } : f)),
      ['s', 'r', 'q', 'p'],
      { names: true },
    ),
  );
  const again = parseWasm(callGraphModule(fns, ['p', 'q', 'r', 's'], { names: false }));
  attachNames(again, other);
  assert.equal(again.functions[2].name, null, 'r changed: unnamed');
});

test('a string moved in the data does not stop a body pairing; a different string does', () => {
  // u and v differ only in the text whose address they take; the named build has 40 bytes more before the texts
  const fns = [
    { name: 'u', calls: [], pad: 4, text: 'first text' },
    { name: 'v', calls: [], pad: 4, text: 'second text' },
  ];
  const shipped = parseWasm(callGraphModule(fns, ['u', 'v'], { names: false }));
  const named = parseWasm(callGraphModule(fns, ['v', 'u'], { names: true, dataAt: 40 }));
  assert.equal(named.dataSegments[0].bytes, shipped.dataSegments[0].bytes + 40);
  attachNames(shipped, named);
  assert.deepEqual(
    shipped.functions.map((f) => f.name),
    ['u', 'v'],
  );
  const edited = parseWasm(
    callGraphModule(
      fns.map((f) => (f.name === 'u' ? { ...f, text: 'first, edited' } : f)),
      ['v', 'u'],
      { names: true, dataAt: 40 },
    ),
  );
  const again = parseWasm(callGraphModule(fns, ['u', 'v'], { names: false }));
  attachNames(again, edited);
  assert.deepEqual(
    again.functions.map((f) => f.name),
    [null, 'v'],
  );
});

test('a body that differs from the named build stays unnamed; identical ones keep their names', () => {
  const same = parseWasm(tinyModule({ names: false }));
  assert.equal(attachNames(same, parseWasm(tinyModule())).source, 'named build, every body identical');
  assert.deepEqual(
    same.functions.map((f) => f.name),
    [
      'agui::Thread::append(nlohmann::json_abi_v3_11_2::basic_json<>)',
      'nlohmann::json_abi_v3_11_2::basic_json<>::dump(int) const',
      'export "three"',
    ],
  );
  // The first body differs (i32.const 9): it stays unnamed; the identical second one keeps its name.
  const changed = parseWasm(tinyModule({ names: false, firstBody: 9 }));
  const naming = attachNames(changed, parseWasm(tinyModule()));
  assert.equal(naming.source, 'named build, the same code renumbered (matched by shape and calls)');
  assert.deepEqual(
    changed.functions.map((f) => f.name),
    [null, 'nlohmann::json_abi_v3_11_2::basic_json<>::dump(int) const', 'export "three"'],
  );
  assert.equal(naming.matched, 2);
  const bare = parseWasm(tinyModule({ names: false }));
  assert.equal(attachNames(bare).source, 'none');
  assert.equal(groupOf(bare.functions[0].name), 'unnamed');
});

test('demangled names are grouped by what they belong to, not by their return type or arguments', () => {
  assert.equal(
    ownerOf('void std::__2::vector<int, std::__2::allocator<int> >::push_back(int&&)'),
    'std::__2::vector::push_back',
  );
  assert.equal(
    ownerOf('agui::(anonymous namespace)::digits(std::__2::basic_string_view<char>, unsigned long&)'),
    'agui::{anon}::digits',
  );
  assert.equal(
    ownerOf('std::__2::basic_ostream<char>& std::__2::operator<<<std::__2::char_traits<char> >(char const*)'),
    'std::__2::operator',
  );
  assert.equal(ownerOf('operator new(unsigned long)'), 'operator new');
  assert.equal(groupOf('emscripten::internal::Invoker<agui::Thread*>::invoke(agui::Thread* (*)())'), 'embind');
  assert.equal(
    groupOf('std::__2::basic_regex<char, std::__2::regex_traits<char> >::__parse(char const*)'),
    'std::regex',
  );
  assert.equal(
    groupOf('void std::__2::vector<nlohmann::json_abi_v3_11_2::basic_json<> >::push_back(int)'),
    'libc++ on nlohmann_json types',
  );
  assert.equal(groupOf('std::__2::basic_string<char>::append(char const*)'), 'libc++ other');
  assert.equal(groupOf('printf_core'), 'libc printf');
  assert.equal(groupOf('__divtf3'), 'compiler-rt long double (soft float)');
  assert.equal(
    groupOf('byn$mgfn-shared$nlohmann::json_abi_v3_11_2::detail::parser<int>::parse(bool)'),
    'nlohmann_json',
  );
  assert.equal(
    instanceKey('void std::__2::vector<int, std::__2::allocator<int> >::push_back(int&&)'),
    'std::__2::vector::push_back',
  );
  assert.equal(instanceKey('agui::f(int)::$_0::operator()(int) const'), 'agui::f::$_0::operator()');
  assert.equal(instanceKey('operator delete[](void*)'), 'operator delete[]');
  assert.equal(groupOf('__floatscan'), 'libc float/int scanning (strtod)');
  assert.equal(groupOf('__dynamic_cast'), 'RTTI (type_info, dynamic_cast)');
  assert.equal(groupOf('__cxa_throw'), 'C++ exception runtime');
  assert.equal(groupOf('std::__2::locale::id::__get()'), 'libc++ iostream/locale');
  assert.equal(groupOf('memcpy'), 'libc, compiler-rt, other C');
  assert.equal(groupOf('agui::EventReducer::apply(int)'), 'core: wasm/protocol');
  assert.equal(groupOf('agui::schema_detail::Compiler::compile()'), 'core: wasm/schema');
  assert.ok(isMangledTypeName('St9exception'));
  assert.ok(isMangledTypeName('NSt3__212basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEE'));
  for (const notType of ['hello', 'n2', 'content-type', '2024-01-01', 'abc123'])
    assert.ok(!isMangledTypeName(notType), notType);
});

// ---- the shipped module -----------------------------------------------------------------------------------------

test('the shipped module: sections and header make the file, bodies make the code section, compressed is smaller', async () => {
  assert.ok(fs.existsSync(DEFAULT_MODULE), `${DEFAULT_MODULE} is missing: build the module first (docs/building.md)`);
  const { stdout } = await run(process.execPath, [SCRIPT, '--json', '--top=5'], { maxBuffer: 64 << 20 });
  const t = JSON.parse(stdout);
  assert.equal(t.size, fs.statSync(DEFAULT_MODULE).size);
  assert.equal(8 + t.sections.reduce((n, s) => n + s.bytes, 0), t.size);
  const code = t.sections.find((s) => s.kind === 'code');
  assert.equal(t.codeBytes, code.payload);
  assert.equal(t.functionBytes + t.codeCountBytes, t.codeBytes);
  assert.equal(
    t.groups.reduce((n, g) => n + g.bytes, 0),
    t.functionBytes,
  );
  assert.ok(t.functions > 100, `${t.functions} function bodies`);
  assert.equal(t.largest.length, 5);
  for (let i = 1; i < 5; i += 1) assert.ok(t.largest[i - 1].bytes >= t.largest[i].bytes);
  assert.equal(t.sizes.wasm.raw, t.size);
  for (const m of [t.sizes.wasm, t.sizes.js.total, t.sizes.total]) {
    assert.ok(m.gzip < m.raw, 'gzip below raw');
    assert.ok(m.brotli < m.raw, 'brotli below raw');
  }
  assert.ok(t.sizes.js.files.some((f) => f.file.endsWith('dist/index.js')));
  assert.ok(
    t.sizes.js.files.every((f) => /^js-shim\/dist\/[\w-]+\.js$/.test(f.file)),
    'what ships: dist/*.js',
  );
  assert.equal(t.sizes.total.gzip, t.sizes.wasm.gzip + t.sizes.js.total.gzip);
});

// What the package may weigh, gzip -9, each file alone (the bench's measure). Set at issue 23's close a little
// above what ships, so that a change which brings a piece of libc or a template family back fails here; raising it
// is a decision with its measured reason in docs/size.md.
const BUDGET = { wasm: 127_000, js: 32_000 };

test('the shipped package stays within its size budget', async () => {
  const { stdout } = await run(process.execPath, [SCRIPT, '--json', '--top=1'], { maxBuffer: 64 << 20 });
  const { sizes } = JSON.parse(stdout);
  assert.ok(sizes.wasm.gzip <= BUDGET.wasm, `agui_core.wasm: ${sizes.wasm.gzip} B gzipped, budget ${BUDGET.wasm} B`);
  assert.ok(sizes.js.total.gzip <= BUDGET.js, `dist/*.js: ${sizes.js.total.gzip} B gzipped, budget ${BUDGET.js} B`);
});

test('the command prints the table and refuses a missing module with a message saying so', async () => {
  const { stdout } = await run(process.execPath, [SCRIPT, '--top=3'], { maxBuffer: 16 << 20 });
  assert.match(stdout, /gzip -9\s+brotli 11/);
  assert.match(stdout, /^code\s+\d+/m);
  assert.match(stdout, /largest 3 functions/);
  await assert.rejects(run(process.execPath, [SCRIPT, '/nonexistent/agui_core.wasm']), (e) => {
    assert.equal(e.code, 1);
    assert.match(e.stderr, /no such file/);
    return true;
  });
});
