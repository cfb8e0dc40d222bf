// Bench section 4: schema validations per second: ajv's compiled validators, the wasm core reached through the
// bindings (an interrupt's responseSchema check, the only entry that validates a payload directly), and the same
// validator built natively (validate_native.cpp).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import { feedBytes, loadCore } from '../../js-shim/src/core.js';
import '../../js-shim/src/node.js'; // sets the node binary loader loadCore() uses
import { encodeEvents, runFinished, runStarted } from './generate.mjs';
import { buildNativeBench, median, nowArgs } from './common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../..');
export const OUT = path.join(ROOT, 'tests/out');

/** The validation set: tests/schema/realistic-schemas.json when another engineer's file is there, else ours. */
export function loadSchemaSet() {
  const shared = path.join(ROOT, 'tests/schema/realistic-schemas.json');
  const own = path.join(here, 'schemas.json');
  for (const file of [shared, own]) {
    if (!fs.existsSync(file)) continue;
    const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
    const set = normaliseSet(raw);
    if (set.length) return { file: path.relative(ROOT, file), set };
  }
  throw new Error('no schema set found');
}

// Accepts {schemas: [{name, schema, valid: [...], invalid: [...]}]} (ours) and the likely shapes of the shared
// file: an array of such entries, or entries with {parameters|schema, tests|instances: [{data|instance, valid}]}.
function normaliseSet(raw) {
  const list = Array.isArray(raw) ? raw : (raw.schemas ?? raw.tools ?? raw.cases ?? []);
  const out = [];
  list.forEach((entry, n) => {
    const schema = entry.schema ?? entry.parameters;
    if (!schema || typeof schema !== 'object') return;
    const valid = [...(entry.valid ?? [])];
    const invalid = [...(entry.invalid ?? [])];
    for (const t of entry.tests ?? entry.instances ?? entry.cases ?? []) {
      const data = t.data ?? t.instance ?? t.args ?? t.arguments;
      if (data === undefined) continue;
      (t.valid ? valid : invalid).push(data);
    }
    const name = String(entry.name ?? entry.tool ?? `schema_${n}`)
      .replace(/[^A-Za-z0-9_-]/g, '_')
      .slice(0, 64);
    if (valid.length + invalid.length) out.push({ name, schema, valid, invalid });
  });
  return out;
}

/** Round-robin rate over `cases` (validations/s): median of `samples` samples of about `ms` each. */
function rate(cases, one, { ms = 250, samples = 5 } = {}) {
  const rates = [];
  for (let s = 0; s < samples; s += 1) {
    let n = 0;
    const t0 = performance.now();
    let elapsed = 0;
    do {
      for (let i = 0; i < cases.length; i += 1) one(cases[i]);
      n += cases.length;
      elapsed = performance.now() - t0;
    } while (elapsed < ms);
    rates.push((n / elapsed) * 1000);
  }
  return median(rates);
}

function flatten(set) {
  const cases = [];
  for (const s of set) {
    for (const v of s.valid) cases.push({ entry: s, instance: v, text: JSON.stringify(v), valid: true });
    for (const v of s.invalid) cases.push({ entry: s, instance: v, text: JSON.stringify(v), valid: false });
  }
  return cases;
}

export function ajvBench(set) {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const compiled = new Map(set.map((s) => [s, ajv.compile(s.schema)]));
  const cases = flatten(set);
  let mismatches = 0;
  for (const c of cases) if (compiled.get(c.entry)(c.instance) !== c.valid) mismatches += 1;
  const one = (c) => compiled.get(c.entry)(c.instance);
  return {
    cases: cases.length,
    mismatches,
    validatePerSec: rate(cases, one),
    validateValidPerSec: rate(
      cases.filter((c) => c.valid),
      one,
    ),
    validateInvalidPerSec: rate(
      cases.filter((c) => !c.valid),
      one,
    ),
    parseAndValidatePerSec: rate(cases, (c) => compiled.get(c.entry)(JSON.parse(c.text))),
  };
}

/**
 * The wasm validator through the bindings, via Driver.resolveInterrupt: an interrupt's answer is checked against its
 * responseSchema, and a payload that does not match is refused with nothing changed, so the call can repeat. Each
 * schema is compiled as {...schema, not: {}}: every keyword of the schema is evaluated, then `not` fails, so valid
 * and invalid instances alike are refused (and the interrupt stays pending). A schema of just {not: {}} gives the
 * cost of the boundary itself (string in, JSON parse in the core, refusal JSON out), subtracted for the estimate.
 */
export async function wasmBench(set) {
  const core = await loadCore();
  const registry = new core.Registry();
  const driver = new core.Driver(registry, 'bench-validate');
  try {
    JSON.parse(driver.open(JSON.stringify({ options: {} }), ...nowArgs(core)));
    const step = JSON.parse(driver.send(JSON.stringify('validate'), '{}'));
    const runId = step.run.runId;
    const interrupts = set.map((s, i) => ({
      id: `v${i}`,
      reason: 'bench',
      responseSchema: 'not' in s.schema ? { allOf: [s.schema], not: {} } : { ...s.schema, not: {} },
    }));
    interrupts.push({ id: 'boundary', reason: 'bench', responseSchema: { not: {} } });
    interrupts.push({
      id: 'probe',
      reason: 'bench',
      responseSchema: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] },
    });
    const bytes = encodeEvents([
      runStarted('bench-validate', runId),
      runFinished('bench-validate', runId, { type: 'interrupt', interrupts }),
    ]);
    const fed = feedBytes(driver, runId, bytes);
    const ended = JSON.parse(driver.endOfStream(runId, ...nowArgs(core)));
    const changes = [...(fed.changes ?? []), ...(ended.changes ?? [])];
    const problems = changes.filter((c) => c.kind === 'problem');
    if (problems.length) throw new Error(`wasm validation bench: ${JSON.stringify(problems)}`);
    // Probe: the real validator refuses {"x": 1}; a stub that accepts everything would answer the interrupt.
    const probe = JSON.parse(driver.resolveInterrupt('probe', JSON.stringify({ x: 1 }), ...nowArgs(core)));
    const refusesNot = Boolean(JSON.parse(driver.resolveInterrupt('boundary', '{}', ...nowArgs(core))).error);
    const realValidator = Boolean(probe.error) && refusesNot;
    if (!realValidator)
      return { realValidator, skipped: "this module's validator accepts invalid payloads (the stub build)" };
    const cases = flatten(set).map((c) => ({ ...c, id: `v${set.indexOf(c.entry)}` }));
    // Every call must be refused (nothing changes); check once.
    for (const c of cases) {
      const r = JSON.parse(driver.resolveInterrupt(c.id, c.text, ...nowArgs(core)));
      if (!r.error) throw new Error(`wasm validation bench: ${c.entry.name} answered the interrupt`);
    }
    let sink = 0;
    const now = nowArgs(core);
    const one = (c) => (sink += driver.resolveInterrupt(c.id, c.text, ...now).length);
    const boundary = (c) => (sink += driver.resolveInterrupt('boundary', c.text, ...now).length);
    // Interleaved samples of the two, so the difference is taken under the same conditions.
    const pairs = [];
    for (let i = 0; i < 7; i += 1)
      pairs.push([rate(cases, one, { samples: 1 }), rate(cases, boundary, { samples: 1 })]);
    const all = median(pairs.map((p) => p[0]));
    const allBoundary = median(pairs.map((p) => p[1]));
    const usDiff = median(pairs.map(([a, b]) => 1e6 / a - 1e6 / b));
    const valid = rate(
      cases.filter((c) => c.valid),
      one,
    );
    const invalid = rate(
      cases.filter((c) => !c.valid),
      one,
    );
    const usPer = 1e6 / all;
    const usBoundary = 1e6 / allBoundary;
    return {
      realValidator,
      cases: cases.length,
      callsPerSec: all,
      validCallsPerSec: valid,
      invalidCallsPerSec: invalid,
      boundaryCallsPerSec: allBoundary,
      usPerCall: usPer,
      usBoundary,
      usValidateEstimate: usDiff,
      estValidatePerSec: usDiff > 0 ? 1e6 / usDiff : NaN,
      sink,
    };
  } finally {
    driver.delete();
    registry.delete();
  }
}

/** Builds validate_native (the CMake target, incrementally) and runs it. */
export function nativeBench(setFile) {
  let bin;
  try {
    bin = buildNativeBench('validate_native', { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    return {
      skipped: `the native build failed: ${String(e.stderr ?? e.message)
        .split('\n')
        .slice(0, 4)
        .join(' | ')}`,
    };
  }
  const out = execFileSync(bin, [path.join(ROOT, setFile), '0.25', '5'], { encoding: 'utf8' });
  return { ...JSON.parse(out) };
}

export async function validationBench() {
  const { file, set } = loadSchemaSet();
  const ajv = ajvBench(set);
  const wasm = await wasmBench(set);
  const native = nativeBench(file);
  return { setFile: file, schemas: set.length, ajv, wasm, native };
}
