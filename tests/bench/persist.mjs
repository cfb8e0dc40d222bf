// What createRuntime({persist}) costs, beside the same runtime without it, in one process: the 22k-event
// stream (a thread written when the message is sent, at most once a second while the run streams, and at
// its end), a tool round (the write-ahead write before the handler starts, then one after the results),
// and a turn on threads of growing size (its change records), beside one whole export written.
// The store is memoryStore(): what the runtime itself spends; a real store's I/O comes on top.
//   node --expose-gc tests/bench/persist.mjs [--reps=5]
import { createRuntime, memoryStore } from 'agui-client-tools'; // the package as it ships (dist/, minified)
import { fmtNum, gc, median, streamFetch, NOOP } from './common.mjs';
import { makeStream } from './generate.mjs';
import { measureRounds } from './rounds.mjs';
import { runRuntime } from './stream.mjs';

const reps = Number(process.argv.find((a) => a.startsWith('--reps='))?.slice(7) ?? 5);

/** A store that counts the writes it is asked for. */
function countingStore() {
  const store = memoryStore();
  const counted = { writes: 0, load: (id) => store.load(id) };
  counted.save = (id, snapshot) => {
    counted.writes += 1;
    return store.save(id, snapshot);
  };
  return counted;
}

async function streamCost() {
  const stream = makeStream(22_000);
  const fetch = streamFetch(stream);
  const plain = [];
  const kept = [];
  let writes = 0;
  for (let r = 0; r < reps + 1; r += 1) {
    const store = countingStore();
    const a = await runRuntime(fetch);
    const b = await runRuntime(fetch, { options: { persist: store } });
    if (r === 0) continue; // warm-up
    plain.push(a.ms);
    kept.push(b.ms);
    writes = store.writes;
  }
  return { events: stream.events.length, plain: median(plain), kept: median(kept), writes };
}

async function roundCost() {
  const tools = [{ ...NOOP, handler: () => 'noop' }];
  const run = (options) => measureRounds({ turns: 200, calls: 1, tools, options });
  const plain = [];
  const kept = [];
  for (let r = 0; r < reps; r += 1) {
    plain.push(median(await run({})));
    kept.push(median(await run({ persist: memoryStore() })));
  }
  return { plain: median(plain), kept: median(kept) };
}

/** A fetch whose first run fills the thread with `messages` assistant messages, then one short reply per run. */
function fillingFetch(messages) {
  const filler = [];
  for (let i = 0; i < messages; i += 1)
    filler.push({
      type: 'TEXT_MESSAGE_CHUNK',
      messageId: `m${i}`,
      role: 'assistant',
      delta: `message ${i} `.repeat(8),
    });
  let runs = 0;
  return async (url, init) => {
    const { threadId, runId } = JSON.parse(init.body);
    const body =
      runs++ === 0 ? filler : [{ type: 'TEXT_MESSAGE_CHUNK', messageId: `r${runs}`, role: 'assistant', delta: 'ok' }];
    const all = [{ type: 'RUN_STARTED', threadId, runId }, ...body, { type: 'RUN_FINISHED', threadId, runId }];
    return new Response(all.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''), {
      headers: { 'content-type': 'text/event-stream' },
    });
  };
}

/**
 * On a thread of `messages` messages: µs per turn (a message sent, a one-message reply; 20 in a row)
 * without a store and with one (its writes: two change records a turn), and for one whole export
 * written (what a compaction costs, and what every write cost before change records).
 */
async function turnCost(messages) {
  const opened = async (persist) => {
    const runtime = await createRuntime({ url: 'http://bench.invalid/agent', fetch: fillingFetch(messages), persist });
    await runtime.send('fill');
    return runtime;
  };
  const plain = await opened(undefined);
  const kept = await opened(memoryStore());
  const TURNS = 20;
  const turns = async (runtime) => {
    const t0 = performance.now();
    for (let i = 0; i < TURNS; i += 1) await runtime.send('hi');
    return ((performance.now() - t0) * 1000) / TURNS;
  };
  const samples = { plain: [], kept: [], whole: [] };
  for (let r = 0; r < reps; r += 1) {
    gc();
    samples.plain.push(await turns(plain));
    gc();
    samples.kept.push(await turns(kept));
  }
  for (let r = 0; r < reps; r += 1) {
    const t0 = performance.now();
    await memoryStore().save(kept.threadId, kept.thread.export());
    samples.whole.push((performance.now() - t0) * 1000);
  }
  plain.dispose();
  kept.dispose();
  return { plain: median(samples.plain), kept: median(samples.kept), whole: median(samples.whole) };
}

const stream = await streamCost();
const round = await roundCost();
console.log(`persist: memoryStore() beside no store, median of ${reps}`);
console.log(
  `  22k stream (${stream.events} events): ${fmtNum(stream.plain, 1)} ms → ${fmtNum(stream.kept, 1)} ms, ${fmtNum(stream.kept / stream.plain, 2)}x; ${stream.writes} writes; ${fmtNum(((stream.kept - stream.plain) * 1000) / stream.events, 3)} µs per event`,
);
console.log(
  `  tool round, 1 call: ${fmtNum(round.plain, 1)} µs → ${fmtNum(round.kept, 1)} µs, ${fmtNum(round.kept / round.plain, 2)}x (${fmtNum(round.kept - round.plain, 1)} µs per call: the write-ahead write)`,
);
for (const n of [10, 100, 1000]) {
  const c = await turnCost(n);
  console.log(
    `  a turn on a thread of ${n} messages: ${fmtNum(c.plain, 1)} µs → ${fmtNum(c.kept, 1)} µs (+${fmtNum(c.kept - c.plain, 1)} µs: its change records); one whole export written: ${fmtNum(c.whole, 1)} µs`,
  );
}
