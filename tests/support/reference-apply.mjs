// The reference side of the differential test: what @ag-ui/client 1.0.0 makes
// of a corpus stream. It drives the client's own pipeline end to end (an
// AbstractAgent whose run() replays the events, then runAgent: compatibility
// boundary, enforceEvents, transformChunks, verifyEvents, defaultApplyEvents)
// and reads agent.messages / agent.state, so nothing of the client is re-implemented.
//   node tests/support/reference-apply.mjs --write   regenerate NAME.expected.json and NAME.sse
//   node tests/support/reference-apply.mjs --check   exit 1 if any of them is stale
//
// @ag-ui/client behaviours seen on this corpus (candidates for the list of
// deliberate differences in the differential test):
// - It reports problems with console.warn and carries on; they are captured
//   here into `warnings` (e.g. "TOOL_CALL_START: parentMessageId 'u1' matches a
//   'user' message, not assistant — falling back to toolCallId", "Failed to
//   apply state patch: ..." with the whole state printed).
// - A tool call without parentMessageId becomes its own assistant message whose
//   id is the toolCallId; an unknown parentMessageId becomes a new assistant
//   message with that id.
// - TOOL_CALL_RESULT is spliced right after the assistant message holding the
//   call (after any tool messages already there); a result for an unknown call
//   is appended at the end, silently.
// - A failed STATE_DELTA leaves the state untouched (the patch is atomic).
// - ACTIVITY_DELTA for an unknown messageId is dropped without a warning.
// - MESSAGES_SNAPSHOT keeps local activity messages unless the snapshot has
//   activity messages of its own (or names authoritative types under the
//   metadata key "@ag-ui/client"), and keeps local reasoning messages unless it
//   has reasoning messages; other messages it omits are removed; new ones are
//   appended at the end, known ones replaced in place.
// - A CUSTOM (or STEP_*, STATE_*, TOOL_CALL_RESULT, ...) event closes an open
//   TEXT_MESSAGE_CHUNK stream; RAW and ACTIVITY_* do not. A later chunk with
//   the same messageId reopens the message and appends to it.
// - REASONING_ENCRYPTED_VALUE for an unknown entity is ignored silently.
// - Its SSE parser splits on "\n\n" only: CRLF or CR-framed streams (legal SSE,
//   see scenario sse_variants) do not parse there. The corpus .sse files use
//   the encoder's LF framing, so this does not show up in the expected files.
// - Over HTTP (HttpAgent, not used here): invalid JSON in a data line fails
//   the whole run; a socket cut mid-stream (scenario truncated) rejects
//   runAgent *and* leaves an unhandled rejection ("TypeError: terminated")
//   that kills a plain node process.
// - Metadata is merged key by key (last write wins) across start/content/end
//   events, and survives an ACTIVITY_SNAPSHOT that replaces the content.
// - It deep-copies the changed message list after every event (what STYLE.md
//   tells us not to copy); fine here, the corpus is small.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { from } from 'rxjs';
import { AbstractAgent } from '@ag-ui/client';
import { EventEncoder } from '@ag-ui/encoder';
import { CORPUS_DIR, corpusNames, loadCorpus } from './validate-corpus.mjs';

class ReplayAgent extends AbstractAgent {
  constructor(events, config) {
    super(config);
    this.events = events;
  }
  run() {
    return from(structuredClone(this.events));
  }
}

/**
 * @param {{input: {threadId, runId, messages, state?}, events: object[]}} stream
 * @returns {Promise<{messages, state, run, warnings, error?}>} `run` is what the
 *   client's onRunFinishedEvent / onRunErrorEvent saw (outcome, pendingToolCallIds, interrupts, error).
 */
export async function referenceApply({ input, events }) {
  const warnings = [];
  const saved = { warn: console.warn, error: console.error };
  const capture =
    (level) =>
    (...args) =>
      warnings.push(`${level}: ${args.map(show).join(' ')}`);
  console.warn = capture('warn');
  console.error = capture('error');
  const runs = [];
  let error;
  const agent = new ReplayAgent(events, {
    threadId: input.threadId,
    initialMessages: input.messages ?? [],
    initialState: input.state ?? {},
  });
  try {
    await agent.runAgent(
      { runId: input.runId, tools: input.tools, context: input.context },
      {
        onRunFinishedEvent: ({ outcome, pendingToolCallIds, interrupts, result }) => {
          runs.push(clean({ outcome, pendingToolCallIds, interrupts, result }));
        },
        onRunErrorEvent: ({ event }) => {
          runs.push(clean({ outcome: 'error', message: event.message, code: event.code }));
        },
      },
    );
  } catch (err) {
    error = String(err?.message ?? err);
  } finally {
    Object.assign(console, saved);
  }
  return clean({ messages: agent.messages, state: agent.state, runs, warnings, error });
}

/** The corpus stream as SSE bytes, exactly as @ag-ui/encoder writes them. */
export function encodeSse(events) {
  const encoder = new EventEncoder();
  return events.map((e) => encoder.encode(e)).join('');
}

const show = (a) => (typeof a === 'string' ? a : a instanceof Error ? a.message : JSON.stringify(a));
const clean = (o) => JSON.parse(JSON.stringify(o)); // drops undefined, so files compare as JSON

async function regenerate(mode) {
  const stale = [];
  for (const name of corpusNames()) {
    const doc = loadCorpus(name);
    const outputs = {
      [`${name}.expected.json`]: `${JSON.stringify(await referenceApply(doc), null, 2)}\n`,
      [`${name}.sse`]: encodeSse(doc.events),
    };
    for (const [file, text] of Object.entries(outputs)) {
      const target = path.join(CORPUS_DIR, file);
      const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : null;
      if (current === text) continue;
      if (mode === '--write') fs.writeFileSync(target, text);
      stale.push(file);
    }
  }
  if (mode === '--write') console.log(stale.length ? `wrote ${stale.join(', ')}` : 'all up to date');
  else if (stale.length) console.error(`stale (run with --write): ${stale.join(', ')}`);
  else console.log('expected files up to date');
  return stale;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const mode = process.argv[2] ?? '--check';
  if (!['--write', '--check'].includes(mode)) {
    console.error('usage: node tests/support/reference-apply.mjs [--write|--check]');
    process.exit(2);
  }
  const stale = await regenerate(mode);
  process.exit(mode === '--check' && stale.length ? 1 : 0);
}
