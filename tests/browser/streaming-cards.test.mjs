// Tool cards that draw their arguments as they stream: the demo agent sends create_chart and
// create_map arguments in small paced deltas, and the page draws the chart's points and the map's
// places it has so far (from the runtime's tool_call_partial), then all of them once the call
// ends. With AGUI_WRITE_SCREENSHOT=1 the picture of a card mid-stream is written to
// docs/img/partial-card.png (the one the docs show); otherwise to tests/out/screenshots only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SCREENSHOT_DIR, flow, send, startHarness, turnEnded } from './harness.mjs';

const root = join(import.meta.dirname, '..', '..');
const server = (file) => import(join(root, 'demo-page', 'server', file));
const { EventType } = createRequire(join(root, 'demo-page', 'package.json'))('@ag-ui/core');
const { startDemoServer } = await server('main.mjs');
const { createPlannerBrain } = await server('planner.mjs');
const { MAX_ARGS_PAUSES, splitArgs, streamText } = await server('stream.mjs');
const { DEFAULT_DB_PATH, openPermitsDb } = await server('db.mjs');

const db = openPermitsDb(DEFAULT_DB_PATH);
const MONTHS = db.prepare('SELECT COUNT(DISTINCT substr(issued_date, 1, 7)) AS n FROM permits').get().n;
const MAPPED = Math.min(150, db.prepare('SELECT COUNT(*) AS n FROM permits').get().n); // the map query's LIMIT
db.close();

// --- the agent's side: small deltas, paced ----------------------------------------------------

// Posts one run; every SSE event with the time its chunk arrived.
async function timedRun(url, text) {
  const response = await fetch(`${url}/agent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      threadId: 't',
      runId: `r-${text}`,
      messages: [{ id: 'u', role: 'user', content: text }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    }),
  });
  const events = [];
  let buffer = '';
  const decoder = new TextDecoder();
  for await (const chunk of response.body) {
    const at = performance.now();
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const data = buffer.slice(0, end).replace(/^data: /, '');
      buffer = buffer.slice(end + 2);
      events.push({ ...JSON.parse(data), at });
    }
  }
  return events;
}

function argsOf(events, toolCallName) {
  const start = events.find((e) => e.type === EventType.TOOL_CALL_START && e.toolCallName === toolCallName);
  assert.ok(start, `a ${toolCallName} call`);
  return events.filter((e) => e.type === EventType.TOOL_CALL_ARGS && e.toolCallId === start.toolCallId);
}

describe('the demo agent streams chart and map arguments in small paced deltas', () => {
  const PAUSE_MS = 12;
  let agent;
  before(async () => {
    agent = await startDemoServer({ port: 0, brain: createPlannerBrain(), argsDelayMs: PAUSE_MS });
  });
  after(() => agent?.close());

  test('create_chart: deltas of 8 to 24 characters, a pause before each', async () => {
    const deltas = argsOf(await timedRun(agent.url, 'permits per month'), 'create_chart');
    const sizes = deltas.map((d) => d.delta.length);
    assert.ok(deltas.length >= 20, `many deltas (${deltas.length})`);
    assert.ok(sizes.slice(0, -1).every((n) => n >= 8 && n <= 24) && sizes.at(-1) <= 24, `sizes ${sizes.join(',')}`);
    assert.equal(JSON.parse(deltas.map((d) => d.delta).join('')).config.series[0].data.length, MONTHS);
    // Under MAX_ARGS_PAUSES deltas, each waits PAUSE_MS: they arrive spread out, not in one chunk.
    assert.ok(deltas.length < MAX_ARGS_PAUSES);
    const span = deltas.at(-1).at - deltas[0].at;
    assert.ok(span >= 0.8 * PAUSE_MS * (deltas.length - 1), `${deltas.length} deltas over ${span.toFixed(0)} ms`);
  });

  test('create_map: thousands of small deltas, at most MAX_ARGS_PAUSES pauses', async () => {
    const started = performance.now();
    const deltas = argsOf(await timedRun(agent.url, 'show permits on a map'), 'create_map');
    assert.ok(deltas.length > 1000, `${deltas.length} deltas`);
    assert.ok(deltas.every((d) => d.delta.length <= 25)); // 24, or 25 to keep a surrogate pair whole
    assert.equal(JSON.parse(deltas.map((d) => d.delta).join('')).data.geojson.features.length, MAPPED);
    const span = deltas.at(-1).at - deltas[0].at;
    assert.ok(span >= 0.8 * PAUSE_MS * (MAX_ARGS_PAUSES - 1), `paced: ${span.toFixed(0)} ms`);
    assert.ok(performance.now() - started < 20 * PAUSE_MS * MAX_ARGS_PAUSES, 'not a pause per delta');
  });

  test('the other tools keep their few pieces', async () => {
    const events = await timedRun(agent.url, 'how many permits by type');
    assert.ok(argsOf(events, 'execute_query').length <= 3);
  });

  test('splitArgs never cuts a surrogate pair and loses nothing', () => {
    const json = JSON.stringify({ text: '😀'.repeat(40), b: 'é'.repeat(30) });
    const deltas = splitArgs(json);
    assert.equal(deltas.join(''), json);
    for (const d of deltas) assert.ok(!/[\ud800-\udbff]$/.test(d) && !/^[\udc00-\udfff]/.test(d), d);
  });
});

// --- the page's side: cards drawn from the partial arguments ----------------------------------

// The planner, plus "broken chart": a create_chart call whose arguments stop being JSON after
// three bars (the runtime then reports them invalid, once).
const planner = createPlannerBrain();
const BROKEN = [
  '{"config":{"xAxis":{"type":"category","data":["a","b","c","d"]},',
  '"yAxis":{"type":"value"},"series":[{"type":"bar",',
  '"data":[4,3,2,',
  ' oops, not JSON',
  ']}]}}',
];
const brain = {
  name: 'planner+broken',
  async run(input, ctx) {
    if (input.messages.at(-1)?.content !== 'broken chart') return planner.run(input, ctx);
    const messageId = await streamText(ctx, 'Drawing a chart, badly.');
    const toolCallId = ctx.newId('create_chart');
    ctx.emit({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName: 'create_chart', parentMessageId: messageId });
    for (const delta of BROKEN) {
      await ctx.argsPause();
      ctx.emit({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta });
    }
    ctx.emit({ type: EventType.TOOL_CALL_END, toolCallId });
    return { type: 'success' };
  },
};

// The card of the newest call of `name` in the visible thread, as the test reads it.
function readCard(name) {
  const cards = document.querySelectorAll(`.conversation:not([hidden]) .tool-card[data-name="${name}"]`);
  const card = cards[cards.length - 1];
  const preview = card?.querySelector('.tool-preview');
  if (!preview) return null;
  const badge = preview.querySelector('.preview-badge');
  return {
    state: card.dataset.state,
    live: preview.dataset.live,
    ended: preview.dataset.live === 'ended',
    points: Number(preview.dataset.points),
    markers: preview.querySelectorAll('path.map-marker').length,
    canvas: preview.querySelectorAll('canvas').length,
    badge: badge && !badge.hidden && badge.offsetParent !== null ? badge.textContent : null,
    count: preview.querySelector('.preview-count')?.textContent,
    invalid: card.dataset.invalid === 'true' ? card.querySelector('.tool-invalid:not([hidden])')?.textContent : null,
  };
}

// The page's CSP forbids eval, so readCard goes in once through the DevTools protocol.
const withReader = (page) => page.evaluate(`window.__readCard = ${readCard}`);
const readCardIn = (page, name) => page.evaluate((n) => window.__readCard(n), name);
const cardWhen = (page, name, predicate) =>
  page.waitForFunction(([n, p]) => window.__readCard(n)?.[p], [name, predicate], { timeout: 30000 });

// Waits until the card is drawing some of its points while its call still streams; returns what it
// showed at that moment (read in the same frame as the check).
async function partialCard(page, name, minPoints = 1) {
  const handle = await page.waitForFunction(
    ([n, min]) => {
      const c = window.__readCard(n);
      return c && c.state === 'streaming' && c.live === 'streaming' && c.points >= min ? c : null;
    },
    [name, minPoints],
    { timeout: 30000, polling: 'raf' },
  );
  return handle.jsonValue();
}

/** PNG signature and IHDR size. */
function pngSize(buffer) {
  assert.deepEqual([...buffer.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
  assert.equal(buffer.toString('latin1', 12, 16), 'IHDR');
  return { width: buffer.readUInt32BE(16), height: buffer.readUInt32BE(20) };
}

let harness;
before(async () => {
  // Slow enough that a chart's data (the last ~100 bytes of its arguments) spans several frames.
  harness = await startHarness({ brain, server: { argsDelayMs: 80 } });
});
after(() => harness?.close());

flow(
  () => harness,
  'a chart card draws the points it has while create_chart streams, then all of them',
  {},
  async ({ page }) => {
    await withReader(page);
    await send(page, 'permits per month');
    const partial = await partialCard(page, 'create_chart');
    assert.ok(partial.points > 0 && partial.points < MONTHS, `some but not all points: ${partial.points}/${MONTHS}`);
    assert.equal(partial.badge, 'streaming…');
    assert.match(partial.count, /^\d+ points? so far$/);
    assert.equal(partial.canvas >= 1, true, 'drawn by ECharts on a canvas');
    await cardWhen(page, 'create_chart', 'ended');
    const ended = await readCardIn(page, 'create_chart');
    assert.equal(ended.points, MONTHS, 'every point once the call ended');
    assert.equal(ended.badge, null, 'no "streaming…" once ended');
    assert.equal(ended.count, `${MONTHS} points`);
    await turnEnded(page, 'done');
    assert.equal((await readCardIn(page, 'create_chart')).state, 'done');
  },
);

flow(
  () => harness,
  'a map card draws the places it has while create_map streams, then all of them (screenshot)',
  {},
  async ({ page }) => {
    await withReader(page);
    await send(page, 'show permits on a map');
    const partial = await partialCard(page, 'create_map', 20);
    assert.ok(partial.points < MAPPED, `some but not all places: ${partial.points}/${MAPPED}`);
    assert.equal(partial.markers, partial.points, 'each place a marker on the map');
    assert.equal(partial.badge, 'streaming…');

    // The picture of the card mid-stream; that it was still streaming after the shot proves it.
    const card = page.locator('.conversation:not([hidden]) .tool-card[data-name="create_map"]').last();
    await card.scrollIntoViewIfNeeded();
    const shot = await card.screenshot();
    const during = await readCardIn(page, 'create_map');
    assert.equal(during.live, 'streaming', 'the screenshot was taken while the arguments streamed');
    assert.ok(during.points >= partial.points && during.points < MAPPED);
    const { width, height } = pngSize(shot);
    assert.ok(width >= 400 && height >= 250, `a card-sized picture: ${width}x${height}`);
    assert.ok(shot.length > 8000, `not a blank picture: ${shot.length} bytes`);
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    await writeFile(join(SCREENSHOT_DIR, 'partial-card.png'), shot);
    if (process.env.AGUI_WRITE_SCREENSHOT === '1') {
      await mkdir(join(root, 'docs', 'img'), { recursive: true });
      await writeFile(join(root, 'docs', 'img', 'partial-card.png'), shot);
    }

    await cardWhen(page, 'create_map', 'ended');
    const ended = await readCardIn(page, 'create_map');
    assert.equal(ended.points, MAPPED, 'every place once the call ended');
    assert.equal(ended.markers, MAPPED);
    assert.equal(ended.badge, null);
    assert.notDeepEqual(await card.screenshot(), shot, 'the finished card is not the partial one');
    await turnEnded(page, 'done');
  },
);

flow(
  () => harness,
  'arguments that stop being JSON: the card says so and keeps what it drew',
  {},
  async ({ page }) => {
    await withReader(page);
    await send(page, 'broken chart');
    await cardWhen(page, 'create_chart', 'invalid');
    await turnEnded(page);
    // The chart renderer loads on first use, possibly after the turn (a busy machine).
    await page
      .waitForFunction(() => window.__readCard('create_chart')?.points > 0, null, { timeout: 30000 })
      .catch(() => {});
    const card = await readCardIn(page, 'create_chart');
    assert.match(card.invalid, /^The arguments stopped being JSON: .+/);
    assert.equal(card.points, 3, `the three bars before the break: ${JSON.stringify(card)}`);
    assert.equal(card.live, 'ended');
  },
);
