// Focused profiling runs behind the bench's misses (not part of run.mjs):
//   node tests/bench/profile.mjs cpu stream [events=22000] [reps=8]   node --cpu-prof of path (a), top self time
//   node tests/bench/profile.mjs cpu round [calls=1] [turns=2000]     node --cpu-prof of the round-overhead loop
//   node tests/bench/profile.mjs native-stream [events=22000]         callgrind of stream_native.cpp (the core natively)
//   node tests/bench/profile.mjs native-round [rounds=2000]           callgrind of the round path natively
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeStream } from './generate.mjs';
import { streamFetch } from './common.mjs';
import { topFunctions } from './cpuprofile-top.mjs';

const self = fileURLToPath(import.meta.url);
const here = path.dirname(self);
const ROOT = path.resolve(here, '../..');
const OUT = path.join(ROOT, 'tests/out');
const [mode, ...rest] = process.argv.slice(2);

async function streamLoop(events = 22000, reps = 8) {
  const { runRuntime } = await import('./stream.mjs');
  const fetch = streamFetch(makeStream(events, 1));
  for (let i = 0; i < reps; i += 1) console.log(`(a) ${events} events: ${(await runRuntime(fetch)).ms.toFixed(1)} ms`);
}

async function roundLoop(calls = 1, turns = 2000) {
  const { measureRounds } = await import('./rounds.mjs');
  const noop = [{ name: 'noop', description: 'does nothing', parameters: { type: 'object', properties: { i: { type: 'integer' } } }, handler: () => 'ok' }];
  const samples = await measureRounds({ turns, calls, tools: noop });
  samples.sort((a, b) => a - b);
  console.log(`round overhead, ${calls} call(s): median ${samples[samples.length >> 1].toFixed(0)} µs over ${samples.length} turns`);
}

function buildNative() {
  const wasm = path.join(ROOT, 'wasm');
  const sources = fs.readdirSync(wasm).filter((f) => f.endsWith('.cpp')).map((f) => path.join(wasm, f));
  const bin = path.join(OUT, 'stream_native');
  fs.mkdirSync(OUT, { recursive: true });
  execFileSync('g++', ['-O2', '-g', '-std=c++20', `-I${wasm}`, path.join(here, 'stream_native.cpp'), ...sources, '-o', bin], { stdio: 'inherit' });
  return bin;
}

function callgrind(bin, args, label) {
  const out = path.join(OUT, `callgrind.${label}.out`);
  execFileSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, bin, ...args], { stdio: ['ignore', 'inherit', 'ignore'] });
  const report = execFileSync('callgrind_annotate', ['--inclusive=no', out], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const inclusive = execFileSync('callgrind_annotate', ['--inclusive=yes', out], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const trim = (text, n) => text.split('\n').filter((l) => /^\s*[\d,]+ \(/.test(l)).slice(0, n).map((l) => l.replace(/\s+/g, ' ').slice(0, 220)).join('\n');
  console.log(`callgrind ${label}: ${out}\n-- self (exclusive) --\n${trim(report, 30)}\n-- inclusive --\n${trim(inclusive, 40)}`);
}

if (mode === 'cpu') {
  const dir = path.join(OUT, 'cpuprof');
  fs.rmSync(dir, { recursive: true, force: true });
  execFileSync(process.execPath, ['--expose-gc', '--cpu-prof', `--cpu-prof-dir=${dir}`, self, ...rest], { stdio: 'inherit' });
  const file = path.join(dir, fs.readdirSync(dir)[0]);
  const { totalMs, top, categories } = topFunctions(file, 30);
  console.log(`profile ${path.relative(process.cwd(), file)}: ${totalMs.toFixed(0)} ms sampled`);
  for (const r of top) console.log(`${r.pct.toFixed(1).padStart(5)}%  ${r.name}`);
  console.log('by category:');
  for (const r of categories) console.log(`${r.pct.toFixed(1).padStart(5)}%  ${r.name}`);
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
