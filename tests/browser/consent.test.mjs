// Browser flows where the turn waits on the user or is stopped by the runtime: an approval card
// approved and rejected, an AG-UI interrupt answered through its generated form, and the round cap.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import {
  flow,
  lastAssistantText,
  reload,
  screenshot,
  send,
  setTool,
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

async function askForApproval(page) {
  await setTool(page, 'request_user_approval', true);
  await send(page, 'Delete the permits from 2019');
  const card = page.locator('.tool-card[data-name="request_user_approval"] .approval-card');
  await card.waitFor({ timeout: 30000 });
  assert.equal(await card.locator('.approval-prompt').textContent(), 'Delete the permits from 2019');
  assert.match(await card.textContent(), /nothing will really change/);
  assert.equal(
    await page.getAttribute('.tool-card[data-name="request_user_approval"]', 'data-state'),
    'pending_approval',
  );
  await page.waitForSelector('#status-bar[data-phase="awaiting"]');
  assert.match(await page.textContent('#status-bar'), /Waiting for you: 1 approval/);
  assert.equal(await page.textContent('#status-bar .round-counter[data-round="0"]'), 'First run');
  return card;
}

flow(
  () => harness,
  'approval approved: the card waits, Approve lets the call answer approved',
  {},
  async ({ page }) => {
    const card = await askForApproval(page);
    await screenshot(page, 'approval-pending');
    await card.locator('button.approve').click();
    await turnEnded(page, 'done');
    const [tool] = await toolCards(page);
    assert.equal(tool.state, 'done');
    assert.equal(tool.label, 'Request approval');
    assert.match(await lastAssistantText(page), /You approved "Delete the permits from 2019"/);
    assert.equal(await page.locator('.approval-card').count(), 0, 'the card is gone once decided');
    await screenshot(page, 'approval-approved');
  },
);

flow(
  () => harness,
  'approval rejected: Reject (with a reason) answers rejected and the agent does nothing',
  {},
  async ({ page }) => {
    const card = await askForApproval(page);
    await card.locator('.approval-reason').fill('not today');
    await card.locator('button.reject').click();
    await turnEnded(page, 'done');
    const [tool] = await toolCards(page);
    assert.equal(tool.state, 'rejected');
    const result = JSON.parse(await page.textContent('.tool-card[data-name="request_user_approval"] .tool-result pre'));
    assert.equal(result.decision, 'rejected');
    assert.equal(result.reason, 'not today');
    assert.match(await lastAssistantText(page), /You rejected "Delete the permits from 2019", so I did nothing/);
    await screenshot(page, 'approval-rejected');
  },
);

flow(
  () => harness,
  'an approval survives a reload: the restored thread shows the card and continues the turn',
  {},
  async ({ page }) => {
    await askForApproval(page);
    // Once the runtime's store holds the call waiting on the user.
    const [call] = await toolCards(page);
    await waitForStored(
      page,
      (rows) => rows[0]?.snapshot.calls.some((c) => c.toolCallId === call.id && c.status === 'pending_approval'),
      'the thread with the call waiting',
    );
    await reload(page);
    const card = page.locator('.tool-card[data-name="request_user_approval"] .approval-card');
    await card.waitFor({ timeout: 30000 });
    assert.equal(await card.locator('.approval-prompt').textContent(), 'Delete the permits from 2019');
    assert.match(await page.textContent('.thread-item.active'), /needs you/);
    await card.locator('button.approve').click();
    await turnEnded(page, 'done');
    assert.match(await lastAssistantText(page), /You approved "Delete the permits from 2019"/);
    assert.equal((await toolCards(page))[0].state, 'done');
    await screenshot(page, 'approval-after-reload');
  },
);

flow(
  () => harness,
  'Stop while an approval waits: the turn ends aborted and the call is closed',
  {},
  async ({ page }) => {
    await askForApproval(page);
    await page.click('#stop');
    await turnEnded(page, 'aborted');
    assert.equal(await page.locator('[data-note="aborted"]').count(), 1);
    const [tool] = await toolCards(page);
    assert.equal(tool.state, 'cancelled', 'stopped, not failed');
    assert.equal(await page.locator('.approval-card').count(), 0);
    await page.waitForSelector('#status-bar[data-phase="idle"]');
  },
);

flow(
  () => harness,
  'interrupt: a form from the responseSchema, answered, resumes the run',
  {},
  async ({ page }) => {
    await send(page, 'interrupt');
    const card = page.locator('.interrupt-card[data-state="pending"]');
    await card.waitFor({ timeout: 30000 });
    assert.equal(await card.locator('.interrupt-message').textContent(), 'Proceed with the bulk export?');
    // responseSchema {confirm: boolean (required), note: string}
    const confirm = card.locator('[data-field="confirm"] input[type="checkbox"]');
    assert.equal(await confirm.count(), 1);
    assert.equal(await card.locator('[data-field="confirm"] .required').count(), 1, 'confirm is marked required');
    const note = card.locator('[data-field="note"] input[type="text"]');
    assert.equal(await note.count(), 1);
    assert.equal(await card.locator('[data-field="note"] .required').count(), 0);
    await page.waitForSelector('#status-bar[data-phase="awaiting"]');
    await confirm.check();
    await note.fill('for the audit');
    await screenshot(page, 'interrupt-form');
    await card.locator('button.submit').click();
    await turnEnded(page, 'done');
    assert.equal(await page.getAttribute('.interrupt-card', 'data-state'), 'resolved');
    const text = await lastAssistantText(page);
    assert.match(text, /Exported 3000 permits/);
    assert.match(text, /Your note: "for the audit"/);
    await page.click('#toggle-debug');
    const input = JSON.parse(await page.textContent('#debug-request'));
    assert.deepEqual(input.resume, [
      {
        interruptId: input.resume[0].interruptId,
        status: 'resolved',
        payload: { confirm: true, note: 'for the audit' },
      },
    ]);
    await screenshot(page, 'interrupt-answered');
  },
);

flow(
  () => harness,
  'interrupt cancelled: Cancel answers the interrupt as cancelled',
  {},
  async ({ page }) => {
    await send(page, 'interrupt');
    const card = page.locator('.interrupt-card[data-state="pending"]');
    await card.waitFor({ timeout: 30000 });
    await card.locator('button.cancel').click();
    await turnEnded(page, 'done');
    assert.equal(await page.getAttribute('.interrupt-card', 'data-state'), 'cancelled');
    assert.match(await lastAssistantText(page), /Export cancelled .*Nothing was exported/);
  },
);

flow(
  () => harness,
  'round cap: an agent that never stops is cut off after 5 follow-up rounds',
  {
    permissions: ['geolocation'],
    geolocation: { latitude: 30.2672, longitude: -97.7431 },
  },
  async ({ page }) => {
    await send(page, 'loop');
    await turnEnded(page, 'round_limit', 60000);
    const line = page.locator('[data-note="round_limit"]');
    assert.equal(await line.count(), 1);
    assert.match(await line.textContent(), /Stopped at the round cap/);
    assert.equal(await page.locator('[data-note="round"]').count(), 5, 'five follow-up rounds were sent');
    const cards = await toolCards(page);
    assert.equal(cards.length, 6, 'one call per run: the first run and five follow-ups');
    for (const card of cards.slice(0, -1))
      assert.ok(['done', 'error'].includes(card.state), `card ${card.id} ended ${card.state}`);
    assert.equal(cards.at(-1).state, 'cancelled', 'the round cap stopped it: cancelled, not failed');
    assert.match(cards.at(-1).error, /round limit/);
    await line.scrollIntoViewIfNeeded();
    await screenshot(page, 'round-cap');
  },
);
