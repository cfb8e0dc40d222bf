// Numbers through the module as it ships: the state a server sends and the
// arguments a handler gets hold every number as JSON.parse reads it. The
// module reads decimals with its own strtod (bindings/libc_numbers.cpp: exact
// arithmetic, else the host's Number()) and writes them with nlohmann's
// shortest round trip, so a number read one bit off comes back as other text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { T, open, streamedResponse } from './helpers.mjs';

const EDGES = [
  '0',
  '-0',
  '0.0',
  '-0.0',
  '1',
  '-1',
  '3.14',
  '0.1',
  '0.30000000000000004',
  '1e22',
  '1e23',
  '-1e23',
  '9007199254740992',
  '9007199254740993',
  '18446744073709551615',
  '18446744073709551616',
  '-9223372036854775808',
  '-9223372036854775809',
  '123456789012345678901234567890',
  '2.2250738585072011e-308',
  '2.2250738585072014e-308',
  '4.9406564584124654e-324',
  '5e-324',
  '1e-400',
  '-1e-400',
  '1.7976931348623157e308',
  '1.7976931348623158e308',
  '1e400',
  '-1e400',
  '7.038531e-26',
  '0.000001',
  '1E+2',
  '1e-7',
  '37.7749',
  '-122.4194',
  '1.00000000000000000000000001',
  '2.47032822920623272e-324',
  '6.631236846766476e-316',
  '1.2345678901234567890123e-10',
];

/** A random JSON number's text: 1 to 25 digits, a point somewhere or none, an exponent or none. */
function randomNumberText(random) {
  const digits = 1 + Math.floor(random() * 25);
  let text = random() < 0.3 ? '-' : '';
  text += String(1 + Math.floor(random() * 9));
  for (let i = 1; i < digits; i++) text += String(Math.floor(random() * 10));
  if (digits > 1 && random() < 0.6) {
    const point = 1 + Math.floor(random() * (digits - 1));
    text = text.replace(/\d+/, (d) => `${d.slice(0, point)}.${d.slice(point)}`);
  }
  if (random() < 0.5) text += `e${Math.floor(random() * 660) - 330}`;
  return text;
}

function seeded(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

const NUMBERS = (() => {
  const random = seeded(20261206);
  return [...EDGES, ...Array.from({ length: 3000 }, () => randomNumberText(random))];
})();

/** What JSON.parse makes of the numbers, written out as JSON (an overflow to Infinity writes null, as the core does). */
const asJsonParseSees = (texts) => JSON.stringify(JSON.parse(`[${texts.join(',')}]`));

test('numbers: a state of 3,000 numbers of every shape comes out as JSON.parse reads them', T, async (t) => {
  const snapshot = `{"type":"STATE_SNAPSHOT","snapshot":{"n":[${NUMBERS.join(',')}]}}`;
  const fetch = async (_url, init) => {
    const { threadId, runId } = JSON.parse(init.body);
    const ids = `"threadId":${JSON.stringify(threadId)},"runId":${JSON.stringify(runId)}`;
    const sse = [`{"type":"RUN_STARTED",${ids}}`, snapshot, `{"type":"RUN_FINISHED",${ids}}`]
      .map((e) => `data: ${e}\n\n`)
      .join('');
    return streamedResponse(Buffer.from(sse), { chunk: 1024 });
  };
  const rt = await open(t, { url: 'http://agent.invalid/run', fetch });
  assert.deepEqual(await rt.send('go'), { reason: 'done' });
  const got = JSON.stringify(rt.state.n);
  const want = asJsonParseSees(NUMBERS);
  if (got !== want) {
    const g = rt.state.n;
    const w = JSON.parse(want);
    const wrong = NUMBERS.filter((_, i) => !Object.is(g[i], w[i])).slice(0, 5);
    assert.fail(`read differently from JSON.parse: ${wrong.join(', ')}`);
  }
});

test('numbers: the arguments of a tool call reach its handler as JSON.parse reads them', T, async (t) => {
  const argsText = `{"values":[${EDGES.join(',')}]}`;
  let calls = 0;
  const fetch = async (_url, init) => {
    const { threadId, runId } = JSON.parse(init.body);
    const ids = { threadId, runId };
    calls += 1;
    const events =
      calls === 1
        ? [
            { type: 'RUN_STARTED', ...ids },
            { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'numbers' },
            { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: argsText },
            { type: 'TOOL_CALL_END', toolCallId: 'c1' },
            { type: 'RUN_FINISHED', ...ids },
          ]
        : [
            { type: 'RUN_STARTED', ...ids },
            { type: 'RUN_FINISHED', ...ids },
          ];
    const sse = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');
    return streamedResponse(Buffer.from(sse), { chunk: 64 });
  };
  let received;
  const rt = await open(t, {
    url: 'http://agent.invalid/run',
    fetch,
    tools: [
      {
        name: 'numbers',
        description: 'takes numbers',
        parameters: { type: 'object', properties: { values: { type: 'array', items: { type: ['number', 'null'] } } } },
        handler: (args) => {
          received = args;
          return 'ok';
        },
      },
    ],
  });
  assert.deepEqual(await rt.send('go'), { reason: 'done' });
  assert.equal(JSON.stringify(received.values), asJsonParseSees(EDGES));
});
