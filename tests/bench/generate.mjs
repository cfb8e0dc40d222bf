// Bench input generator: seeded, reproducible AG-UI conversations (streamed text deltas, tool calls with chunked
// arguments, tool results, a STATE_DELTA now and then), encoded to SSE with @ag-ui/encoder and cut into chunks.
import { EventEncoder } from '@ag-ui/encoder';
import { seededRandom } from '../support/random.mjs';

const WORDS = (
  'the permit for building on Congress Avenue was filed in March and approved after review by the city ' +
  'planning office; total valuation came to 1.2 million dollars with three storeys residential mixed use ' +
  'zoning district setbacks parking variance café déjà vu naïve Grüße ☀️ data analysis shows a steady rise ' +
  'of new construction near downtown while renovations dominate the older neighbourhoods east of the highway'
).split(' ');

const TOOL_NAMES = ['search_permits', 'get_weather', 'run_sql', 'geocode', 'summarise_table', 'fetch_page'];

const int = (rand, lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = (rand, list) => list[Math.floor(rand() * list.length)];

function sentence(rand, words) {
  const out = [];
  for (let i = 0; i < words; i += 1) out.push(pick(rand, WORDS));
  return out.join(' ');
}

/** Cuts `text` into pieces of lo..hi characters (never inside a surrogate pair). */
function split(rand, text, lo, hi) {
  const parts = [];
  let i = 0;
  while (i < text.length) {
    let n = Math.min(text.length - i, int(rand, lo, hi));
    const code = text.charCodeAt(i + n - 1);
    if (code >= 0xd800 && code <= 0xdbff && i + n < text.length) n += 1; // keep a surrogate pair together
    parts.push(text.slice(i, i + n));
    i += n;
  }
  return parts;
}

function toolArguments(rand, name) {
  switch (name) {
    case 'search_permits':
      return {
        query: sentence(rand, int(rand, 2, 6)),
        district: pick(rand, ['downtown', 'east', 'north', 'south']),
        limit: int(rand, 5, 50),
        filters: { minValuation: int(rand, 1, 9) * 100000, types: ['new', 'remodel'] },
      };
    case 'get_weather':
      return {
        city: pick(rand, ['Austin', 'Zürich', 'São Paulo', 'Kyoto']),
        units: pick(rand, ['metric', 'imperial']),
      };
    case 'run_sql':
      return {
        sql: `SELECT district, count(*) FROM permits WHERE valuation > ${int(rand, 1, 900)}000 GROUP BY district ORDER BY 2 DESC LIMIT ${int(rand, 3, 20)}`,
      };
    case 'geocode':
      return {
        address: `${int(rand, 100, 9999)} ${pick(rand, ['Congress Ave', 'Lamar Blvd', 'E 6th St'])}, Austin TX`,
        precise: rand() < 0.5,
      };
    case 'summarise_table':
      return { columns: ['district', 'count', 'valuation'], rows: int(rand, 5, 40), style: 'bullets' };
    default:
      return { url: `https://example.org/permits/${int(rand, 1, 99999)}`, maxBytes: 65536 };
  }
}

function toolResult(rand, name) {
  const rows = [];
  const n = int(rand, 1, 6);
  for (let i = 0; i < n; i += 1)
    rows.push({ id: int(rand, 1, 99999), district: pick(rand, ['downtown', 'east']), value: int(rand, 1, 999) * 1000 });
  return JSON.stringify({ tool: name, ok: true, rows, note: sentence(rand, int(rand, 3, 10)) });
}

/**
 * The events between RUN_STARTED and RUN_FINISHED of one run, about `target` events in all (the two run events
 * included), so the caller can wrap them with the request's threadId and runId. Each assistant turn streams text,
 * then often calls one to three server tools whose results arrive in the same stream; a STATE_DELTA follows now
 * and then. State stays small (a bounded log), as an agent's progress state would.
 */
export function generateConversation(target, seed = 1) {
  const rand = seededRandom(seed);
  const events = [{ type: 'STATE_SNAPSHOT', snapshot: { phase: 'working', step: 0, progress: 0, log: [] } }];
  let n = 0;
  let step = 0;
  let logLength = 0;
  const counts = { text: 0, deltas: 0, calls: 0, args: 0, results: 0, stateDeltas: 0 };
  while (events.length + 2 < target) {
    n += 1;
    const messageId = `msg-${seed}-${n}`;
    events.push({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' });
    counts.text += 1;
    for (const delta of split(rand, sentence(rand, int(rand, 15, 60)) + '. ', 3, 24)) {
      events.push({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta });
      counts.deltas += 1;
    }
    events.push({ type: 'TEXT_MESSAGE_END', messageId });
    if (rand() < 0.7) {
      const calls = int(rand, 1, 3);
      const ids = [];
      for (let c = 0; c < calls; c += 1) {
        const toolCallId = `call-${seed}-${n}-${c}`;
        const name = pick(rand, TOOL_NAMES);
        ids.push([toolCallId, name]);
        events.push({ type: 'TOOL_CALL_START', toolCallId, toolCallName: name, parentMessageId: messageId });
        for (const delta of split(rand, JSON.stringify(toolArguments(rand, name)), 4, 20)) {
          events.push({ type: 'TOOL_CALL_ARGS', toolCallId, delta });
          counts.args += 1;
        }
        events.push({ type: 'TOOL_CALL_END', toolCallId });
        counts.calls += 1;
      }
      for (const [toolCallId, name] of ids) {
        events.push({
          type: 'TOOL_CALL_RESULT',
          messageId: `res-${toolCallId}`,
          toolCallId,
          content: toolResult(rand, name),
          role: 'tool',
        });
        counts.results += 1;
      }
    }
    if (rand() < 0.35) {
      step += 1;
      const delta = [
        { op: 'replace', path: '/step', value: step },
        { op: 'replace', path: '/progress', value: Math.round(rand() * 1000) / 10 },
        { op: 'add', path: '/log/-', value: { step, note: sentence(rand, 4) } },
      ];
      logLength += 1;
      if (logLength > 8) {
        delta.push({ op: 'remove', path: '/log/0' });
        logLength -= 1;
      }
      events.push({ type: 'STATE_DELTA', delta });
      counts.stateDeltas += 1;
    }
  }
  counts.events = events.length + 2;
  return { events, counts };
}

const encoder = new EventEncoder();
const utf8 = new TextEncoder();

/** SSE bytes of `events`, as @ag-ui/encoder writes them. */
export function encodeEvents(events) {
  let text = '';
  for (const event of events) text += encoder.encodeSSE(event);
  return utf8.encode(text);
}

/** Cuts `bytes` into chunks of lo..hi bytes (views, no copies), anywhere: inside events, lines and UTF-8 sequences. */
export function chunk(bytes, seed = 7, lo = 1024, hi = 4096) {
  const rand = seededRandom(seed);
  const chunks = [];
  for (let i = 0; i < bytes.length;) {
    const n = Math.min(bytes.length - i, int(rand, lo, hi));
    chunks.push(bytes.subarray(i, i + n));
    i += n;
  }
  return chunks;
}

export const runStarted = (threadId, runId) => ({ type: 'RUN_STARTED', threadId, runId });
export const runFinished = (threadId, runId, outcome = { type: 'success' }) => ({
  type: 'RUN_FINISHED',
  threadId,
  runId,
  outcome,
});

/**
 * A stream of one generated run: the body chunks (the same for every request) plus a function giving the
 * first and last chunk (RUN_STARTED / RUN_FINISHED) for a request's threadId and runId.
 */
export function makeStream(target, seed = 1) {
  const { events, counts } = generateConversation(target, seed);
  const body = encodeEvents(events);
  const chunks = chunk(body, seed + 100);
  return {
    events,
    counts,
    bytes: body.length,
    chunks,
    frame: (threadId, runId) => [
      encodeEvents([runStarted(threadId, runId)]),
      encodeEvents([runFinished(threadId, runId)]),
    ],
  };
}
