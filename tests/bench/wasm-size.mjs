// Attributes a .wasm's bytes to parts of the program (nlohmann_json, std::regex, the schema validator, the reducer,
// embind, libc++, ...) from its name section (link with --profiling-funcs): node wasm-size.mjs FILE.wasm [N]
import fs from 'node:fs';

function leb(bytes, pos) {
  let result = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[pos++];
    result += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (!(b & 0x80)) return [result, pos];
  }
}

const CATEGORIES = [
  [
    'std::regex (libc++)',
    /regex|__match_|__state<|__owns_|__bracket_exp|__node<char>|__loop<|__alternate|__empty_state|__l_anchor|__r_anchor|__back_ref|__word_boundary|__lookahead|__end_state|__begin_marked|__end_marked|__has_one_state|__match_char|__match_any|sub_match|match_results/,
  ],
  [
    'schema validator (agui, json_schema*)',
    /agui::schema_detail|CompiledSchema|SchemaIssue|SchemaCompile|RegexEngine|agui::\(anonymous namespace\)::(Evaluator|Compiler)/,
  ],
  ['event reducer', /EventReducer|agui::Problem/],
  ['round driver', /RoundDriver|DriverOptions/],
  ['tool registry', /ToolRegistry|ToolSpec|agui::Tool\b/],
  ['thread', /agui::Thread|ChangeLog|merge_metadata/],
  ['SSE parser', /SseParser|SseEvent/],
  [
    'bindings (agui_bindings.cpp)',
    /\(anonymous namespace\)::(Registry|Driver)|guarded|error_text|status_json|error_codes/,
  ],
  ['embind runtime', /emscripten::|_embind_|embind/],
  ['nlohmann_json', /nlohmann/],
  ['libc++ (other std::)', /std::|__cxa|__cxxabiv1|operator new|operator delete/],
  ['malloc, libc, compiler-rt', /./],
];

export function analyse(file) {
  const bytes = fs.readFileSync(file);
  let pos = 8;
  let imported = 0;
  const bodies = [];
  const names = new Map();
  const sections = {};
  while (pos < bytes.length) {
    const id = bytes[pos++];
    let size;
    [size, pos] = leb(bytes, pos);
    const end = pos + size;
    let name = String(id);
    if (id === 0) {
      let n;
      let p;
      [n, p] = leb(bytes, pos);
      name = bytes.subarray(p, p + n).toString('utf8');
      if (name === 'name') {
        p += n;
        while (p < end) {
          const sub = bytes[p++];
          let len;
          [len, p] = leb(bytes, p);
          const subEnd = p + len;
          if (sub === 1) {
            let count;
            let q;
            [count, q] = leb(bytes, p);
            for (let i = 0; i < count; i += 1) {
              let index;
              let nl;
              [index, q] = leb(bytes, q);
              [nl, q] = leb(bytes, q);
              names.set(index, bytes.subarray(q, q + nl).toString('utf8'));
              q += nl;
            }
          }
          p = subEnd;
        }
      }
    } else if (id === 2) {
      let count;
      let p;
      [count, p] = leb(bytes, pos);
      for (let i = 0; i < count; i += 1) {
        for (let k = 0; k < 2; k += 1) {
          let l;
          [l, p] = leb(bytes, p);
          p += l;
        }
        const kind = bytes[p++];
        if (kind === 0) {
          imported += 1;
          [, p] = leb(bytes, p);
        } else if (kind === 1) {
          p += 1;
          const flags = bytes[p++];
          [, p] = leb(bytes, p);
          if (flags & 1) [, p] = leb(bytes, p);
        } else if (kind === 2) {
          const flags = bytes[p++];
          [, p] = leb(bytes, p);
          if (flags & 1) [, p] = leb(bytes, p);
        } else if (kind === 3) {
          p += 2;
        } else if (kind === 4) {
          p += 1;
          [, p] = leb(bytes, p);
        }
      }
    } else if (id === 10) {
      let count;
      let p;
      [count, p] = leb(bytes, pos);
      for (let i = 0; i < count; i += 1) {
        let len;
        const start = p;
        [len, p] = leb(bytes, p);
        bodies.push({ index: imported + i, size: p - start + len });
        p += len;
      }
    }
    const key =
      id === 0
        ? `custom:${name}`
        : ([
            'custom',
            'type',
            'import',
            'function',
            'table',
            'memory',
            'global',
            'export',
            'start',
            'element',
            'code',
            'data',
            'datacount',
            'tag',
          ][id] ?? String(id));
    sections[key] = (sections[key] ?? 0) + size;
    pos = end;
  }
  const byCategory = new Map();
  const functions = bodies.map((b) => ({ ...b, name: names.get(b.index) ?? `wasm-function[${b.index}]` }));
  for (const f of functions) {
    const cat = CATEGORIES.find(([, re]) => re.test(f.name))[0];
    const c = byCategory.get(cat) ?? { bytes: 0, functions: 0 };
    c.bytes += f.size;
    c.functions += 1;
    byCategory.set(cat, c);
  }
  functions.sort((a, b) => b.size - a.size);
  return {
    total: bytes.length,
    sections,
    named: names.size > 0,
    categories: [...byCategory.entries()].sort((a, b) => b[1].bytes - a[1].bytes),
    largest: functions,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { total, sections, named, categories, largest } = analyse(process.argv[2]);
  const n = Number(process.argv[3] ?? 25);
  console.log(
    `${process.argv[2]}: ${total} bytes; sections: ${Object.entries(sections)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}${named ? '' : ' (no name section: link with --profiling-funcs)'}`,
  );
  for (const [cat, c] of categories)
    console.log(
      `${(c.bytes / 1024).toFixed(1).padStart(8)} KB ${((100 * c.bytes) / sections.code).toFixed(1).padStart(5)}% of code  ${String(c.functions).padStart(5)} fns  ${cat}`,
    );
  console.log('largest functions:');
  for (const f of largest.slice(0, n)) console.log(`${String(f.size).padStart(8)}  ${f.name.slice(0, 150)}`);
}
