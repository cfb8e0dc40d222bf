// Prints the top self-time functions of a V8 .cpuprofile (node --cpu-prof), with % of sampled time, and the same
// grouped by category (wasm code, JS of the shim, JS of the bench, node internals, GC): node cpuprofile-top.mjs FILE [N]
import fs from 'node:fs';

// A C++ name without its template arguments (they name other types: basic_json's mention adl_serializer).
function stripTemplates(name) {
  let out = '';
  let depth = 0;
  for (const ch of name) {
    if (ch === '<') depth += 1;
    else if (ch === '>') depth = Math.max(0, depth - 1);
    else if (depth === 0) out += ch;
  }
  return out;
}

export function topFunctions(file, n = 20) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  const dt = profile.timeDeltas;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const node = byId.get(profile.samples[i]);
    const d = dt[i] ?? 0;
    const cf = node.callFrame;
    const where = cf.url ? `${cf.url.replace(/^.*\/(tests|js-shim|node_modules)\//, '$1/')}:${cf.lineNumber + 1}` : '';
    const key = `${cf.functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
    if (cf.functionName === '(idle)' || cf.functionName === '(program)') continue;
    self.set(key, (self.get(key) ?? 0) + d);
    total += d;
  }
  const rows = [...self.entries()].sort((a, b) => b[1] - a[1]);
  const categories = new Map();
  for (const [key, us] of rows) {
    let cat = 'node/V8 internals (native, builtins)';
    if (/wasm|\.wasm|^\$|^wasm-function/.test(key)) cat = 'wasm core';
    else if (/js-shim\/dist\//.test(key)) cat = 'embind glue (agui_core.mjs)';
    else if (/js-shim\/src\//.test(key)) cat = 'shim JS (js-shim/src)';
    else if (/tests\//.test(key)) cat = 'bench JS';
    else if (/node_modules\//.test(key)) cat = 'npm JS';
    else if (/garbage collector/.test(key)) cat = 'GC';
    else if (/node:/.test(key)) cat = 'node JS internals (streams, fetch)';
    categories.set(cat, (categories.get(cat) ?? 0) + us);
  }
  // wasm time by area, when the module has function names (variants.mjs's --profiling-funcs build).
  const AREAS = [
    [
      'nlohmann parse (lexer, parser, SAX DOM builder)',
      /nlohmann.*(lexer|parser|json_sax|input_adapter|iterator_input)/,
    ],
    ['nlohmann dump (serializer)', /nlohmann.*(serializer|output_adapter|output_string)/],
    ['nlohmann values (construct, copy, destroy, initializer_list, lookups)', /nlohmann|json_ref|basic_json/],
    ['malloc/free (emmalloc)', /emmalloc|attempt_allocate|malloc|free|operator new|operator delete|sbrk/],
    [
      'std::string / vector / tree primitives (left out of line)',
      /std::__2::(basic_string|vector|__tree|__compressed_pair|char_traits|min|max|basic_string_view|allocator|__hash|unordered|pair|__split_buffer|map)|__memcpy|memcpy|memmove|memcmp|strlen|memset/,
    ],
    ['agui: SSE parser', /agui::SseParser/],
    ['agui: reducer, thread, driver, bindings', /agui::|\(anonymous namespace\)/],
  ];
  const areas = new Map();
  let wasmTotal = 0;
  for (const [key, us] of rows) {
    if (!/wasm:\/\//.test(key)) continue;
    wasmTotal += us;
    // The function's own qualified name: no template arguments, no parameter list, no return type.
    const own = stripTemplates(key.replace(/ wasm:\/\/.*$/, '').replaceAll('(anonymous namespace)', 'anon'))
      .replace(/\(.*$/, '')
      .trim()
      .split(' ')
      .pop();
    const area = AREAS.find(([, re]) => re.test(own))?.[0] ?? 'other wasm';
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  // Inclusive time of the core's entry points (any frame on the sample's stack), for named wasm builds.
  const parent = new Map();
  for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  const ownName = (cf) =>
    stripTemplates((cf.functionName || '').replaceAll('(anonymous namespace)', 'anon'))
      .replace(/\(.*$/, '')
      .trim()
      .split(' ')
      .pop();
  const ENTRIES = [
    ['Driver::feed (bindings: SSE, parse, reduce, step dump)', /Driver::feed$/],
    ['Driver::takeChanges (bindings: changes no step took)', /Driver::takeChanges$/],
    ['Driver::endOfStream / submitResult / send', /Driver::(endOfStream|submitResult|submitError|send)$/],
    [
      '  json parse (nlohmann parser/lexer/DOM builder)',
      /nlohmann::.*(detail::parser::|json_sax_dom_parser|detail::lexer::)/,
    ],
    ['  json dump (nlohmann serializer)', /nlohmann::.*(serializer::|basic_json::dump$)/],
    ['  EventReducer (apply, handlers, change records)', /^agui::EventReducer::/],
    ['  SseParser', /^agui::SseParser::/],
    ['  depth pre-scan (json_text_deeper_than, json_deeper_than)', /json_(text_)?deeper_than$/],
    ['  RoundDriver::start_run (RunAgentInput)', /^agui::RoundDriver::start_run$/],
    ['  RoundDriver::after_run / dispatch', /^agui::RoundDriver::(after_run|dispatch)$/],
    ['  emmalloc (malloc/free)', /^(emmalloc_\w+|attempt_allocate|malloc|free|operator new|operator delete)$/],
    [
      'embind marshalling (JS glue)',
      /^(fromWireType|toWireType|readLatin1String|UTF8ToString|UTF8ArrayToString|stringToUTF8Array)$/,
    ],
  ];

  const inclusive = new Map();
  let sampled = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const d = dt[i] ?? 0;
    const leaf = byId.get(profile.samples[i]).callFrame.functionName;
    if (leaf === '(idle)' || leaf === '(program)') continue;
    sampled += d;
    const hit = new Set();
    for (let id = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      const own = ownName(byId.get(id).callFrame);
      for (const [label, re] of ENTRIES) if (re.test(own)) hit.add(label);
    }
    for (const label of hit) inclusive.set(label, (inclusive.get(label) ?? 0) + d);
  }
  return {
    inclusive: ENTRIES.map(([label]) => ({ name: label, pct: (100 * (inclusive.get(label) ?? 0)) / sampled })).filter(
      (r) => r.pct > 0,
    ),
    wasmAreas: wasmTotal
      ? [...areas.entries()]
          .sort((a, b) => b[1] - a[1])
          .map(([name, us]) => ({ name, ms: us / 1000, pctOfWasm: (100 * us) / wasmTotal, pct: (100 * us) / total }))
      : [],
    totalMs: total / 1000,
    top: rows.slice(0, n).map(([name, us]) => ({ name, ms: us / 1000, pct: (100 * us) / total })),
    categories: [...categories.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => ({ name, ms: us / 1000, pct: (100 * us) / total })),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { totalMs, top, categories } = topFunctions(process.argv[2], Number(process.argv[3] ?? 25));
  console.log(`sampled ${totalMs.toFixed(0)} ms (idle excluded)`);
  for (const r of top) console.log(`${r.pct.toFixed(1).padStart(5)}%  ${r.ms.toFixed(1).padStart(8)} ms  ${r.name}`);
  console.log('by category:');
  for (const r of categories)
    console.log(`${r.pct.toFixed(1).padStart(5)}%  ${r.ms.toFixed(1).padStart(8)} ms  ${r.name}`);
  const { wasmAreas, inclusive } = topFunctions(process.argv[2], 0);
  if (inclusive.length) console.log('inclusive (% of sampled time, any frame on the stack):');
  for (const r of inclusive) console.log(`${r.pct.toFixed(1).padStart(5)}%  ${r.name}`);
  if (wasmAreas.length) console.log('wasm by area (% of wasm time):');
  for (const r of wasmAreas) console.log(`${r.pctOfWasm.toFixed(1).padStart(5)}%  ${r.name}`);
}
