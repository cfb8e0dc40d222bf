// Browser flows against a scripted agent brain (plugged into the demo server) that sends what the
// keyword planner never does: a MESSAGES_SNAPSHOT, ACTIVITY_DELTA, hostile chart and map content,
// an unknown activity type and an event that breaks the ordering rules.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { flow, lastAssistantText, screenshot, send, setTool, startHarness, turnEnded } from './harness.mjs';

const { streamText, streamToolCall } = await import(
  join(import.meta.dirname, '..', '..', 'demo-page', 'server', 'stream.mjs')
);

const HOSTILE = '<img src="https://example.com/x.png" onerror="window.__pwned=1">';

const HOSTILE_CHART = {
  title: { text: 'Hostile chart', link: 'https://example.com/title', sublink: 'https://example.com/sub' },
  tooltip: { trigger: 'item', formatter: `${HOSTILE}{b}: {c}` },
  xAxis: { type: 'category', data: ['a', 'b', 'c'] },
  yAxis: { type: 'value' },
  toolbox: { feature: { dataView: {}, saveAsImage: {} } },
  series: [
    { type: 'bar', name: 'bars', data: [30, 20, 10] },
    {
      type: 'scatter',
      name: 'icons',
      symbol: 'image://https://example.com/symbol.png',
      symbolSize: 24,
      data: [12, 18, 24],
    },
  ],
};

const HOSTILE_MAP = {
  center: [30.27, -97.74],
  zoom: 12,
  geojson: {
    type: 'FeatureCollection',
    features: [
      {
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [-97.74, 30.27] },
        properties: { popup: `${HOSTILE}first` },
      },
      {
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [-97.75, 30.28] },
        properties: { kind: 'x', note: '<b>bold</b>' },
      },
    ],
  },
};

const RICH_SCHEMA = {
  type: 'object',
  properties: {
    format: { enum: ['csv', 'json', 'parquet'], description: 'File format' },
    limit: { type: 'integer', minimum: 1, title: 'Row limit' },
    ratio: { type: 'number' },
    compress: { type: 'boolean', default: true },
    note: { type: 'string' },
    extra: { type: 'object' },
  },
  required: ['format', 'limit'],
};

const scripted = {
  name: 'scripted',
  async run(input, ctx) {
    const last = [...input.messages].reverse().find((m) => m.role === 'user');
    const text = typeof last?.content === 'string' ? last.content : '';
    const activity = (messageId, activityType, content) =>
      ctx.emit({ type: 'ACTIVITY_SNAPSHOT', messageId, activityType, content });
    const answered = input.messages.slice(input.messages.indexOf(last) + 1).find((m) => m.role === 'tool');
    if (text === 'read my clipboard') {
      if (answered) {
        await streamText(ctx, `Your clipboard tool answered: ${answered.content}`);
        return { type: 'success' };
      }
      const toolCallId = `read_clipboard-${input.runId}`;
      await streamToolCall(ctx, { toolCallId, toolCallName: 'read_clipboard', args: {} });
      return { type: 'success', pendingToolCallIds: [toolCallId] };
    }
    if (input.resume?.length) {
      const [entry] = input.resume;
      await streamText(ctx, `resumed ${entry.status} with ${JSON.stringify(entry.payload ?? null)}`);
      return { type: 'success' };
    }
    if (text === 'rich interrupt') {
      await streamText(ctx, 'I need a few details.');
      return {
        type: 'interrupt',
        interrupts: [
          {
            id: `rich-${input.runId}`,
            reason: 'input_required',
            message: 'How should I export?',
            responseSchema: RICH_SCHEMA,
          },
        ],
      };
    }
    if (text === 'snapshot') {
      await streamText(ctx, 'This text is about to be replaced.');
      ctx.emit({
        type: 'MESSAGES_SNAPSHOT',
        messages: [
          ...input.messages,
          { id: `snap-${input.runId}`, role: 'assistant', content: 'Rewritten by a MESSAGES_SNAPSHOT.' },
        ],
      });
    } else if (text === 'hostile chart') {
      const id = `chart-${input.runId}`;
      activity(id, 'application/json+echart', HOSTILE_CHART);
      ctx.emit({
        type: 'ACTIVITY_DELTA',
        messageId: id,
        activityType: 'application/json+echart',
        patch: [{ op: 'replace', path: '/series/0/data', value: [5, 45, 25] }],
      });
      await streamText(ctx, 'Chart sent.');
    } else if (text === 'hostile map') {
      activity(`map-${input.runId}`, 'application/json+leaflet', HOSTILE_MAP);
      await streamText(ctx, 'Map sent.');
    } else if (text === 'custom activity') {
      activity(`custom-${input.runId}`, 'application/vnd.example+json', { html: '<b>not html</b>', n: 1 });
      await streamText(ctx, 'Custom activity sent.');
    } else if (text === 'bad event') {
      ctx.emit({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'never-started', delta: 'orphan delta' });
      await streamText(ctx, 'Still talking after the bad event.');
    } else {
      await streamText(ctx, `scripted: no script for ${JSON.stringify(text)}`);
    }
    return { type: 'success' };
  },
};

let harness;
before(async () => {
  harness = await startHarness({ brain: scripted });
});
after(async () => {
  await harness?.close();
});

flow(
  () => harness,
  'a tool flagged requiresApproval (read_clipboard) waits on its confirm text, then reads the clipboard',
  { permissions: ['clipboard-read', 'clipboard-write'] },
  async ({ page }) => {
    await page.evaluate(() => navigator.clipboard.writeText('secret from the clipboard'));
    await setTool(page, 'read_clipboard', true);
    await send(page, 'read my clipboard');
    const card = page.locator('.tool-card[data-name="read_clipboard"] .approval-card');
    await card.waitFor({ timeout: 30000 });
    assert.equal(await card.locator('.approval-prompt').textContent(), 'Let the assistant read your clipboard?');
    assert.match(await card.locator('.card-kicker').textContent(), /Approval needed · Read clipboard/);
    await screenshot(page, 'scripted-read-clipboard-approval');
    await card.locator('button.approve').click();
    await turnEnded(page, 'done');
    assert.equal(await page.getAttribute('.tool-card[data-name="read_clipboard"]', 'data-state'), 'done');
    assert.match(await lastAssistantText(page), /Your clipboard tool answered: \{"text":"secret from the clipboard"\}/);
  },
);

flow(
  () => harness,
  'interrupt form: enum → select, integer and number → number inputs, required marked',
  {},
  async ({ page }) => {
    await send(page, 'rich interrupt');
    const card = page.locator('.interrupt-card[data-state="pending"]');
    await card.waitFor({ timeout: 30000 });
    const fields = await card.locator('.field').evaluateAll((els) =>
      els.map((el) => ({
        field: el.dataset.field,
        control: el.querySelector('select, input, textarea')?.tagName.toLowerCase(),
        type: el.querySelector('input')?.type ?? null,
        label: el.querySelector('label')?.textContent,
        required: el.querySelector('select, input, textarea')?.required ?? false,
      })),
    );
    // Required fields come first; the rest in the schema's order (the core currently sorts keys).
    assert.deepEqual(fields.slice(0, 2), [
      { field: 'format', control: 'select', type: null, label: 'Format *', required: true },
      { field: 'limit', control: 'input', type: 'number', label: 'Row limit *', required: true },
    ]);
    const byField = (a, b) => a.field.localeCompare(b.field);
    assert.deepEqual(fields.slice(2).sort(byField), [
      { field: 'compress', control: 'input', type: 'checkbox', label: 'Compress', required: false },
      { field: 'extra', control: 'textarea', type: null, label: 'Extra', required: false },
      { field: 'note', control: 'input', type: 'text', label: 'Note', required: false },
      { field: 'ratio', control: 'input', type: 'number', label: 'Ratio', required: false },
    ]);
    assert.deepEqual(await card.locator('[data-field="format"] option').allTextContents(), ['csv', 'json', 'parquet']);
    assert.equal(await card.locator('[data-field="compress"] input').isChecked(), true, 'the default applies');
    await card.locator('[data-field="format"] select').selectOption({ label: 'json' });
    await card.locator('[data-field="limit"] input').fill('250');
    await card.locator('[data-field="extra"] textarea').fill('{"a": [1, 2]}');
    await screenshot(page, 'scripted-rich-interrupt');
    await card.locator('button.submit').click();
    await turnEnded(page, 'done');
    const said = await lastAssistantText(page);
    assert.match(said, /^resumed resolved with /);
    assert.deepEqual(JSON.parse(said.replace('resumed resolved with ', '')), {
      format: 'json',
      limit: 250,
      compress: true,
      extra: { a: [1, 2] },
    });
  },
);

flow(
  () => harness,
  'MESSAGES_SNAPSHOT replaces the conversation in place',
  {},
  async ({ page }) => {
    await send(page, 'snapshot');
    await turnEnded(page, 'done');
    const texts = await page.$$eval('.conversation:not([hidden]) .bubble', (els) =>
      els.map((e) => e.textContent).filter(Boolean),
    );
    assert.deepEqual(texts, ['snapshot', 'Rewritten by a MESSAGES_SNAPSHOT.']);
  },
);

flow(
  () => harness,
  'hostile chart option: drawn, updated by ACTIVITY_DELTA, no HTML, nothing fetched',
  {},
  async ({ page }) => {
    await send(page, 'hostile chart');
    await turnEnded(page, 'done');
    const canvas = page.locator(
      '.activity-card[data-activity-type="application/json+echart"][data-state="rendered"] canvas',
    );
    await canvas.waitFor({ timeout: 30000 });
    // The delta ([30, 20, 10] → [5, 45, 25]) makes the middle bar the largest: count the bar colour
    // (ECharts' first palette colour, #5470c6) in each third of the canvas.
    const bars = await page.waitForFunction(
      () => {
        const c = document.querySelector('.activity-card canvas');
        if (!c || !c.width) return false;
        const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
        const thirds = [0, 0, 0];
        for (let i = 0; i < data.length; i += 4) {
          if (Math.abs(data[i] - 84) < 24 && Math.abs(data[i + 1] - 112) < 24 && Math.abs(data[i + 2] - 198) < 24) {
            thirds[Math.min(2, Math.floor((((i / 4) % c.width) / c.width) * 3))] += 1;
          }
        }
        return thirds[1] > thirds[2] && thirds[2] > thirds[0] && thirds[0] > 0 ? thirds : false;
      },
      null,
      { timeout: 30000 },
    );
    assert.ok((await bars.jsonValue())[1] > 0);
    // Hover every bar: the tooltip (formatter with an <img>) is drawn on the canvas, not as HTML.
    const box = await canvas.boundingBox();
    for (const fx of [0.3, 0.5, 0.7]) {
      await page.mouse.move(box.x + box.width * fx, box.y + box.height * 0.6);
      await page.waitForTimeout(100);
    }
    assert.equal(await page.locator('img').count(), 0, 'no <img> anywhere in the page');
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    await canvas.scrollIntoViewIfNeeded();
    await screenshot(page, 'scripted-hostile-chart');
  },
);

flow(
  () => harness,
  'hostile map content: popups are text',
  {},
  async ({ page }) => {
    await send(page, 'hostile map');
    await turnEnded(page, 'done');
    const card = page.locator('.activity-card[data-activity-type="application/json+leaflet"][data-state="rendered"]');
    await card.waitFor({ timeout: 30000 });
    assert.equal(await card.locator('path.map-marker').count(), 2);
    // A DOM click on the marker itself (Leaflet routes it to the layer), whatever the map's pan.
    await card.locator('path.map-marker').first().dispatchEvent('click');
    await page.waitForSelector('.leaflet-popup .map-popup');
    assert.equal(await page.textContent('.leaflet-popup .map-popup'), `${HOSTILE}first`);
    assert.equal(await page.locator('img, .leaflet-popup b').count(), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
  },
);

flow(
  () => harness,
  'an unknown activity type is shown as its JSON, as text',
  {},
  async ({ page }) => {
    await send(page, 'custom activity');
    await turnEnded(page, 'done');
    const card = page.locator('.activity-card[data-activity-type="application/vnd.example+json"]');
    await card.waitFor();
    assert.deepEqual(JSON.parse(await card.locator('pre').textContent()), { html: '<b>not html</b>', n: 1 });
    assert.equal(await card.locator('b').count(), 0);
  },
);

flow(
  () => harness,
  'an event that breaks the ordering rules is reported in place',
  {},
  async ({ page }) => {
    await send(page, 'bad event');
    await turnEnded(page);
    const note = page.locator(
      '.conversation:not([hidden]) :is([data-note="problem"], [data-note="error"], [data-note="run_error"])',
    );
    await note.first().waitFor();
    assert.match(await note.first().textContent(), /never-started|TEXT_MESSAGE_CONTENT/);
    assert.equal(await lastAssistantText(page), 'Still talking after the bad event.', 'the run went on');
    await screenshot(page, 'scripted-bad-event');
  },
);
