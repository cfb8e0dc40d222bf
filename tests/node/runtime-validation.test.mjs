// Arguments are validated against the tool's JSON Schema before any handler runs
// (the core's real draft-7 validator): invalid arguments never reach the handler;
// the model gets {"error": "invalid arguments", "details": [{path, message}]} and
// may try again. Schemas are compiled at registration, so a broken one is refused.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { scenarios, replies } from '../support/scenarios.mjs';
import {
  T,
  tool,
  startServer,
  open,
  toolMessages,
  toolCalls,
  assertEveryCallAnsweredOnce,
  assertErrorResult,
  lastText,
  assertAguiError,
} from './helpers.mjs';

// The model sends get_weather with the raw arguments text in forwardedProps.args;
// after an error result it "reads the error" and retries with valid arguments.
const extra = {
  async *bad_args(input, api) {
    const [first, retry] = api.calls.filter((c) => c.name === 'get_weather');
    if (retry) return yield* say(api, replies.weather(retry.result));
    if (first) {
      if (!first.result?.error) return yield* say(api, 'the bad arguments were accepted');
      return yield* call(api, '{"city":"Paris"}');
    }
    yield* call(api, input.forwardedProps.args);
  },
  // Calls get_weather once with each of forwardedProps.calls, then says what each got.
  async *rich(input, api) {
    const calls = api.calls;
    if (calls.length) return yield* say(api, calls.map((c) => c.result?.error ?? 'ok').join(' | '));
    for (const args of input.forwardedProps.calls) yield* call(api, JSON.stringify(args));
  },
};
function* say(api, text) {
  const messageId = api.id('msg');
  yield { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' };
  yield { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: text };
  yield { type: 'TEXT_MESSAGE_END', messageId };
}
function* call(api, argsText) {
  const toolCallId = api.id('call');
  yield { type: 'TOOL_CALL_START', toolCallId, toolCallName: 'get_weather' };
  if (argsText) yield { type: 'TOOL_CALL_ARGS', toolCallId, delta: argsText };
  yield { type: 'TOOL_CALL_END', toolCallId };
}
const server = await startServer(after, { scenarios: { ...scenarios, ...extra } });

/** Runs bad_args with `argsText`; returns the first call's tool message and what the handler saw. */
async function badArgs(t, argsText, options = {}) {
  const seen = [];
  const rt = await open(t, {
    url: server.url('bad_args'),
    forwardedProps: { args: argsText },
    tools: [tool('get_weather', (args) => (seen.push(args), `${args.city}: sunny`))],
    ...options,
  });
  assert.deepEqual(await rt.send('weather?'), { reason: 'done' });
  const messages = rt.messages;
  assertEveryCallAnsweredOnce(messages);
  const [refused, retried] = toolMessages(messages);
  // The retry ran, once, with the valid arguments; the invalid ones never reached the handler.
  assert.deepEqual(seen, [{ city: 'Paris' }], `${argsText}: only the valid call ran`);
  assert.equal(retried.content, 'Paris: sunny');
  assert.equal(lastText(messages), replies.weather(retried));
  assert.equal(toolCalls(messages).length, 2);
  return refused;
}

const CASES = [
  // [arguments text, [[path, message pattern], ...]]
  ['{"city":42}', [['/city', /string/]]],
  ['{"city":null}', [['/city', /string/]]],
  ['{}', [['', /missing required property 'city'/]]],
  ['', [['', /missing required property 'city'/]]],
  ['{"city":"Paris","attempt":0}', [['/attempt', /minimum|at least|>=? ?1/]]],
  ['{"city":"Paris","attempt":1.5}', [['/attempt', /integer/]]],
  ['{"city":"Paris","extra":true}', [['/extra', /not allowed/]]],
  [
    '{"city":7,"attempt":"x"}',
    [
      ['/city', /string/],
      ['/attempt', /integer/],
    ],
  ],
];

for (const [args, issues] of CASES) {
  test(
    `invalid arguments ${args || '(none)'}: never run; the error names ${issues.map(([p]) => p || '/').join(', ')}`,
    T,
    async (t) => {
      const refused = await badArgs(t, args);
      const content = assertErrorResult(refused, /^invalid arguments$/);
      assert.ok(Array.isArray(content.details), 'details lists the issues');
      for (const [path, pattern] of issues) {
        const hit = content.details.find((d) => d.path === path && pattern.test(d.message));
        assert.ok(hit, `an issue at '${path}' matching ${pattern}; got ${JSON.stringify(content.details)}`);
      }
      assert.equal(content.details.length, issues.length, `exactly these issues: ${JSON.stringify(content.details)}`);
    },
  );
}

/** Runs the rich scenario: one get_weather call per entry of `calls`, against `parameters`; returns what the handler saw and the tool messages. */
async function richTurn(t, calls, parameters, options = {}) {
  const seen = [];
  const rt = await open(t, {
    ...options,
    url: server.url('rich'),
    forwardedProps: { calls },
    tools: [{ name: 'get_weather', description: 'w', parameters, handler: (args) => (seen.push(args), 'ok') }],
  });
  assert.deepEqual(await rt.send('go'), { reason: 'done' });
  return { seen, results: toolMessages(rt.messages) };
}

test('arguments that are not JSON, or not an object, are refused with what was wrong', T, async (t) => {
  assertErrorResult(await badArgs(t, '{"city":'), /arguments are not valid JSON: \{"city":/);
  assertErrorResult(await badArgs(t, '[1,2]'), /arguments must be a JSON object, got array/);
  assertErrorResult(await badArgs(t, '"Paris"'), /arguments must be a JSON object, got string/);
});

test('arguments followed by a NUL byte and more, or led by a BOM, are not JSON, as JSON.parse says', T, async (t) => {
  // nlohmann alone reads the first value of the one and skips the BOM of the other.
  assertErrorResult(await badArgs(t, '{"city":"Paris"}\u0000{"city":"Rome"}'), /arguments are not valid JSON/);
  assertErrorResult(await badArgs(t, '\ufeff{"city":"Paris"}'), /arguments are not valid JSON/);
});

test('limits.maxArgumentBytes: oversized arguments are refused before parsing', T, async (t) => {
  const big = JSON.stringify({ city: 'P'.repeat(200) });
  const refused = await badArgs(t, big, { limits: { maxArgumentBytes: 100 } });
  assertErrorResult(refused, new RegExp(`${big.length} bytes, over the limit of 100 \\(maxArgumentBytes\\)`));
});

test('a broken schema is refused at registration, naming the tool and where', T, async (t) => {
  const rt = await open(t, { url: server.url('text') });
  const broken = [
    { type: 'object', properties: { city: { type: 'nonsense' } } },
    { type: 'object', properties: { city: { type: 'string', pattern: '(' } } },
    { type: 'object', properties: { city: { $ref: '#/$defs/missing' } } },
    { type: 'object', required: 'city' },
    { type: 'object', properties: { n: { minimum: 'one' } } },
  ];
  for (const parameters of broken) {
    const e = assertAguiError(
      () => rt.tools.register({ name: 'get_weather', description: 'w', parameters, handler: () => 1 }),
      'invalid_schema',
    );
    assert.match(e.message, /get_weather/, `names the tool: ${e.message}`);
    assert.deepEqual(rt.tools.list(), [], 'nothing was registered');
  }
  // And a rich but valid schema compiles.
  rt.tools.register({
    name: 'get_weather',
    description: 'w',
    parameters: {
      type: 'object',
      $defs: { unit: { enum: ['c', 'f'] } },
      properties: {
        city: { type: 'string', minLength: 1, pattern: '^[A-Z]' },
        unit: { $ref: '#/$defs/unit' },
        days: { type: 'array', items: { type: 'integer', minimum: 1 }, maxItems: 7, uniqueItems: true },
      },
      required: ['city'],
      additionalProperties: false,
      dependentRequired: { days: ['unit'] },
    },
    handler: () => 1,
  });
  assert.equal(rt.tools.list().length, 1);
});

test(
  'keywords beyond type/required/properties are enforced: minLength, pattern, enum via $ref, items, dependentRequired',
  T,
  async (t) => {
    const { seen, results } = await richTurn(
      t,
      [
        { city: '' }, // minLength (and pattern)
        { city: 'paris' }, // pattern
        { city: 'Paris', unit: 'k', days: [1] }, // enum through $ref
        { city: 'Paris', unit: 'c', days: [1, 1] }, // uniqueItems
        { city: 'Paris', days: [1] }, // dependentRequired
        { city: 'Paris', unit: 'c', days: [2, 3] }, // valid
      ],
      {
        type: 'object',
        $defs: { unit: { enum: ['c', 'f'] } },
        properties: {
          city: { type: 'string', minLength: 1, pattern: '^[A-Z]' },
          unit: { $ref: '#/$defs/unit' },
          days: { type: 'array', items: { type: 'integer', minimum: 1 }, uniqueItems: true },
        },
        required: ['city'],
        dependentRequired: { days: ['unit'] },
      },
    );
    assert.deepEqual(seen, [{ city: 'Paris', unit: 'c', days: [2, 3] }], 'only the valid call ran');
    const paths = results.slice(0, 5).map((m) => JSON.parse(m.content).details.map((d) => d.path));
    assert.deepEqual(paths, [['/city', '/city'], ['/city'], ['/unit'], ['/days'], ['']]);
  },
);

test(
  "patterns are ECMA-262 as the page's own RegExp reads them: \\p{...}, lookbehind, named groups, code points",
  T,
  async (t) => {
    const { seen, results } = await richTurn(
      t,
      [
        { name: 'Zo\u00eb', price: '$12', month: '2026-12', initial: '\u00e9' }, // valid
        { name: 'Zo3' }, // \p{L}: letters in any script, not digits
        { price: '\u20ac12' }, // lookbehind: a dollar sign before the digits
        { month: '2026-1' }, // named groups
        { initial: 'ab' }, // "." is one code point: two are too many...
        { initial: '\u{1F600}' }, // ...and one outside the BMP is one
      ],
      {
        type: 'object',
        properties: {
          name: { type: 'string', pattern: '^\\p{L}+$' },
          price: { type: 'string', pattern: '(?<=\\$)\\d+$' },
          month: { type: 'string', pattern: '^(?<year>\\d{4})-(?<month>\\d{2})$' },
          initial: { type: 'string', pattern: '^.$' },
        },
      },
      { allowBacktrackingPatterns: true },
    ); // the lookbehind needs the page's backtracking RegExp
    assert.deepEqual(seen, [
      { name: 'Zo\u00eb', price: '$12', month: '2026-12', initial: '\u00e9' },
      { initial: '\u{1F600}' },
    ]);
    const refused = results.filter((m) => m.content !== 'ok').map((m) => JSON.parse(m.content));
    assert.deepEqual(
      refused.map((r) => r.details.map((d) => d.path)),
      [['/name'], ['/price'], ['/month'], ['/initial']],
    );
    assert.match(refused[0].details[0].message, /must match pattern '\^\\p\{L\}\+\$'/);
  },
);

test(
  'a pattern only a backtracking RegExp runs is refused at registration, unless the page allows it',
  T,
  async (t) => {
    const parameters = { type: 'object', properties: { id: { type: 'string', pattern: '^(?=a)(a+)+$' } } };
    const define = { name: 'lookup', description: 'l', parameters, handler: () => 1 };
    const rt = await open(t, { url: server.url('text') });
    const e = assertAguiError(() => rt.tools.register(define), 'invalid_schema');
    assert.match(e.message, /pattern '\^\(\?=a\)\(a\+\)\+\$' has a lookahead/);
    assert.match(e.message, /allowBacktrackingPatterns: true/);
    assert.deepEqual(rt.tools.list(), []);
    const allowed = await open(t, { url: server.url('text'), allowBacktrackingPatterns: true });
    allowed.tools.register(define);
    assert.equal(allowed.tools.list().length, 1);
  },
);

test(
  'nested counted repetition and named groups run on the linear-time matcher, with no backtracking RegExp behind',
  T,
  async (t) => {
    const calls = [{ a: `${'a'.repeat(30)}b` }, { n: `${'a'.repeat(29)}b` }, { l: `${'\u00e9'.repeat(30)}1` }];
    // A backtracking RegExp takes seconds on each (5.3 s, 9.2 s, over 15 s measured);
    // the step bound itself is checked natively (json_schema_test.cpp).
    const { seen, results } = await richTurn(t, calls, {
      type: 'object',
      properties: {
        a: { type: 'string', pattern: '^(a{1,100}){1,100}$' },
        n: { type: 'string', pattern: '^(?<n>a+)+$' },
        l: { type: 'string', pattern: '^(\\p{L}+)+$' },
      },
    });
    assert.deepEqual(seen, []);
    assert.deepEqual(
      results.map((m) => JSON.parse(m.content).details.map((d) => d.path)),
      [['/a'], ['/n'], ['/l']],
    );
  },
);
