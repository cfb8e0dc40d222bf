// Browser flows of the conversation itself: streamed text, a chart and a map from activity
// snapshots, a RUN_ERROR shown in place, HTML shown as text, and threads kept across a reload.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import {
  flow,
  lastAssistantText,
  reload,
  screenshot,
  send,
  startHarness,
  toolCards,
  turnEnded,
  waitForStored,
} from './harness.mjs';

let harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

flow(
  () => harness,
  'streamed text: help arrives as deltas into one bubble',
  {},
  async ({ page }) => {
    assert.equal(await page.isVisible('#empty-state'), true, 'a new thread explains what to do');
    await page.click('.chip[data-text="help"]');
    await turnEnded(page, 'done');
    assert.equal(await page.isVisible('#empty-state'), false);
    const bubble = page.locator('.conversation:not([hidden]) .msg-assistant .bubble').last();
    assert.match(await bubble.textContent(), /I am the demo agent/);
    const pieces = await bubble.evaluate((el) => el.childNodes.length);
    assert.ok(pieces > 5, `the text was appended delta by delta (${pieces} pieces)`);
    assert.equal(await page.textContent('.thread-item.active .thread-title'), 'help');
    await screenshot(page, 'help');
  },
);

flow(
  () => harness,
  'chart: an application/json+echart activity is drawn on a canvas',
  {},
  async ({ page }) => {
    await send(page, 'How many permits by type?');
    await turnEnded(page, 'done');
    const cards = await toolCards(page);
    assert.deepEqual(
      cards.map((c) => [c.label, c.side, c.state]),
      [
        ['Get database schema', 'server', 'done'],
        ['Execute query', 'server', 'done'],
        ['Create chart', 'server', 'done'],
      ],
    );
    const chart = page.locator(
      '.activity-card[data-activity-type="application/json+echart"][data-state="rendered"] canvas',
    );
    await chart.waitFor({ timeout: 30000 });
    // Count pixels that are not the white background (bars, axes, labels).
    await page.waitForFunction(
      () => {
        const canvas = document.querySelector('.activity-card[data-activity-type="application/json+echart"] canvas');
        if (!canvas || !canvas.width || !canvas.height) return false;
        const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
        let inked = 0;
        for (let i = 0; i < data.length; i += 4)
          if (data[i + 3] > 0 && (data[i] < 240 || data[i + 1] < 240 || data[i + 2] < 240)) inked += 1;
        window.__inked = inked;
        return inked > 5000;
      },
      null,
      { timeout: 30000 },
    );
    assert.ok((await page.evaluate(() => window.__inked)) > 5000);
    assert.match(await lastAssistantText(page), /There are 3,000 permits in 7 types/);
    await chart.scrollIntoViewIfNeeded();
    await screenshot(page, 'chart');
    // The chart is part of the thread: a reload draws it again, with the cards in their final state
    // (once the runtime's store holds the ended turn).
    await waitForStored(
      page,
      (rows) => rows[0]?.snapshot.messages.some((m) => /There are 3,000 permits/.test(m.content)),
      'the thread with the chart',
    );
    await reload(page);
    await chart.waitFor({ timeout: 30000 });
    assert.deepEqual(
      (await toolCards(page)).map((c) => c.state),
      ['done', 'done', 'done'],
    );
  },
);

flow(
  () => harness,
  'map: an application/json+leaflet activity shows its markers, with no tiles fetched',
  {},
  async ({ page }) => {
    await send(page, 'Show permits on a map');
    await turnEnded(page, 'done');
    const card = page.locator('.activity-card[data-activity-type="application/json+leaflet"][data-state="rendered"]');
    await card.waitFor({ timeout: 30000 });
    const result = JSON.parse(await page.textContent('.tool-card[data-name="create_map"] .tool-result pre'));
    assert.equal(result.features, 150);
    assert.equal(await card.locator('path.map-marker').count(), 150);
    assert.equal(await card.getAttribute('data-markers'), '150');
    assert.equal(await card.locator('.leaflet-tile, img').count(), 0, 'no tile layer, no images');
    assert.match(await card.locator('.map-legend').textContent(), /150 points/);
    // A DOM click on the marker itself (Leaflet routes it to the layer), whatever the map's pan.
    await card.locator('path.map-marker').first().dispatchEvent('click');
    await page.waitForSelector('.leaflet-popup .map-popup');
    assert.match(await page.textContent('.leaflet-popup .map-popup'), /\(\$[\d,]+, \d{4}-\d{2}-\d{2}\)$/);
    await card.scrollIntoViewIfNeeded();
    await screenshot(page, 'map');
  },
);

flow(
  () => harness,
  'server error: a RUN_ERROR is shown in place, after the text streamed before it',
  {},
  async ({ page }) => {
    await send(page, 'error');
    await turnEnded(page, 'run_error');
    const note = page.locator('.conversation:not([hidden]) [data-note="run_error"]');
    assert.equal(await note.count(), 1);
    assert.match(
      await note.textContent(),
      /The run failed: Demo failure: you typed "error", so this run ends with RUN_ERROR\. \(DEMO_ERROR\)/,
    );
    assert.match(await lastAssistantText(page), /Failing this run on purpose/);
    // In place: the error line comes after the user's message and the streamed text.
    const order = await page.$$eval('.conversation:not([hidden]) > *', (els) =>
      els.map((e) => e.dataset.note ?? e.className),
    );
    assert.deepEqual(order.slice(-3), ['msg msg-user', 'msg msg-assistant', 'run_error']);
    await screenshot(page, 'run-error');
  },
);

flow(
  () => harness,
  'HTML from the user and the model is shown as text, never parsed',
  {},
  async ({ page }) => {
    const html = '<img src=x onerror="window.__pwned=1"><b>bold</b>';
    await send(page, html);
    await turnEnded(page, 'done');
    const user = page.locator('.conversation:not([hidden]) .msg-user .bubble');
    assert.equal(await user.textContent(), html);
    // The demo agent echoes what it did not understand: the model's text carries the HTML too.
    assert.ok((await lastAssistantText(page)).includes(html));
    assert.equal(await page.locator('.conversation img, .conversation b').count(), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.equal(await page.textContent('.thread-item.active .thread-title'), html);
    await screenshot(page, 'html-as-text');
  },
);

flow(
  () => harness,
  "threads: a second thread, both restored from the runtime's IndexedDB store after a reload",
  {},
  async ({ page }) => {
    await send(page, 'hello');
    await turnEnded(page, 'done');
    await page.click('#new-thread');
    await page.waitForFunction(() => document.querySelectorAll('.thread-item').length === 2);
    assert.equal(await page.isVisible('#empty-state'), true);
    await send(page, 'state');
    await turnEnded(page, 'done');
    assert.match(await lastAssistantText(page), /made it 1/);
    const before = await page.$$eval('.thread-item', (items) => items.map((i) => i.dataset.threadId));
    // Both are in the runtime's store, newest first, the second with its ended turn.
    await waitForStored(
      page,
      (rows) =>
        rows.length === 2 &&
        rows[0].threadId === before[0] &&
        rows[0].snapshot.messages.some((m) => /made it 1/.test(m.content)),
      'both threads',
    );
    await reload(page);
    const restored = await page.$$eval('.thread-item', (items) =>
      items.map((i) => [i.dataset.threadId, i.querySelector('.thread-title').textContent]),
    );
    assert.deepEqual(
      restored.map(([id]) => id),
      before,
    );
    assert.deepEqual(
      restored.map(([, title]) => title),
      ['state', 'hello'],
    );
    // The active thread came back with its messages and its agent state.
    assert.match(await lastAssistantText(page), /made it 1/);
    await page.click('#toggle-debug');
    assert.match(await page.textContent('#debug-state'), /"counter": 1/);
    // The other thread has its own conversation.
    await page.click('.thread-item:not(.active) .thread-open');
    await page.waitForFunction(
      () => document.querySelector('.thread-item.active .thread-title')?.textContent === 'hello',
    );
    assert.match(await lastAssistantText(page), /Hello! I'm the demo agent/);
    // ...and keeps working after the reload, in the same thread id.
    await send(page, 'state');
    await turnEnded(page, 'done');
    const input = JSON.parse(await page.textContent('#debug-request'));
    assert.equal(input.threadId, before[1]);
    assert.ok(input.messages.some((m) => m.role === 'user' && m.content === 'hello'));
    await screenshot(page, 'threads-restored');
  },
);

flow(
  () => harness,
  'narrow screen: the chat fills it; threads and tools open as overlays',
  { viewport: { width: 390, height: 780 } },
  async ({ page }) => {
    assert.equal(await page.isVisible('#tools-panel'), false);
    assert.equal(await page.isVisible('#threads'), false);
    await send(page, 'Where am I?');
    await turnEnded(page);
    await page.click('#toggle-tools');
    await page.waitForSelector('#tools-panel', { state: 'visible' });
    assert.equal(await page.isVisible('#tool-toggle-get_current_location'), true);
    await screenshot(page, 'narrow-tools');
    await page.click('#toggle-threads');
    await page.waitForSelector('#threads', { state: 'visible' });
    assert.equal(await page.isVisible('#tools-panel'), false, 'one overlay at a time');
    await page.click('#new-thread');
    await page.waitForSelector('#threads', { state: 'hidden' });
    assert.equal(await page.isVisible('#empty-state'), true);
    assert.equal(await page.isVisible('#input'), true);
    await screenshot(page, 'narrow-new-thread');
  },
);
