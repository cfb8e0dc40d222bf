// Focused profiling runs behind the bench's misses (not part of run.mjs):
//   node tests/bench/profile.mjs cpu stream [events=22000] [reps=8]   node --cpu-prof of path (a), top self time
//   node tests/bench/profile.mjs cpu round [calls=1] [turns=2000]     node --cpu-prof of the round-overhead loop
//   node tests/bench/profile.mjs split round [calls=1] [turns=1000]    time inside each Driver method during the rounds
//   node tests/bench/profile.mjs split stream [events=22000] [reps=5] the same for path (a)
//   node tests/bench/profile.mjs cpu names-stream [events=22000] [reps=8]   the core alone on variants.mjs's
//        --profiling-funcs build (same code as shipped, function names kept): wasm hot spots by name
//   node tests/bench/profile.mjs cpu names-round [turns=3000]          the same for the round path
//   node tests/bench/profile.mjs window [calls=1] [turns=600]         the round window split: inside the core vs JS
//   node tests/bench/profile.mjs native-stream [events=22000]         callgrind of stream_native.cpp (the core natively)
//   node tests/bench/profile.mjs native-round [rounds=2000]           callgrind of the round path natively
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeStream } from './generate.mjs';
import { buildNativeBench, NOOP, noopRegistry, nowArgs, streamFetch } from './common.mjs';
import { topFunctions } from './cpuprofile-top.mjs';
import { feedBytes } from '../../js-shim/src/core.js';

const self = fileURLToPath(import.meta.url);
const here = path.dirname(self);
const ROOT = path.resolve(here, '../..');
const OUT = path.join(ROOT, 'tests/out');
fs.mkdirSync(OUT, { recursive: true }); // a fresh clone has none, and every mode writes here
const [mode, ...rest] = process.argv.slice(2);

async function streamLoop(events = 22000, reps = 8) {
  const { runRuntime } = await import('./stream.mjs');
  const fetch = streamFetch(makeStream(events, 1));
  for (let i = 0; i < reps; i += 1) console.log(`(a) ${events} events: ${(await runRuntime(fetch)).ms.toFixed(1)} ms`);
}

async function roundLoop(calls = 1, turns = 2000) {
  const { measureRounds } = await import('./rounds.mjs');
  const noop = [
    {
      ...NOOP,
      handler: () => 'ok',
    },
  ];
  const samples = await measureRounds({ turns, calls, tools: noop });
  samples.sort((a, b) => a - b);
  console.log(
    `round overhead, ${calls} call(s): median ${samples[samples.length >> 1].toFixed(0)} µs over ${samples.length} turns`,
  );
}

const buildNative = () => buildNativeBench('stream_native');

function callgrind(bin, args, label) {
  const out = path.join(OUT, `callgrind.${label}.out`);
  execFileSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, bin, ...args], {
    stdio: ['ignore', 'inherit', 'ignore'],
  });
  const report = execFileSync('callgrind_annotate', ['--inclusive=no', out], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const inclusive = execFileSync('callgrind_annotate', ['--inclusive=yes', out], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const trim = (text, n) =>
    text
      .split('\n')
      .filter((l) => /^\s*[\d,]+ \(/.test(l))
      .slice(0, n)
      .map((l) => l.replace(/\s+/g, ' ').slice(0, 220))
      .join('\n');
  console.log(
    `callgrind ${label}: ${out}\n-- self (exclusive) --\n${trim(report, 30)}\n-- inclusive --\n${trim(inclusive, 40)}`,
  );
}

// Wraps every core.Driver method to add up the time spent inside it (wasm + embind marshalling), per method.
async function split(what, a, b) {
  const { loadCore } = await import('../../js-shim/src/core.js');
  await import('../../js-shim/src/node.js');
  const core = await loadCore();
  const spent = new Map();
  for (const name of Object.getOwnPropertyNames(core.Driver.prototype)) {
    const f = core.Driver.prototype[name];
    if (typeof f !== 'function' || name === 'constructor') continue;
    core.Driver.prototype[name] = function wrapped(...args) {
      const t0 = performance.now();
      try {
        return f.apply(this, args);
      } finally {
        const s = spent.get(name) ?? { ms: 0, calls: 0, bytesOut: 0 };
        s.ms += performance.now() - t0;
        s.calls += 1;
        spent.set(name, s);
      }
    };
  }
  const t0 = performance.now();
  if (what === 'round') await roundLoop(Number(a ?? 1), Number(b ?? 1000));
  else await streamLoop(Number(a ?? 22000), Number(b ?? 5));
  const total = performance.now() - t0;
  console.log(`total ${total.toFixed(0)} ms; inside Driver methods:`);
  for (const [name, s] of [...spent.entries()].sort((x, y) => y[1].ms - x[1].ms)) {
    console.log(
      `  ${name.padEnd(16)} ${s.ms.toFixed(1).padStart(9)} ms ${((100 * s.ms) / total).toFixed(1).padStart(5)}%  ${s.calls} calls, ${((1000 * s.ms) / s.calls).toFixed(1)} µs/call`,
    );
  }
}

// The round-overhead window (RUN_FINISHED chunk delivered -> follow-up fetch), split into time inside Driver
// methods (wasm + embind) and the rest (shim JS, streams, promises), medians per turn.
async function windowSplit(calls = 1, turns = 600) {
  const { loadCore } = await import('../../js-shim/src/core.js');
  const { createRuntime } = await import('../../js-shim/src/node.js');
  const { median, scriptedRun, splitBeforeLastEvent, streamResponse } = await import('./common.mjs');
  const core = await loadCore();
  let inWindow = false;
  const spent = new Map();
  for (const name of Object.getOwnPropertyNames(core.Driver.prototype)) {
    const f = core.Driver.prototype[name];
    if (typeof f !== 'function' || name === 'constructor') continue;
    core.Driver.prototype[name] = function wrapped(...args) {
      const t0 = performance.now();
      try {
        return f.apply(this, args);
      } finally {
        if (inWindow) spent.set(name, (spent.get(name) ?? 0) + performance.now() - t0);
      }
    };
  }
  let lastAt = 0;
  let followUpAt = 0;
  const fetch = async (url, init) => {
    const now = performance.now();
    const input = JSON.parse(init.body);
    if (input.messages[input.messages.length - 1].role === 'tool') {
      followUpAt = now;
      inWindow = false;
      return streamResponse([scriptedRun(input.threadId, input.runId)]);
    }
    return streamResponse(splitBeforeLastEvent(scriptedRun(input.threadId, input.runId, { calls })), (t) => {
      lastAt = t;
      inWindow = true;
    });
  };
  const tools = [
    {
      ...NOOP,
      handler: () => 'ok',
    },
  ];
  const windows = [];
  const inside = [];
  const per = new Map();
  for (let t = 0; t < turns; t += 1) {
    const runtime = await createRuntime({ url: 'http://bench.invalid/agent', fetch, tools, repeatLimit: 0 });
    spent.clear();
    await runtime.send('go');
    runtime.dispose();
    if (t < turns / 5) continue; // warm-up
    windows.push((followUpAt - lastAt) * 1000);
    inside.push([...spent.values()].reduce((a, b) => a + b, 0) * 1000);
    for (const [k, v] of spent) per.set(k, [...(per.get(k) ?? []), v * 1000]);
  }
  const w = median(windows);
  const i = median(inside);
  console.log(
    `round window, ${calls} call(s): median ${w.toFixed(0)} µs; inside Driver methods ${i.toFixed(0)} µs (${((100 * i) / w).toFixed(0)}%); the rest (shim JS, streams, promises) ~${(w - i).toFixed(0)} µs`,
  );
  for (const [k, v] of [...per.entries()].sort((a, b) => median(b[1]) - median(a[1])))
    console.log(`  ${k.padEnd(14)} ${median(v).toFixed(1).padStart(7)} µs per window`);
}

async function namesCore(what, a, b) {
  const dir = path.join(OUT, 'variants/shipped-names');
  if (!fs.existsSync(path.join(dir, 'agui_core.mjs')))
    throw new Error('build it first: node tests/bench/variants.mjs --build-only');
  const { default: create } = await import(path.join(dir, 'agui_core.mjs'));
  const core = await create({ wasmBinary: fs.readFileSync(path.join(dir, 'agui_core.wasm')) });
  const { scriptedRun, splitBeforeLastEvent } = await import('./common.mjs');
  if (what === 'stream') {
    const stream = makeStream(Number(a ?? 22000), 1);
    for (let i = 0; i < Number(b ?? 8); i += 1) {
      const registry = new core.Registry();
      const driver = new core.Driver(registry, 'bench-thread');
      const t0 = performance.now();
      JSON.parse(driver.open(JSON.stringify({ options: {} }), ...nowArgs(core)));
      const step = JSON.parse(driver.send(JSON.stringify('go'), '{}'));
      const [head, tail] = stream.frame('bench-thread', step.run.runId);
      for (const bytes of [head, ...stream.chunks, tail]) {
        feedBytes(driver, step.run.runId, bytes);
      }
      JSON.parse(driver.endOfStream(step.run.runId, ...nowArgs(core)));
      console.log(
        `core alone (names build), ${stream.counts.events} events: ${(performance.now() - t0).toFixed(1)} ms`,
      );
      driver.delete();
      registry.delete();
    }
    return;
  }
  const registry = noopRegistry(core);
  const turns = Number(a ?? 3000);
  const t0 = performance.now();
  for (let t = 0; t < turns; t += 1) {
    const driver = new core.Driver(registry, 'bench-thread');
    JSON.parse(driver.open(JSON.stringify({ options: { repeatLimit: 0 } }), ...nowArgs(core)));
    let step = JSON.parse(driver.send(JSON.stringify('go'), '{}'));
    const runId = step.run.runId;
    for (const part of splitBeforeLastEvent(scriptedRun('bench-thread', runId, { calls: 1 }))) {
      feedBytes(driver, runId, part);
    }
    step = JSON.parse(driver.endOfStream(runId, ...nowArgs(core)));
    step = JSON.parse(driver.submitResult(step.execute[0].toolCallId, JSON.stringify('ok')));
    driver.delete();
  }
  console.log(`core rounds (names build): ${(((performance.now() - t0) * 1000) / turns).toFixed(0)} µs per turn`);
}

if (mode === 'names-stream' || mode === 'names-round') {
  await namesCore(mode.slice(6), ...rest);
} else if (mode === 'window') {
  await windowSplit(Number(rest[0] ?? 1), Number(rest[1] ?? 600));
} else if (mode === 'split') {
  await split(...rest);
} else if (mode === 'cpu') {
  const dir = path.join(OUT, 'cpuprof');
  fs.rmSync(dir, { recursive: true, force: true });
  execFileSync(process.execPath, ['--expose-gc', '--cpu-prof', `--cpu-prof-dir=${dir}`, self, ...rest], {
    stdio: 'inherit',
  });
  const file = path.join(dir, fs.readdirSync(dir)[0]);
  const { totalMs, top, categories, wasmAreas, inclusive } = topFunctions(file, 30);
  console.log(`profile ${path.relative(process.cwd(), file)}: ${totalMs.toFixed(0)} ms sampled`);
  for (const r of top) console.log(`${r.pct.toFixed(1).padStart(5)}%  ${r.name}`);
  console.log('by category:');
  for (const r of categories) console.log(`${r.pct.toFixed(1).padStart(5)}%  ${r.name}`);
  if (wasmAreas.some((r) => !/other/.test(r.name))) {
    console.log('wasm by area (% of wasm time):');
    for (const r of wasmAreas) console.log(`${r.pctOfWasm.toFixed(1).padStart(5)}%  ${r.name}`);
    console.log('inclusive (% of sampled time, any frame on the stack):');
    for (const r of inclusive) console.log(`${r.pct.toFixed(1).padStart(5)}%  ${r.name}`);
  }
} else if (mode === 'stream') {
  await streamLoop(Number(rest[0] ?? 22000), Number(rest[1] ?? 8));
} else if (mode === 'round') {
  await roundLoop(Number(rest[0] ?? 1), Number(rest[1] ?? 2000));
} else if (mode === 'native-stream') {
  const events = Number(rest[0] ?? 22000);
  const body = path.join(OUT, `stream-${events}.sse`);
  const stream = makeStream(events, 1);
  fs.writeFileSync(body, Buffer.concat(stream.chunks));
  const bin = buildNative();
  console.log('native timing:', execFileSync(bin, [body, '5'], { encoding: 'utf8' }).trim());
  callgrind(bin, [body, '1'], `stream-${events}`);
} else if (mode === 'native-round') {
  const rounds = Number(rest[0] ?? 2000);
  const bin = buildNative();
  console.log('native timing:', execFileSync(bin, ['-', '1', String(rounds)], { encoding: 'utf8' }).trim());
  callgrind(bin, ['-', '1', String(rounds)], `round-${rounds}`);
} else {
  console.log(fs.readFileSync(self, 'utf8').split('\n').slice(0, 6).join('\n'));
}
