// Checks the differential-test corpus in tests/fixtures/streams/: every event
// validates against @ag-ui/core's EventSchema and carries no key its schema
// does not name (@ag-ui/client would strip it with a warning), every input
// message validates against MessageSchema, and the corpus as a whole covers
// every event type and the variants the reducer must get right.
// Run: node tests/support/validate-corpus.mjs   (exit 1 on any problem)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventSchema, MessageSchema } from '@ag-ui/core/schemas';
import { EventType } from '@ag-ui/core';

export const CORPUS_DIR = fileURLToPath(new URL('../fixtures/streams/', import.meta.url));

/** The corpus stream files (NAME.json, not NAME.expected.json), sorted. */
export function corpusNames(dir = CORPUS_DIR) {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !f.endsWith('.expected.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

export function loadCorpus(name, dir = CORPUS_DIR) {
  return JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8'));
}

// Top-level keys each event type's schema names.
const KNOWN_KEYS = new Map(EventSchema.options.map((o) => [o.shape.type.value, new Set(Object.keys(o.shape))]));

/** @returns {string[]} problems, empty when the corpus is sound */
export function validateCorpus(dir = CORPUS_DIR) {
  const problems = [];
  const seen = new Set();
  const variants = new Set();
  const names = corpusNames(dir);
  if (names.length < 8) problems.push(`corpus has ${names.length} streams; want at least 8`);
  for (const name of names) {
    const where = (s) => problems.push(`${name}: ${s}`);
    let doc;
    try {
      doc = loadCorpus(name, dir);
    } catch (err) {
      where(`not JSON: ${err.message}`);
      continue;
    }
    if (typeof doc.description !== 'string' || !doc.description) where('no description');
    const { input, events } = doc;
    if (typeof input?.threadId !== 'string' || typeof input?.runId !== 'string')
      where('input needs threadId and runId');
    if (!Array.isArray(input?.messages)) where('input.messages is not an array');
    (input?.messages ?? []).forEach((m, i) => {
      const r = MessageSchema.safeParse(m);
      if (!r.success) where(`input.messages[${i}]: ${r.error.issues.map((x) => x.message).join('; ')}`);
    });
    if (!Array.isArray(events) || events.length === 0) {
      where('no events');
      continue;
    }
    if (events[0].type !== 'RUN_STARTED') where('first event is not RUN_STARTED');
    if (!['RUN_FINISHED', 'RUN_ERROR'].includes(events.at(-1).type)) where('last event is not RUN_FINISHED/RUN_ERROR');
    events.forEach((e, i) => {
      const r = EventSchema.safeParse(e);
      if (!r.success)
        return where(
          `events[${i}] ${e?.type}: ${r.error.issues.map((x) => `${x.path.join('/')} ${x.message}`).join('; ')}`,
        );
      const extra = Object.keys(e).filter((k) => !KNOWN_KEYS.get(e.type).has(k));
      if (extra.length) where(`events[${i}] ${e.type}: keys its schema does not name: ${extra.join(', ')}`);
      seen.add(e.type);
      for (const v of variantsOf(e)) variants.add(v);
    });
  }
  for (const t of Object.values(EventType)) if (!seen.has(t)) problems.push(`corpus: no ${t} event`);
  for (const v of REQUIRED_VARIANTS) if (!variants.has(v)) problems.push(`corpus: no stream shows "${v}"`);
  return problems;
}

const REQUIRED_VARIANTS = [
  'TEXT_MESSAGE_CHUNK with id',
  'TEXT_MESSAGE_CHUNK without id',
  'TOOL_CALL_CHUNK with id',
  'TOOL_CALL_CHUNK without id',
  'REASONING_MESSAGE_CHUNK with id',
  'REASONING_MESSAGE_CHUNK without id',
  'ACTIVITY_SNAPSHOT replace:true',
  'ACTIVITY_SNAPSHOT replace:false',
  'ACTIVITY_SNAPSHOT replace absent',
  'RUN_STARTED with input.messages',
  'metadata on an event',
  'REASONING_ENCRYPTED_VALUE message',
  'REASONING_ENCRYPTED_VALUE tool-call',
  'RUN_FINISHED pendingToolCallIds',
  'RUN_FINISHED interrupt',
  'RUN_FINISHED cancelled',
  'MESSAGES_SNAPSHOT with activity',
  'MESSAGES_SNAPSHOT without activity',
  'TOOL_CALL_RESULT with content parts',
  'subagentRunId on an event',
];

function variantsOf(e) {
  const out = [];
  const idKey = {
    TEXT_MESSAGE_CHUNK: 'messageId',
    TOOL_CALL_CHUNK: 'toolCallId',
    REASONING_MESSAGE_CHUNK: 'messageId',
  }[e.type];
  if (idKey) out.push(`${e.type} ${e[idKey] === undefined ? 'without' : 'with'} id`);
  if (e.type === 'ACTIVITY_SNAPSHOT')
    out.push(`ACTIVITY_SNAPSHOT replace${e.replace === undefined ? ' absent' : `:${e.replace}`}`);
  if (e.type === 'RUN_STARTED' && Array.isArray(e.input?.messages) && e.input.messages.length)
    out.push('RUN_STARTED with input.messages');
  if (e.metadata) out.push('metadata on an event');
  if (e.subagentRunId && !e.type.startsWith('SUBAGENT_')) out.push('subagentRunId on an event');
  if (e.type === 'REASONING_ENCRYPTED_VALUE') out.push(`REASONING_ENCRYPTED_VALUE ${e.subtype}`);
  if (e.type === 'RUN_FINISHED' && e.outcome?.pendingToolCallIds) out.push('RUN_FINISHED pendingToolCallIds');
  if (e.type === 'RUN_FINISHED' && e.outcome && e.outcome.type !== 'success')
    out.push(`RUN_FINISHED ${e.outcome.type}`);
  if (e.type === 'MESSAGES_SNAPSHOT')
    out.push(`MESSAGES_SNAPSHOT ${e.messages.some((m) => m.role === 'activity') ? 'with' : 'without'} activity`);
  if (e.type === 'TOOL_CALL_RESULT' && Array.isArray(e.content)) out.push('TOOL_CALL_RESULT with content parts');
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const problems = validateCorpus();
  for (const p of problems) console.error(p);
  console.log(problems.length ? `${problems.length} problem(s)` : `corpus OK: ${corpusNames().length} streams`);
  process.exit(problems.length ? 1 : 0);
}
