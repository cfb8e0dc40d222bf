// Browser flows of the client tools on the demo page: location granted and denied, the clipboard
// written and read back, and a tool switched off that the agent then cannot call.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { flow, lastAssistantText, screenshot, send, setTool, startHarness, toolCards, turnEnded } from './harness.mjs';

let harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

flow(
  () => harness,
  'geolocation granted: the card runs, the agent reads the coordinates',
  {
    permissions: ['geolocation'],
    geolocation: { latitude: 30.2672, longitude: -97.7431, accuracy: 25 },
  },
  async ({ page }) => {
    await send(page, 'Where am I?');
    await turnEnded(page, 'done');
    const cards = await toolCards(page);
    assert.equal(cards.length, 1);
    assert.deepEqual(
      { name: cards[0].name, side: cards[0].side, state: cards[0].state, label: cards[0].label },
      { name: 'get_current_location', side: 'client', state: 'done', label: 'Get current location' },
    );
    assert.match(await lastAssistantText(page), /You are at 30\.26720, -97\.74310 \(±25 m\)/);
    assert.equal(await page.locator('[data-note="round"]').count(), 1, 'one follow-up round carried the result back');
    await screenshot(page, 'geolocation-granted');
  },
);

flow(
  () => harness,
  'geolocation denied: the card shows the error and the agent says so',
  { permissions: [] },
  async ({ page }) => {
    await send(page, 'Where am I?');
    await turnEnded(page, 'done', 60000);
    const [card] = await toolCards(page);
    assert.equal(card.state, 'error');
    assert.match(card.error, /location permission denied/);
    const text = await lastAssistantText(page);
    assert.match(text, /couldn't get your location/);
    assert.match(text, /permission denied/);
    await screenshot(page, 'geolocation-denied');
  },
);

flow(
  () => harness,
  'clipboard: copy_to_clipboard (opt-in) writes the text, the page reads it back',
  { permissions: ['clipboard-read', 'clipboard-write'] },
  async ({ page }) => {
    await setTool(page, 'copy_to_clipboard', true);
    await send(page, "Copy 'Hello from the browser test' to clipboard");
    await turnEnded(page, 'done');
    const [card] = await toolCards(page);
    assert.equal(card.name, 'copy_to_clipboard');
    assert.equal(card.label, 'Copy to clipboard');
    assert.equal(card.state, 'done');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'Hello from the browser test');
    assert.match(await lastAssistantText(page), /Copied "Hello from the browser test" to your clipboard/);
    await screenshot(page, 'clipboard');
  },
);

flow(
  () => harness,
  'a tool switched off is not advertised and never called',
  {
    permissions: ['geolocation'],
    geolocation: { latitude: 30.2672, longitude: -97.7431 },
  },
  async ({ page }) => {
    await setTool(page, 'get_current_location', false);
    await page.click('#toggle-debug');
    assert.doesNotMatch(await page.textContent('#debug-advertised'), /get_current_location/);
    await send(page, 'Where am I?');
    await turnEnded(page, 'done');
    const input = JSON.parse(await page.textContent('#debug-request'));
    assert.ok(Array.isArray(input.tools));
    assert.ok(!input.tools.some((t) => t.name === 'get_current_location'), 'the request does not offer the tool');
    assert.match(await page.textContent('#debug-request-meta'), /tools: (?!.*get_current_location)/);
    assert.equal((await toolCards(page)).length, 0, 'no tool call was made');
    assert.match(await lastAssistantText(page), /get_current_location tool is disabled/);
    assert.ok(
      (await page.locator('#event-log li[data-kind="request"]').count()) >= 1,
      'the event log shows the request',
    );
    await screenshot(page, 'tool-disabled');
  },
);
