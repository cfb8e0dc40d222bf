// Prints the top self-time functions of a V8 .cpuprofile (node --cpu-prof), with % of sampled time, and the same
// grouped by category (wasm code, JS of the shim, JS of the bench, node internals, GC): node cpuprofile-top.mjs FILE [N]
import fs from 'node:fs';

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
  return {
    totalMs: total / 1000,
    top: rows.slice(0, n).map(([name, us]) => ({ name, ms: us / 1000, pct: (100 * us) / total })),
    categories: [...categories.entries()].sort((a, b) => b[1] - a[1]).map(([name, us]) => ({ name, ms: us / 1000, pct: (100 * us) / total })),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { totalMs, top, categories } = topFunctions(process.argv[2], Number(process.argv[3] ?? 25));
  console.log(`sampled ${totalMs.toFixed(0)} ms (idle excluded)`);
  for (const r of top) console.log(`${r.pct.toFixed(1).padStart(5)}%  ${r.ms.toFixed(1).padStart(8)} ms  ${r.name}`);
  console.log('by category:');
  for (const r of categories) console.log(`${r.pct.toFixed(1).padStart(5)}%  ${r.ms.toFixed(1).padStart(8)} ms  ${r.name}`);
}
