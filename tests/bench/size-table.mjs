// What the package's bytes are made of (issue 23 §3): the .wasm and the JS raw, gzipped and brotli'd, the module's
// sections, its largest functions by body size, and the code section grouped by what the function names show
// (nlohmann_json, embind, libc++ and libc pieces, RTTI, the core's own folders). Reads the wasm binary itself (no
// wabt, no dependency); see docs/size.md for the figures and how to read them.
//
//   node tests/bench/size-table.mjs [MODULE.wasm] [--names=NAMED.wasm] [--top=N] [--drop=GROUP ...] [--json]
//
// --drop=GROUP (repeatable, a group's name as printed): also print what the module loses, raw, gzipped and brotli'd,
// with those groups' function bodies replaced by `unreachable`: what removing that code alone would save.
//
// MODULE defaults to js-shim/dist/agui_core.wasm. Function names come from MODULE's own "name" section when it has
// one; the shipped MinSizeRel module has none, so pass --names= a build of the same commit linked with
// --profiling-funcs (same code, plus a name section). wasm-opt numbers that build's functions differently, so they
// are paired by code (matchFunctions): a name is used only for a body that is the same code as MODULE's once
// renumbered, never guessed; anything else prints as "unnamed". To make that build without touching the shared
// tree (2 shared cores: -j1):
//   git worktree add --detach /tmp/size-wt HEAD
//   NODE_PATH=/usr/share/nodejs emcmake cmake -S /tmp/size-wt -B /tmp/size-wt/build-wasm \
//     -DCMAKE_BUILD_TYPE=MinSizeRel -DAGUI_BUILD_TESTS=OFF -DCMAKE_EXE_LINKER_FLAGS=--profiling-funcs
//   cmake --build /tmp/size-wt/build-wasm --target agui_core_module -j1
//   node tests/bench/size-table.mjs --names=/tmp/size-wt/js-shim/dist/agui_core.wasm
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SHIM = path.join(ROOT, 'js-shim');
export const DEFAULT_MODULE = path.join(SHIM, 'dist', 'agui_core.wasm');

// ---------------------------------------------------------------------------------------------------------------
// The binary format (WebAssembly core spec §5): "\0asm", version 1, then sections: an id byte, a LEB128 size, the
// payload. Functions are indexed imports first, then the code section's bodies in order.

const SECTION_NAMES = [
  'custom',
  'type',
  'import',
  'function',
  'table',
  'memory',
  'global',
  'export',
  'start',
  'elem',
  'code',
  'data',
  'datacount',
  'tag',
];

/** An unsigned LEB128 at bytes[pos]: [value, position after it]. */
export function readLeb(bytes, pos) {
  let value = 0;
  let scale = 1;
  for (;;) {
    if (pos >= bytes.length) throw new Error(`truncated LEB128 at byte ${pos}`);
    const b = bytes[pos++];
    value += (b & 0x7f) * scale;
    scale *= 128;
    if (!(b & 0x80)) return [value, pos];
  }
}

function readName(bytes, pos) {
  const [len, p] = readLeb(bytes, pos);
  return [Buffer.from(bytes.subarray(p, p + len)).toString('utf8'), p + len];
}

function skipLimits(bytes, p) {
  const flags = bytes[p++];
  [, p] = readLeb(bytes, p);
  if (flags & 1) [, p] = readLeb(bytes, p);
  return p;
}

/**
 * Parses a module's layout. Returns {size, sections: [{id, kind, name, offset, bytes, payload}], importedFunctions,
 * functions: [{index, offset, bytes, body}], names: Map(index → name), exports: Map(index → export name),
 * dataSegments: [{offset, bytes}]}. A section's `bytes` counts its id and size bytes too, so the sections and the
 * 8-byte header sum to the file; a function's `bytes` counts its size prefix too, so the functions and the count in
 * front of them sum to the code section's payload.
 */
export function parseWasm(input) {
  const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
  const magic = [0x00, 0x61, 0x73, 0x6d];
  if (bytes.length < 8 || magic.some((b, i) => bytes[i] !== b)) throw new Error('not a wasm module (no \\0asm magic)');
  const version = bytes[4] | (bytes[5] << 8) | (bytes[6] << 16) | (bytes[7] << 24);
  if (version !== 1) throw new Error(`unsupported wasm version ${version}`);
  const out = {
    size: bytes.length,
    sections: [],
    importedFunctions: 0,
    functions: [],
    codeCountBytes: 0,
    names: new Map(),
    moduleName: null,
    exports: new Map(),
    types: [], // each type's signature, e.g. "7f7f>7f"
    functionTypes: [], // each function's type index, imports first
    dataSegments: [],
  };
  let pos = 8;
  while (pos < bytes.length) {
    const offset = pos;
    const id = bytes[pos++];
    let payload;
    [payload, pos] = readLeb(bytes, pos);
    const start = pos;
    const end = start + payload;
    if (end > bytes.length) throw new Error(`section ${id} at byte ${offset} runs past the end of the file`);
    const section = {
      id,
      kind: SECTION_NAMES[id] ?? `unknown(${id})`,
      name: null,
      offset,
      bytes: end - offset,
      payload,
    };
    if (id === 0) {
      let p;
      [section.name, p] = readName(bytes, start);
      if (section.name === 'name') readNameSection(bytes, p, end, out);
    } else if (id === 2) {
      readImports(bytes, start, out);
    } else if (id === 1) {
      readTypes(bytes, start, out);
    } else if (id === 3) {
      let count;
      let p;
      [count, p] = readLeb(bytes, start);
      for (let i = 0; i < count; i += 1) {
        let type;
        [type, p] = readLeb(bytes, p);
        out.functionTypes.push(type);
      }
    } else if (id === 7) {
      readExports(bytes, start, out);
    } else if (id === 10) {
      readCode(bytes, start, end, out);
    } else if (id === 11) {
      readData(bytes, start, out);
    }
    out.sections.push(section);
    pos = end;
  }
  return out;
}

function readTypes(bytes, p, out) {
  let count;
  [count, p] = readLeb(bytes, p);
  for (let i = 0; i < count; i += 1) {
    if (bytes[p++] !== 0x60) throw new Error(`type ${i} is not a function type`);
    let n;
    [n, p] = readLeb(bytes, p);
    const params = Buffer.from(bytes.subarray(p, p + n)).toString('hex');
    p += n;
    [n, p] = readLeb(bytes, p);
    const results = Buffer.from(bytes.subarray(p, p + n)).toString('hex');
    p += n;
    out.types.push(`${params}>${results}`);
  }
}

function readImports(bytes, p, out) {
  let count;
  [count, p] = readLeb(bytes, p);
  for (let i = 0; i < count; i += 1) {
    [, p] = readName(bytes, p); // module
    [, p] = readName(bytes, p); // field
    const kind = bytes[p++];
    if (kind === 0) {
      out.importedFunctions += 1;
      let type;
      [type, p] = readLeb(bytes, p);
      out.functionTypes.push(type);
    } else if (kind === 1) {
      p = skipLimits(bytes, p + 1); // reftype, limits
    } else if (kind === 2) {
      p = skipLimits(bytes, p);
    } else if (kind === 3) {
      p += 2; // valtype, mutability
    } else if (kind === 4) {
      [, p] = readLeb(bytes, p + 1); // attribute, type index
    } else throw new Error(`unknown import kind ${kind}`);
  }
}

function readExports(bytes, p, out) {
  let count;
  [count, p] = readLeb(bytes, p);
  for (let i = 0; i < count; i += 1) {
    let name;
    let index;
    [name, p] = readName(bytes, p);
    const kind = bytes[p++];
    [index, p] = readLeb(bytes, p);
    if (kind === 0 && !out.exports.has(index)) out.exports.set(index, name);
  }
}

function readCode(bytes, start, end, out) {
  let count;
  let p;
  [count, p] = readLeb(bytes, start);
  out.codeCountBytes = p - start;
  for (let i = 0; i < count; i += 1) {
    const offset = p;
    let len;
    [len, p] = readLeb(bytes, p);
    out.functions.push({
      index: out.importedFunctions + i,
      offset,
      bytes: p - offset + len,
      body: bytes.subarray(p, p + len),
    });
    p += len;
  }
  if (p !== end) throw new Error(`code section: bodies end at ${p}, the section at ${end}`);
}

function readData(bytes, p, out) {
  let count;
  [count, p] = readLeb(bytes, p);
  for (let i = 0; i < count; i += 1) {
    let flags;
    [flags, p] = readLeb(bytes, p);
    if (flags === 2) [, p] = readLeb(bytes, p); // memory index
    let address = null;
    if (flags === 0 || flags === 2) {
      // the offset: one constant instruction (i32.const, i64.const or global.get, each with a LEB128), then `end`
      const op = bytes[p];
      let value;
      [value, p] = readLeb(bytes, p + 1); // signed LEB128; read unsigned, right for the non-negative addresses used
      if (op === 0x41) address = value;
      if (bytes[p++] !== 0x0b) throw new Error(`data segment ${i}: offset is not a single constant`);
    }
    let len;
    [len, p] = readLeb(bytes, p);
    out.dataSegments.push({ offset: p, address, bytes: len, content: bytes.subarray(p, p + len) });
    p += len;
  }
}

// The custom "name" section (spec appendix 7.4): subsections of (id, size, payload); 0 the module's name,
// 1 function names as a map of (index, name).
function readNameSection(bytes, p, end, out) {
  while (p < end) {
    const sub = bytes[p++];
    let len;
    [len, p] = readLeb(bytes, p);
    const subEnd = p + len;
    if (sub === 0) [out.moduleName] = readName(bytes, p);
    if (sub === 1) {
      let count;
      let q;
      [count, q] = readLeb(bytes, p);
      for (let i = 0; i < count; i += 1) {
        let index;
        let name;
        [index, q] = readLeb(bytes, q);
        [name, q] = readName(bytes, q);
        out.names.set(index, name);
      }
    }
    p = subEnd;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Names: the module's own, or those of a named build's byte-identical bodies.

const digest = (...parts) => {
  const h = crypto.createHash('sha1');
  for (const part of parts) h.update(part).update('\0');
  return h.digest('hex');
};

// Immediates of the instructions a body may hold (MVP, sign-extension, bulk memory, exception handling), enough to
// find every function and type index in it.
const BLOCKTYPE = new Set([0x02, 0x03, 0x04, 0x06]);
const ONE_LEB = new Set([0x07, 0x08, 0x09, 0x0c, 0x0d, 0x18, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x42]);

/**
 * Where a module's initialised data lies, to tell an address from a number: {segments, low, high}.
 */
export function memoryOf(mod) {
  const segments = mod.dataSegments.filter((s) => s.address != null);
  if (!segments.length) return null;
  const low = Math.min(...segments.map((s) => s.address));
  const end = Math.max(...segments.map((s) => s.address + s.bytes));
  return { segments, low, high: end + (1 << 20) }; // the zeroed data and the stack follow the initialised data
}

/**
 * A body with its function and type indices taken out: {shape, calls}. `shape` is the body's bytes with each
 * function index left out and each type index written as its signature; `calls` the function indices in order.
 * With `memory` (memoryOf), an address (an i32.const or a load's or store's offset inside the data) is written as
 * the 16 bytes of data it points at, or as "some address" past them, so a string added before it does not change
 * the shape. Two builds that number their functions, types and data differently give the same shape for the same
 * code. Null when the body holds an instruction this reader does not know (it can still match byte for byte).
 */
export function bodyShape(body, types, memory = null) {
  const address = (v) => {
    if (!memory || v < memory.low || v >= memory.high) return null;
    const seg = memory.segments.find((s) => v >= s.address && v < s.address + s.bytes);
    if (!seg) return Buffer.from('{addr}');
    const at = v - seg.address;
    return Buffer.concat([Buffer.from('{data:'), Buffer.from(seg.content.subarray(at, at + 16)), Buffer.from('}')]);
  };
  const out = [];
  const calls = [];
  let p = 0;
  const leb = () => {
    const q = p;
    while (body[p++] & 0x80);
    return readLeb(body, q)[0];
  };
  const copy = (from) => out.push(Buffer.from(body.subarray(from, p)));
  const sig = (t) => out.push(Buffer.from(`{${types[t]}}`));
  let locals = leb();
  while (locals-- > 0) {
    leb();
    p += 1;
  }
  copy(0);
  while (p < body.length) {
    const at = p;
    const op = body[p++];
    if (op === 0x10 || op === 0x12 || op === 0xd2) {
      out.push(Buffer.of(op));
      calls.push(leb());
      continue;
    }
    if (op === 0x11 || op === 0x13) {
      out.push(Buffer.of(op));
      sig(leb());
      const q = p;
      leb(); // table
      out.push(Buffer.from(body.subarray(q, p)));
      continue;
    }
    if (BLOCKTYPE.has(op)) {
      const b = body[p];
      if (b === 0x40 || (b >= 0x6f && b <= 0x7f)) {
        p += 1;
        copy(at);
      } else {
        out.push(Buffer.of(op));
        sig(leb()); // a type index as block type
      }
      continue;
    }
    if (op <= 0x01 || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x19 || op === 0x1a || op === 0x1b) {
      // no immediates
    } else if (op === 0x41) {
      const token = address(leb()); // signed LEB128: read unsigned, right for the non-negative addresses
      if (token) {
        out.push(Buffer.of(op), token);
        continue;
      }
    } else if (ONE_LEB.has(op)) leb();
    else if (op === 0x0e) {
      let n = leb();
      while (n-- >= 0) leb();
    } else if (op === 0x1c) {
      const n = leb();
      p += n;
    } else if (op >= 0x28 && op <= 0x3e) {
      const align = leb();
      const token = address(leb());
      if (token) {
        out.push(Buffer.of(op, align), token);
        continue;
      }
    } else if (op === 0x3f || op === 0x40 || op === 0xd0) p += 1;
    else if (op === 0x43) p += 4;
    else if (op === 0x44) p += 8;
    else if ((op >= 0x45 && op <= 0xc4) || op === 0xd1) {
      // numeric and reference tests: no immediates
    } else if (op === 0xfc) {
      const sub = leb();
      if (sub <= 7) {
        // saturating truncations
      } else if (sub === 8) {
        leb();
        p += 1;
      } else if (sub === 10) p += 2;
      else if (sub === 11) p += 1;
      else if (sub === 12 || sub === 14) {
        leb();
        leb();
      } else if (sub === 9 || sub === 13 || (sub >= 15 && sub <= 17)) leb();
      else return null;
    } else return null;
    copy(at);
  }
  return { shape: digest(...out), calls };
}

/**
 * Pairs the functions of two builds of the same code whose function and type numbering differ (wasm-opt orders
 * functions differently once a name section is kept). A function's key is its signature and body shape (the body
 * with function and type indices taken out). Functions whose key occurs once in each build pair first; then
 * the calls of a pair pair their callees, position by position, when their keys agree; then functions still
 * unpaired are told apart by their key and the partners of what they call and of what calls them (and where).
 * Repeated until nothing new pairs. A pair is kept only when it is the same code: equal shape, and each call goes
 * to the partner of the other's callee (or both to functions left unpaired, such as one that changed between the
 * two builds). Returns Map(index in a → index in b).
 */
export function matchFunctions(a, b) {
  const prepare = (mod) => {
    const n = mod.importedFunctions + mod.functions.length;
    const memory = memoryOf(mod);
    const fns = new Array(n);
    const callers = Array.from({ length: n }, () => []);
    for (let i = 0; i < n; i += 1) {
      const sig = mod.types[mod.functionTypes[i]] ?? '?';
      if (i < mod.importedFunctions) fns[i] = { key: digest('import', sig), calls: [] };
      else {
        const { body } = mod.functions[i - mod.importedFunctions];
        const shape = bodyShape(body, mod.types, memory);
        fns[i] = shape
          ? { key: digest(sig, shape.shape), calls: shape.calls, shaped: true }
          : { key: digest('opaque', body), calls: [] };
      }
    }
    // who calls a function, and where in its body: two imports of one signature differ by where they are called
    for (let i = 0; i < n; i += 1) fns[i].calls.forEach((c, k) => c < n && callers[c].push([i, k]));
    return { n, fns, callers, imported: mod.importedFunctions };
  };
  const A = prepare(a);
  const B = prepare(b);
  const ab = new Map();
  const ba = new Map();
  const pair = (i, j) => {
    if (ab.has(i) || ba.has(j) || A.fns[i].key !== B.fns[j].key) return false;
    if (i < A.imported !== j < B.imported) return false;
    ab.set(i, j);
    ba.set(j, i);
    return true;
  };
  const pairUnique = (keyA, keyB) => {
    const count = (M, key, taken) => {
      const seen = new Map();
      for (let i = 0; i < M.n; i += 1) {
        if (taken.has(i)) continue;
        const k = key(i);
        seen.set(k, seen.has(k) ? -1 : i);
      }
      return seen;
    };
    const inA = count(A, keyA, ab);
    const inB = count(B, keyB, ba);
    let added = 0;
    for (const [k, i] of inA) {
      const j = inB.get(k);
      if (i >= 0 && j >= 0 && pair(i, j)) added += 1;
    }
    return added;
  };
  const propagate = () => {
    let added = 0;
    let again = true;
    while (again) {
      again = false;
      for (const [i, j] of [...ab]) {
        const x = A.fns[i].calls;
        const y = B.fns[j].calls;
        if (x.length !== y.length) continue;
        for (let k = 0; k < x.length; k += 1)
          if (!ab.has(x[k]) && !ba.has(y[k]) && x[k] < A.n && y[k] < B.n && pair(x[k], y[k])) {
            added += 1;
            again = true;
          }
      }
    }
    return added;
  };
  // Context in A's numbering: B's side names its neighbours by their partners in A.
  const context = (M, i, toA) =>
    digest(
      M.fns[i].key,
      M.fns[i].calls.map((c) => toA(c) ?? '?').join(','),
      M.callers[i]
        .map(([c, k]) => `${toA(c) ?? '?'}@${k}`)
        .sort()
        .join(','),
    );
  pairUnique(
    (i) => A.fns[i].key,
    (j) => B.fns[j].key,
  );
  for (let round = 0; round < 100; round += 1) {
    const added =
      propagate() +
      pairUnique(
        (i) => context(A, i, (c) => (ab.has(c) ? c : undefined)),
        (j) => context(B, j, (c) => ba.get(c)),
      );
    if (!added) break;
  }
  // Keep the pairs that are the same code; dropping one can undo another, so until nothing is dropped.
  for (let dropped = true; dropped;) {
    dropped = false;
    for (const [i, j] of [...ab]) {
      if (i < A.imported) continue;
      const x = A.fns[i];
      const y = B.fns[j];
      const same =
        x.shaped &&
        x.key === y.key &&
        x.calls.length === y.calls.length &&
        x.calls.every((c, k) => (ab.has(c) ? ab.get(c) === y.calls[k] : !ba.has(y.calls[k])));
      if (!same) {
        ab.delete(i);
        ba.delete(j);
        dropped = true;
      }
    }
  }
  return ab;
}

/**
 * Names each of `mod`'s functions: from its own name section; else from `named` (a parsed build of the same code
 * with a name section): index by index when every body is byte-identical, else through matchFunctions (the same
 * code numbered differently); else its export name; else null. Returns {source, matched}.
 */
export function attachNames(mod, named) {
  let source = 'none';
  let matched = 0;
  if (mod.names.size > 0) {
    source = 'own name section';
    for (const f of mod.functions) f.name = mod.names.get(f.index) ?? null;
  } else if (named && named.names.size > 0) {
    const same =
      named.functions.length === mod.functions.length &&
      named.importedFunctions === mod.importedFunctions &&
      mod.functions.every((f, i) => Buffer.compare(f.body, named.functions[i].body) === 0);
    if (same) {
      source = 'named build, every body identical';
      for (const f of mod.functions) f.name = named.names.get(f.index) ?? null;
    } else {
      source = 'named build, the same code renumbered (matched by shape and calls)';
      const pairs = matchFunctions(mod, named);
      for (const f of mod.functions) f.name = pairs.has(f.index) ? (named.names.get(pairs.get(f.index)) ?? null) : null;
    }
  }
  for (const f of mod.functions) {
    if (f.name == null && mod.exports.has(f.index)) f.name = `export "${mod.exports.get(f.index)}"`;
    if (f.name != null) matched += 1;
    f.name ??= null;
  }
  return { source, matched };
}

// ---------------------------------------------------------------------------------------------------------------
// Grouping by name. wasm-ld writes demangled C++ names. The "owner" is the qualified name a function belongs to
// (return type, parameter list and template arguments dropped), e.g. "agui::Thread::append" or "std::__2::vector".

/** The qualified name of a demangled function name, without return type, template arguments and parameters. */
const OPERATORS =
  '() [] <=> ->* <<= >>= << >> <= >= == != && || ++ -- += -= *= /= %= &= |= ^= -> < > = ! + - * / % & | ^ ~ ,'.split(
    ' ',
  );

export function ownerOf(name) {
  const s = name.replaceAll('(anonymous namespace)', '{anon}');
  let depth = 0;
  let head = '';
  for (let i = 0; i < s.length; i += 1) {
    if (depth === 0 && s.startsWith('operator', i) && !/\w/.test(s[i + 8] ?? '')) {
      // operator(), operator<, operator<< ... keep the word, skip the symbol; operator new, operator bool: the word
      head += 'operator';
      i += 8;
      if (s[i] === ' ') {
        const m = s.slice(i).match(/^ (new\[\]|delete\[\]|new|delete|[\w:]+)/);
        head += m[0];
        i += m[0].length;
      } else i += (OPERATORS.find((op) => s.startsWith(op, i)) ?? '').length;
      i -= 1;
      continue;
    }
    if (depth === 0 && s.startsWith('decltype(', i)) {
      // a return type such as decltype(auto): skip its parentheses
      let parens = 0;
      do {
        if (s[i] === '(') parens += 1;
        else if (s[i] === ')') parens -= 1;
        i += 1;
      } while (i < s.length && parens > 0);
      head = '';
      continue;
    }
    const c = s[i];
    if (c === '<') depth += 1;
    else if (c === '>') depth = Math.max(0, depth - 1);
    else if (depth === 0 && c === '(') break;
    else if (depth === 0 && c === ' ') {
      head = ''; // what came before was the return type
      continue;
    }
    if (depth === 0 && c !== '>') head += c;
  }
  return head;
}

/**
 * What the instances of one template share: the name with every template argument list, parameter list and the
 * return type dropped, lambdas kept (so "vector<int>::push_back(int&&)" and "vector<Foo>::push_back(Foo&&)" give
 * one key, "f()::$_0::operator()" and "f()::$_1::operator()" two).
 */
export function instanceKey(name) {
  let s = name
    .replace(/^byn\$mgfn-shared\$/, '')
    .replaceAll('(anonymous namespace)', '{anon}')
    .replace(/\boperator (new|delete)(\[\])?/g, (m, w, b) => `operator\u00a0${w}${b ? '\ue05b\ue05d' : ''}`);
  s = s.replace(
    /\boperator(\(\)|\[\]|<=>|->\*|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\+\+|--|[-+*/%&|^]=|->|[<>=!+\-*/%&|^~,])/g,
    (m, op) => `operator${[...op].map((c) => String.fromCharCode(0xe000 + c.charCodeAt(0))).join('')}`,
  );
  let out = '';
  let depth = 0;
  for (const c of s) {
    if (c === '<' || c === '(') depth += 1;
    else if (c === '>' || c === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0) out += c;
  }
  const words = out.split(' ').filter((w) => w && !/^(const|volatile|&|&&|noexcept)$/.test(w));
  // the operator symbols and spaces kept apart above, back
  return (words.at(-1) ?? '')
    .replace(/[\ue000-\ue0ff]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xe000))
    .replaceAll('\u00a0', ' ');
}

const REGEX_OWNER =
  /^std::__2::(basic_regex|regex_|__match|__state|__node|__owns|__bracket|__loop|__alternate|__empty|__end_state|__begin_marked|__end_marked|__has_one_state|__l_anchor|__r_anchor|__back_ref|__word_boundary|__lookahead|sub_match|match_results|__repeat_one|__match_any|__match_char)/;
const IOSTREAM_OWNER =
  /^std::__2::(basic_ios|basic_[io]?stream|basic_[io]?stringstream|basic_stringbuf|basic_streambuf|basic_filebuf|ios_base|__iostream|__stdinbuf|__stdoutbuf|DoIOSInit|locale|__locale|ctype|codecvt|num_get|num_put|__num_get|__num_put|numpunct|moneypunct|money_get|money_put|__money|time_get|time_put|__time|messages|collate|__codecvt|use_facet|has_facet|__libcpp_locale|__cloc)/;
const RTTI =
  /^(__dynamic_cast|is_equal|__cxxabiv1::__(si_|vmi_)?class_type_info|__cxxabiv1::__(pointer|pbase|fundamental)_type_info|std::type_info|__cxxabiv1::__shim_type_info)/;
const EH =
  /^(__cxa_|__cxxabiv1|_Unwind_|__gxx_|std::terminate|std::__terminate|std::unexpected|std::uncaught_exception|std::exception|std::bad_|std::logic_error|std::runtime_error|std::out_of_range|std::invalid_argument|std::length_error|std::domain_error|std::overflow_error|std::range_error|std::__2::__throw_|__cxa|std::__libcpp_refstring|std::__2::__libcpp_refstring|__emscripten_throw|demangling_terminate_handler)|^\{anon\}::(offset_from_node|node_from_offset|after|fallback_\w+)$/;
// musl's printf (and what only it reaches: the float formatter), and its float and integer scanners.
const PRINTF =
  /^(v?f?s?n?printf|v?as?printf|v?dprintf|printf_core|fmt_fp|fmt_u|fmt_x|fmt_o|pop_arg|pad|out|getint|__towrite|__fwritex|sn_write|__stdio_write|__stdout_write|frexp|frexpl|__signbitl|__fpclassifyl|__DOUBLE_BITS|wctomb|wcrtomb|std::__2::__libcpp_snprintf_l|std::__2::__libcpp_asprintf_l)(\.\d+)?$/;
const FLOATSCAN =
  /^(strto(d|f|ld|l|ll|ul|ull|imax|umax|x)(_l)?|__strto\w*|__floatscan|decfloat|hexfloat|scanexp|__shgetc|__shlim|__intscan|__uflow|__toread|v?s?f?scanf|__isoc99_\w*scanf|copysignl|scalbnl?|fmodl|mbrtowc|std::__2::sto[dfil]\w*|std::__2::__libcpp_strto\w*|std::__2::__num_get_float|std::__2::__from_chars\w*|std::__2::from_chars|atof|atoi|atol)(\.\d+)?$/;
const MALLOC =
  /^(malloc|free|calloc|realloc|aligned_alloc|memalign|posix_memalign|emmalloc_\w*|sbrk|claim_more_memory|create_used_region|create_free_region|prepend_to_free_list|unlink_from_free_list|link_to_free_list|attempt_allocate|allocate_memory|attempt_region_resize|extend_used_region|compute_free_list_bucket|lower_bound_free_list|free_list_bucket|\w*_region\w*|operator new|operator delete|std::__2::__libcpp_allocate|std::__2::__libcpp_deallocate)(\.\d+)?$/;

// Names declared in each of the core's folders (types, and what is defined at column 0 in its sources), to tell
// which folder an agui:: (or the bindings' anonymous) function comes from. A name declared in two folders stays
// undecided rather than guessed.
let folderIndex;
export function coreFolders(root = ROOT) {
  if (folderIndex) return folderIndex;
  const index = new Map(); // identifier → Set(folder)
  const add = (id, folder) => {
    if (!id || /^(if|for|while|switch|return|sizeof|static_cast|operator|std|json|agui|namespace)$/.test(id)) return;
    if (!index.has(id)) index.set(id, new Set());
    index.get(id).add(folder);
  };
  const dirs = [];
  const wasm = path.join(root, 'wasm');
  if (fs.existsSync(wasm))
    for (const d of fs.readdirSync(wasm, { withFileTypes: true }))
      if (d.isDirectory()) dirs.push([`wasm/${d.name}`, path.join(wasm, d.name)]);
  if (fs.existsSync(path.join(root, 'bindings'))) dirs.push(['bindings', path.join(root, 'bindings')]);
  for (const [folder, dir] of dirs) {
    const files = fs.readdirSync(dir, { recursive: true }).filter((f) => /\.(hpp|cpp|h)$/.test(f));
    for (const f of files) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      for (const m of text.matchAll(/\b(?:class|struct|union|enum(?:\s+class)?)\s+([A-Za-z_]\w*)\s*(?:final\s*)?[:{]/g))
        add(m[1], folder);
      for (const m of text.matchAll(/\busing\s+([A-Za-z_]\w*)\s*=/g)) add(m[1], folder);
      for (const line of text.split('\n')) {
        if (!/^[A-Za-z_]/.test(line) || /^(namespace|using|#|template|class|struct|enum|static_assert)\b/.test(line))
          continue;
        const m = line.match(/([A-Za-z_][\w:]*)\s*\(/);
        if (m) for (const part of m[1].split('::')) add(part, folder);
      }
    }
  }
  folderIndex = index;
  return index;
}

function folderOf(owner) {
  const index = coreFolders();
  const tokens = owner.split('::').filter((t) => t && t !== 'agui' && t !== '{anon}' && t !== 'schema_detail');
  for (const t of tokens) {
    const folders = index.get(t);
    if (folders?.size === 1) return [...folders][0];
    if (folders?.size > 1) return null;
  }
  return null;
}

/** The group a function's demangled name puts it in (first match wins; the order is documented in docs/size.md). */
// compiler-rt's 128-bit long double, done in software: musl's strtod and printf compute in long double.
const LONG_DOUBLE =
  /^(__(add|sub|mul|div)tf3|__(eq|ne|lt|le|gt|ge|un|cmp)tf2|__(extend|trunc)\w*tf\w*2|__float(un)?[sd]itf|__float(un)?tity?tf|__fix(uns)?tf[sd]i|__(ashl|lshr|ashr|mul|div|udiv|mod|umod)ti3|__udivmodti4|fmodl|scalbnl|copysignl|frexpl|fabsl|__fpclassifyl|__signbitl)$/;

export function groupOf(name) {
  if (name == null) return 'unnamed';
  if (name.startsWith('export "')) return 'exported (no name section)';
  // binaryen's merge-similar-functions prefix: the merged body still belongs to what it is named after
  name = name.replace(/^byn\$mgfn-shared\$/, '');
  // a name wasm-ld could not demangle: go by the mangled namespaces it holds
  if (/^_Z/.test(name)) {
    if (/^_ZN?K?8nlohmann/.test(name)) return 'nlohmann_json';
    if (/^_ZN?K?10emscripten/.test(name)) return 'embind';
    return 'other';
  }
  if (name === '__wasm_call_ctors') return 'static constructors';
  const owner = ownerOf(name);
  if (LONG_DOUBLE.test(owner)) return 'compiler-rt long double (soft float)';
  if (REGEX_OWNER.test(owner)) return 'std::regex';
  if (/^emscripten::|^_embind_|^embind_|^__embind_|^__getTypeName$/.test(owner)) return 'embind';
  if (/^nlohmann::/.test(owner)) return 'nlohmann_json';
  if (RTTI.test(owner)) return 'RTTI (type_info, dynamic_cast)';
  if (EH.test(owner)) return 'C++ exception runtime';
  if (PRINTF.test(owner)) return 'libc printf';
  if (FLOATSCAN.test(owner)) return 'libc float/int scanning (strtod)';
  if (IOSTREAM_OWNER.test(owner)) return 'libc++ iostream/locale';
  if (MALLOC.test(owner)) return 'malloc (emmalloc), new/delete';
  if (/^std::/.test(owner)) return /nlohmann::/.test(name) ? 'libc++ on nlohmann_json types' : 'libc++ other';
  if (/^agui::|^\{anon\}::/.test(owner) || !owner.includes('::')) {
    const folder = folderOf(owner);
    if (folder) return `core: ${folder}`;
    if (/^agui::|^\{anon\}::/.test(owner)) return 'core: folder unclear';
  }
  if (!owner.includes('::') && /^[a-z_$][\w$.]*$/i.test(owner) && owner !== 'decltype')
    return 'libc, compiler-rt, other C';
  return 'other';
}

// ---------------------------------------------------------------------------------------------------------------
// RTTI's data: the typeinfo name strings (Itanium-mangled type names such as "N4agui6ThreadE") in the data
// section. Found by shape: a NUL-terminated run that parses as length-prefixed identifiers in a mangled type.

export function isMangledTypeName(s) {
  if (s.length < 2 || !/^[A-Za-z0-9_]+$/.test(s) || !/\d/.test(s)) return false;
  let i = 0;
  let ids = 0;
  while (i < s.length) {
    const c = s[i];
    if (c >= '0' && c <= '9') {
      let n = 0;
      while (i < s.length && s[i] >= '0' && s[i] <= '9') n = n * 10 + Number(s[i++]);
      if (n === 0 || i + n > s.length || !/^[A-Za-z_]/.test(s[i])) return false;
      i += n;
      ids += 1;
    } else if ('NEIKVLPRSTtZ_'.includes(c) || /[a-z]/.test(c)) {
      i += 1;
    } else return false;
  }
  // A plain identifier such as "n2" would parse too: ask for the shapes type names take.
  return (
    ids > 0 &&
    /^(N|S[tabiod]|P|K|Z|\d)/.test(s) &&
    (/^\d/.test(s) ? /^\d+[A-Za-z_]\w*$/.test(s) || s.endsWith('E') : true)
  );
}

/**
 * The typeinfo name strings in `mod`'s data ({count, bytes, strings}), and the typeinfo objects that point at them
 * (`objects`: 4-byte little-endian words in the data equal to a name's address; each object is at least a vtable
 * pointer and that name pointer, 8 bytes, more for classes with bases).
 */
export function typeinfoNames(mod) {
  const found = [];
  for (const seg of mod.dataSegments) {
    const c = seg.content;
    let start = 0;
    for (let i = 0; i <= c.length; i += 1) {
      if (i === c.length || c[i] === 0) {
        if (i > start) {
          const s = Buffer.from(c.subarray(start, i)).toString('latin1');
          if (isMangledTypeName(s)) found.push({ s, address: seg.address == null ? null : seg.address + start });
        }
        start = i + 1;
      }
    }
  }
  const addresses = new Set(found.map((f) => f.address).filter((a) => a != null));
  let objects = 0;
  for (const seg of mod.dataSegments) {
    if (seg.address == null) continue;
    const c = seg.content;
    for (let i = (4 - (seg.address % 4)) % 4; i + 4 <= c.length; i += 4) {
      const word = c[i] | (c[i + 1] << 8) | (c[i + 2] << 16) | (c[i + 3] * 2 ** 24);
      if (addresses.has(word)) objects += 1;
    }
  }
  return {
    count: found.length,
    bytes: found.reduce((n, f) => n + f.s.length + 1, 0), // each string and its NUL
    objects,
    strings: found.map((f) => f.s),
  };
}

// ---------------------------------------------------------------------------------------------------------------

const gz = (bytes) => zlib.gzipSync(bytes, { level: 9 }).length;
const br = (bytes) => zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
const measure = (bytes) => ({ raw: bytes.length, gzip: gz(bytes), brotli: br(bytes) });

/** The package's JavaScript as it ships: js-shim/dist/*.js, src/ minified with Emscripten's glue bundled in. */
export function shippedJs(shim = SHIM) {
  const dist = path.join(shim, 'dist');
  const files = fs.existsSync(dist) ? fs.readdirSync(dist).filter((n) => n.endsWith('.js')) : [];
  if (!files.length) throw new Error(`no built JavaScript in ${dist}: run node js-shim/scripts/build-js.mjs`);
  return files.sort().map((n) => path.join(dist, n));
}

/** Raw, gzip -9 and brotli 11 sizes of the module and of the package's JS as it ships (shippedJs). */
export function packageSizes(wasmFile, shim = SHIM) {
  const files = shippedJs(shim).map((f) => ({ file: path.relative(ROOT, f), ...measure(fs.readFileSync(f)) }));
  const sum = (k) => files.reduce((n, f) => n + f[k], 0);
  const wasm = measure(fs.readFileSync(wasmFile));
  const jsTotal = { raw: sum('raw'), gzip: sum('gzip'), brotli: sum('brotli') };
  return {
    wasm,
    js: { files, total: jsTotal },
    total: { raw: wasm.raw + jsTotal.raw, gzip: wasm.gzip + jsTotal.gzip, brotli: wasm.brotli + jsTotal.brotli },
  };
}

const encodeLeb = (n) => {
  const out = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};

/**
 * The module with the bodies `drop(f)` picks replaced by `unreachable` (the rest byte for byte): gzipping it
 * tells what those bodies cost in the gzipped module, in the context of the rest (their data and the calls to
 * them stay, so it is what removing the code alone would save).
 */
export function withoutBodies(bytes, mod, drop) {
  const code = mod.sections.find((s) => s.id === 10);
  const stub = Buffer.from([3, 0x00, 0x00, 0x0b]); // size 3: no locals, unreachable, end
  const parts = [Buffer.from(encodeLeb(mod.functions.length))];
  for (const f of mod.functions) parts.push(drop(f) ? stub : Buffer.from(bytes.subarray(f.offset, f.offset + f.bytes)));
  const payload = Buffer.concat(parts);
  return Buffer.concat([
    Buffer.from(bytes.subarray(0, code.offset)),
    Buffer.from([10, ...encodeLeb(payload.length)]),
    payload,
    Buffer.from(bytes.subarray(code.offset + code.bytes)),
  ]);
}

/** Everything the command prints, as data. */
export function sizeTable({ file = DEFAULT_MODULE, namesFile = null, top = 40, withPackage = true, drop = [] } = {}) {
  const bytes = fs.readFileSync(file);
  const mod = parseWasm(bytes);
  const gzipAll = gz(bytes);
  const named = namesFile ? parseWasm(fs.readFileSync(namesFile)) : null;
  const naming = attachNames(mod, named);
  const code = mod.sections.find((s) => s.id === 10);
  const codeBytes = code ? code.payload : 0;
  const groups = new Map();
  for (const f of mod.functions) {
    const g = groupOf(f.name);
    const entry = groups.get(g) ?? { group: g, functions: 0, bytes: 0 };
    entry.functions += 1;
    entry.bytes += f.bytes;
    groups.set(g, entry);
  }
  const byGroup = [...groups.values()].sort((a, b) => b.bytes - a.bytes);
  for (const g of byGroup) {
    g.share = codeBytes ? g.bytes / codeBytes : 0;
    // the group's bodies gzipped on their own: a rough guide to what removing them saves in the gzipped module
    g.gzipAlone = gz(Buffer.concat(mod.functions.filter((f) => groupOf(f.name) === g.group).map((f) => f.body)));
    // what the gzipped module loses without the group's bodies
    g.gzipSaved = gzipAll - gz(withoutBodies(bytes, mod, (f) => groupOf(f.name) === g.group));
  }
  // Who reaches the libc and runtime pieces a step of issue 23 would remove: the named callers outside them.
  const LIBC = new Set([
    'libc printf',
    'libc float/int scanning (strtod)',
    'compiler-rt long double (soft float)',
    'RTTI (type_info, dynamic_cast)',
    'C++ exception runtime',
    'libc, compiler-rt, other C',
  ]);
  const byIndex = new Map(mod.functions.map((f) => [f.index, f]));
  const reachedFrom = {};
  for (const f of mod.functions) {
    const from = groupOf(f.name);
    if (LIBC.has(from)) continue;
    const shape = bodyShape(f.body, mod.types);
    for (const c of shape?.calls ?? []) {
      const callee = byIndex.get(c);
      const to = callee && groupOf(callee.name);
      if (!to || !['libc printf', 'libc float/int scanning (strtod)', 'RTTI (type_info, dynamic_cast)'].includes(to))
        continue;
      const set = (reachedFrom[to] ??= new Map());
      const key = `${f.name ? ownerOf(f.name.replace(/^byn\$mgfn-shared\$/, '')) : `function ${f.index}`} → ${callee.name ? ownerOf(callee.name) : callee.index}`;
      set.set(key, (set.get(key) ?? 0) + 1);
    }
  }
  // Template instantiations that repeat: one qualified name (template arguments dropped), several bodies.
  const repeats = new Map();
  for (const f of mod.functions) {
    if (!f.name || f.name.startsWith('export "')) continue;
    const key = instanceKey(f.name);
    const r = repeats.get(key) ?? { name: key, bodies: 0, bytes: 0, group: groupOf(f.name) };
    r.bodies += 1;
    r.bytes += f.bytes;
    repeats.set(key, r);
  }
  const repeated = [...repeats.values()].filter((r) => r.bodies > 1).sort((a, b) => b.bytes - a.bytes);
  // --drop: what the module would lose without these groups' bodies together (an estimate of a step of issue 23)
  let dropped = null;
  if (drop.length) {
    const picked = (f) => drop.includes(groupOf(f.name));
    const smaller = withoutBodies(bytes, mod, picked);
    dropped = {
      groups: drop,
      functions: mod.functions.filter(picked).length,
      raw: bytes.length - smaller.length,
      gzip: gzipAll - gz(smaller),
      brotli: br(bytes) - br(smaller),
    };
  }
  const largest = [...mod.functions]
    .sort((a, b) => b.bytes - a.bytes || a.index - b.index)
    .slice(0, top)
    .map((f) => ({ index: f.index, bytes: f.bytes, name: f.name, group: groupOf(f.name) }));
  return {
    file,
    namesFile,
    top,
    size: mod.size,
    sizes: withPackage ? packageSizes(file) : { wasm: measure(fs.readFileSync(file)) },
    sections: mod.sections.map((s) => ({ kind: s.kind, name: s.name, bytes: s.bytes, payload: s.payload })),
    functions: mod.functions.length,
    importedFunctions: mod.importedFunctions,
    functionBytes: mod.functions.reduce((n, f) => n + f.bytes, 0),
    codeCountBytes: mod.codeCountBytes,
    codeBytes,
    dataBytes: mod.dataSegments.reduce((n, s) => n + s.bytes, 0),
    naming,
    groups: byGroup,
    typeinfo: typeinfoNames(mod),
    repeated,
    dropped,
    reachedFrom: Object.fromEntries(Object.entries(reachedFrom).map(([g, m]) => [g, [...m.keys()].sort()])),
    largest,
  };
}

// ---------------------------------------------------------------------------------------------------------------

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const pct = (x) => `${(100 * x).toFixed(1)}%`;
const lpad = (s, n) => String(s).padStart(n);
const rpad = (s, n) => String(s).padEnd(n);

export function format(t) {
  const lines = [];
  const p = (s = '') => lines.push(s);
  p(`${path.relative(process.cwd(), t.file) || t.file}: ${t.size} bytes`);
  p();
  p(`${rpad('what', 40)}${lpad('raw', 12)}${lpad('gzip -9', 12)}${lpad('brotli 11', 12)}`);
  const row = (label, m) =>
    p(`${rpad(label, 40)}${lpad(kb(m.raw), 12)}${lpad(kb(m.gzip), 12)}${lpad(kb(m.brotli), 12)}`);
  row('.wasm', t.sizes.wasm);
  if (t.sizes.js) {
    for (const f of t.sizes.js.files) row(`  ${f.file}`, f);
    row('JS (dist/*.js: src/ and the glue, minified)', t.sizes.js.total);
    row('package (.wasm + JS, each file alone)', t.sizes.total);
  }
  p();
  p("sections (bytes include each section's id and size; plus the 8-byte header = the file)");
  for (const s of t.sections)
    p(`${rpad(s.kind + (s.name ? ` "${s.name}"` : ''), 40)}${lpad(s.bytes, 10)}${lpad(pct(s.bytes / t.size), 8)}`);
  p();
  p(
    `code: ${t.functions} function bodies (${t.importedFunctions} functions imported), ${t.functionBytes} bytes ` +
      `+ ${t.codeCountBytes} count byte(s) = ${t.codeBytes}; names: ${t.naming.source}, ${t.naming.matched} of ${t.functions} named`,
  );
  if (t.namesFile && t.naming.matched < t.functions)
    p(
      `  (${t.functions - t.naming.matched} bodies are not the same code in ${path.basename(t.namesFile)}, or not told ` +
        'apart from their twins: "unnamed"; build the named module from the same sources)',
    );
  if (t.naming.matched === 0)
    p('  (no name section: pass --names=<a --profiling-funcs build of the same commit>; see the head of this file)');
  p();
  p(
    `${rpad('code by group', 45)}${lpad('raw', 10)}${lpad('share', 8)}${lpad('gzip alone', 12)}${lpad('gzip saved', 12)}`,
  );
  for (const g of t.groups)
    p(
      `${rpad(g.group, 36)}${lpad(g.functions, 5)} fns${lpad(kb(g.bytes), 10)}${lpad(pct(g.share), 8)}${lpad(kb(g.gzipAlone), 12)}${lpad(kb(g.gzipSaved), 12)}`,
    );
  p();
  p(
    `RTTI data: ${t.typeinfo.count} typeinfo name strings (mangled type names, found by shape) in the data section, ` +
      `${t.typeinfo.bytes} bytes of ${t.dataBytes} data bytes; ${t.typeinfo.objects} typeinfo objects point at them ` +
      `(at least 8 bytes each, ${t.typeinfo.objects * 8} bytes)`,
  );
  p();
  if (t.repeated.length) {
    const all = t.repeated.reduce((n, r) => n + r.bytes, 0);
    p(
      `one qualified name, several bodies (template instantiations, overloads): ${t.repeated.length} names, ` +
        `${kb(all)} (${pct(all / t.codeBytes)} of code); the largest ${Math.min(t.repeated.length, t.top)}:`,
    );
    for (const r of t.repeated.slice(0, t.top))
      p(`${lpad(r.bodies, 5)} bodies${lpad(kb(r.bytes), 10)}  ${rpad(r.group, 38)}${r.name}`);
    p();
  }
  if (t.dropped)
    p(
      `without ${t.dropped.groups.join(' + ')} (${t.dropped.functions} bodies made \`unreachable\`): ` +
        `raw -${kb(t.dropped.raw)}, gzip -${kb(t.dropped.gzip)}, brotli -${kb(t.dropped.brotli)}\n`,
    );
  if (Object.keys(t.reachedFrom).length) {
    p('called from outside libc and the C++ runtime (caller → callee)');
    for (const [g, calls] of Object.entries(t.reachedFrom)) p(`  ${g}: ${calls.join('; ')}`);
    p();
  }
  p(`largest ${t.largest.length} functions (bytes incl. size prefix)`);
  for (const f of t.largest) {
    const name = f.name ?? `unnamed (function ${f.index})`;
    p(`${lpad(f.bytes, 8)}  ${rpad(f.group, 38)}${name.length > 160 ? `${name.slice(0, 157)}...` : name}`);
  }
  return lines.join('\n');
}

function main(argv) {
  let file = DEFAULT_MODULE;
  let namesFile = null;
  let top = 40;
  let json = false;
  const drop = [];
  for (const a of argv) {
    if (a.startsWith('--top=')) top = Number(a.slice(6));
    else if (a.startsWith('--drop=')) drop.push(a.slice(7));
    else if (a.startsWith('--names=')) namesFile = a.slice(8);
    else if (a === '--json') json = true;
    else if (a === '--help' || a === '-h') {
      console.log(
        'node tests/bench/size-table.mjs [MODULE.wasm] [--names=NAMED.wasm] [--top=N] [--drop=GROUP ...] [--json]',
      );
      return 0;
    } else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else file = a;
  }
  if (!Number.isInteger(top) || top < 0) throw new Error('--top= takes a whole number');
  for (const f of [file, namesFile].filter(Boolean))
    if (!fs.existsSync(f)) throw new Error(`${f}: no such file (build the module first: docs/building.md)`);
  const t = sizeTable({ file, namesFile, top, drop });
  const known = new Set(t.groups.map((g) => g.group));
  for (const g of drop) if (!known.has(g)) throw new Error(`--drop=${g}: no such group (${[...known].join(', ')})`);
  if (json) console.log(JSON.stringify(t, null, 2));
  else console.log(format(t));
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (e) {
    console.error(`size-table: ${e.message}`);
    process.exitCode = 1;
  }
}
