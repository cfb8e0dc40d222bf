// The demo's threads across reloads, kept by the runtime's own persistence (createRuntime({persist})
// with indexedDbStore()): nothing of a thread is in localStorage, the sidebar lists the store's
// threads newest first, a deleted thread stays deleted, an approval waiting at the reload comes
// back pending and runs its tool once when approved, and a second tab follows the first.
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
  storedThreads,
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

/** The sidebar's threads, top to bottom: [threadId, title]. */
function sidebar(page) {
  return page.$$eval('.thread-item', (items) =>
    items.map((i) => [i.dataset.threadId, i.querySelector('.thread-title').textContent]),
  );
}

const activeId = (page) => page.getAttribute('.thread-item.active', 'data-thread-id');

/** What localStorage holds: the keys, and whether any value carries `text`. */
function localStorageHolding(page, text) {
  return page.evaluate((needle) => {
    const keys = Object.keys(localStorage).sort();
    return { keys, found: keys.filter((k) => localStorage.getItem(k).includes(needle)) };
  }, text);
}

/** The stored snapshot's messages of one thread. */
const storedMessages = (rows, threadId) => rows.find((r) => r.threadId === threadId)?.snapshot.messages ?? [];

flow(
  () => harness,
  'threads survive reloads in IndexedDB: a tool round, a second thread listed newest first, a deletion',
  { permissions: ['geolocation'], geolocation: { latitude: 30.2672, longitude: -97.7431, accuracy: 25 } },
  async ({ page }) => {
    // A turn with a client tool round: get_current_location runs, its result goes back to the agent.
    await send(page, 'Where am I?');
    await turnEnded(page, 'done');
    const first = await activeId(page);
    const answer = await lastAssistantText(page);
    assert.match(answer, /30\.2672/);
    assert.deepEqual(
      (await toolCards(page)).map((c) => [c.name, c.state]),
      [['get_current_location', 'done']],
    );
    // The runtime saved it (the reload must not race its last write: a write is durable once read here).
    let rows = await waitForStored(
      page,
      (r) => storedMessages(r, first).some((m) => m.role === 'assistant' && m.content === answer),
      'the first thread with its answer',
    );
    const firstCount = storedMessages(rows, first).length;
    assert.ok(
      storedMessages(rows, first).some((m) => m.role === 'tool'),
      'the tool result is in the stored thread',
    );

    await reload(page);
    assert.deepEqual(await sidebar(page), [[first, 'Where am I?']]);
    assert.equal(await activeId(page), first);
    assert.equal(await lastAssistantText(page), answer);
    assert.deepEqual(
      (await toolCards(page)).map((c) => [c.name, c.state]),
      [['get_current_location', 'done']],
    );
    assert.equal(await page.locator('.conversation:not([hidden]) .msg-user').count(), 1);
    // Nothing of the thread is in localStorage: only the open thread's id and the tools' toggles.
    const local = await localStorageHolding(page, 'Where am I');
    assert.deepEqual(local.found, [], 'no localStorage value holds the message');
    assert.deepEqual(
      local.keys.filter((k) => k !== 'agui-demo/active-thread' && k !== 'agui-demo/tool-toggles'),
      [],
      'no other localStorage key than the two preferences',
    );
    assert.equal(await page.evaluate(() => localStorage.getItem('agui-demo/active-thread')), first);
    // The reload wrote nothing new into the thread (the turn had ended).
    rows = await storedThreads(page);
    assert.equal(storedMessages(rows, first).length, firstCount);

    // A second thread, then a reload: both listed, newest first, each with its messages.
    await page.click('#new-thread');
    await page.waitForFunction(() => document.querySelectorAll('.thread-item').length === 2);
    await send(page, 'hello');
    await turnEnded(page, 'done');
    const second = await activeId(page);
    assert.notEqual(second, first);
    const hello = await lastAssistantText(page);
    rows = await waitForStored(
      page,
      (r) => storedMessages(r, second).some((m) => m.role === 'assistant' && m.content === hello),
      'the second thread with its answer',
    );
    assert.deepEqual(
      rows.map((r) => r.threadId),
      [second, first],
      'the store lists the newest first',
    );
    await reload(page);
    assert.deepEqual(await sidebar(page), [
      [second, 'hello'],
      [first, 'Where am I?'],
    ]);
    assert.equal(await activeId(page), second, 'the thread that was open is open again');
    assert.equal(await lastAssistantText(page), hello);
    await page.click(`.thread-item[data-thread-id="${first}"] .thread-open`);
    await page.waitForFunction((id) => document.querySelector('.thread-item.active')?.dataset.threadId === id, first);
    assert.equal(await lastAssistantText(page), answer);
    await screenshot(page, 'persist-two-threads');

    // Deleting one (the × asks once more), then a reload: it is gone, from the page and the store.
    const del = page.locator(`.thread-item[data-thread-id="${first}"] .thread-delete`);
    await del.click();
    await del.click();
    await page.waitForFunction(() => document.querySelectorAll('.thread-item').length === 1);
    await waitForStored(page, (r) => r.length === 1 && r[0].threadId === second, 'the deletion');
    await reload(page);
    assert.deepEqual(await sidebar(page), [[second, 'hello']]);
    assert.equal(await activeId(page), second);
    assert.deepEqual(
      (await storedThreads(page)).map((r) => r.threadId),
      [second],
    );
  },
);

flow(
  () => harness,
  'an approval waiting at a reload comes back pending from IndexedDB; approved, the tool runs once',
  {},
  async ({ page }) => {
    await setTool(page, 'request_user_approval', true);
    await send(page, 'Delete the permits from 2019');
    await page.locator('.tool-card[data-name="request_user_approval"] .approval-card').waitFor({ timeout: 30000 });
    const threadId = await activeId(page);
    const [call] = await toolCards(page);
    // The thread saved with its call waiting on the user (a reload before that write finds the run
    // unfinished and closes the call as never run: docs/persistence.md).
    await waitForStored(
      page,
      (r) =>
        r
          .find((row) => row.threadId === threadId)
          ?.snapshot.calls.some((c) => c.toolCallId === call.id && c.status === 'pending_approval'),
      'the thread with the call waiting',
    );

    // Every request the page sends from now on, to count the tool's result among them.
    const bodies = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/agent')
        bodies.push(request.postDataJSON());
    });
    await reload(page);
    const card = page.locator('.tool-card[data-name="request_user_approval"] .approval-card');
    await card.waitFor({ timeout: 30000 });
    assert.equal(await card.locator('.approval-prompt').textContent(), 'Delete the permits from 2019');
    assert.equal(await activeId(page), threadId);
    assert.match(await page.textContent('.thread-item.active'), /needs you/);
    assert.deepEqual(bodies, [], 'nothing was sent while the approval waits');
    await screenshot(page, 'persist-approval-after-reload');

    await card.locator('button.approve').click();
    await turnEnded(page, 'done');
    assert.match(await lastAssistantText(page), /You approved "Delete the permits from 2019"/);
    assert.deepEqual(
      (await toolCards(page)).map((c) => [c.id, c.state]),
      [[call.id, 'done']],
    );
    // The tool ran once: one follow-up request, carrying one result for the call.
    assert.equal(bodies.length, 1, 'one request after the approval');
    const results = bodies[0].messages.filter((m) => m.role === 'tool' && m.toolCallId === call.id);
    assert.equal(results.length, 1, 'one result for the call');
    assert.equal(JSON.parse(results[0].content).decision, 'approved');
    // ...and the thread saved after it holds that one result.
    const rows = await waitForStored(
      page,
      (r) => storedMessages(r, threadId).some((m) => m.role === 'assistant' && /You approved/.test(m.content)),
      'the thread after the approval',
    );
    assert.equal(storedMessages(rows, threadId).filter((m) => m.role === 'tool' && m.toolCallId === call.id).length, 1);
  },
);

flow(
  () => harness,
  'a saved thread the runtime cannot read is a storage_failed banner; the page goes on, the record is kept',
  {},
  async ({ page }) => {
    // A record from a newer version of the runtime (format 2), the one to open after the reload.
    await page.evaluate(
      () =>
        new Promise((resolve, reject) => {
          const request = indexedDB.open('agui-demo');
          request.onerror = () => reject(request.error);
          request.onsuccess = () => {
            const db = request.result;
            const tx = db.transaction('threads', 'readwrite');
            tx.objectStore('threads').put(
              { format: 2, threadId: 'from-the-future', updatedAt: Date.now(), snapshot: { messages: [] } },
              'from-the-future',
            );
            tx.oncomplete = () => (db.close(), resolve());
            tx.onerror = () => reject(tx.error);
          };
        }),
    );
    await page.evaluate(() => localStorage.setItem('agui-demo/active-thread', 'from-the-future'));
    assert.equal(await page.isVisible('#banner'), false);
    await reload(page);
    await page.waitForSelector('#banner:not([hidden])');
    const text = await page.textContent('#banner');
    assert.match(text, /This thread may not survive a reload/);
    assert.match(
      text,
      /thread "from-the-future" \(record threads\["from-the-future"\]\) was written by a newer version/,
    );
    // The thread goes on in memory: a turn works.
    assert.equal(await activeId(page), 'from-the-future');
    await send(page, 'hello');
    await turnEnded(page, 'done');
    assert.match(await lastAssistantText(page), /Hello! I'm the demo agent/);
    // ...and the newer record was not written over.
    const [row] = (await storedThreads(page)).filter((r) => r.threadId === 'from-the-future');
    assert.deepEqual(row.snapshot, { messages: [] });
    await screenshot(page, 'persist-storage-failed');
  },
);

flow(
  () => harness,
  'a second tab on the same thread follows the first: it shows each turn, and what either sends runs once',
  { permissions: ['geolocation'], geolocation: { latitude: 30.2672, longitude: -97.7431, accuracy: 25 } },
  async ({ page, context }) => {
    await send(page, 'hello');
    await turnEnded(page, 'done');
    const threadId = await activeId(page);
    const hello = await lastAssistantText(page);

    // Every request either tab sends, to count the tool's results among them.
    const bodies = [];
    context.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/agent')
        bodies.push(request.postDataJSON());
    });
    const second = await context.newPage();
    const errors = [];
    second.on('pageerror', (e) => errors.push(String(e?.message ?? e)));
    await second.goto(harness.url);
    await second.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    assert.equal(await activeId(second), threadId);
    assert.equal(await lastAssistantText(second), hello);
    // Headless pages all have the focus: the second, opened last, took charge of the idle thread,
    // and the first now follows it (docs/persistence.md#tabs).
    await page.waitForSelector('.thread-item.active .thread-flag.elsewhere', { timeout: 10000 });
    assert.equal(await second.isVisible('.thread-item.active .thread-flag.elsewhere'), false);

    // Sent from the tab in charge: its tool runs there, and the first tab shows the turn.
    await send(second, 'Where am I?');
    await turnEnded(second, 'done');
    const answer = await lastAssistantText(second);
    assert.match(answer, /30\.2672/);
    await page.waitForFunction((text) => {
      const bubbles = [...document.querySelectorAll('.conversation:not([hidden]) .msg-assistant .bubble')];
      return bubbles
        .filter((b) => b.textContent)
        .at(-1)
        ?.textContent.includes(text);
    }, '30.2672');
    assert.deepEqual(
      (await toolCards(page)).map((c) => [c.name, c.state]),
      [['get_current_location', 'done']],
    );

    // Sent from the following tab: carried out by the tab in charge, once.
    await send(page, 'Where am I now?');
    await turnEnded(second, 'done');
    await turnEnded(page, 'done');
    assert.equal(await second.locator('.conversation:not([hidden]) .msg-user').count(), 3);
    assert.equal(await page.locator('.conversation:not([hidden]) .msg-user').count(), 3);
    assert.equal(await lastAssistantText(page), await lastAssistantText(second));
    // Two turns with a location round each: 4 requests, and one result per call in the last.
    assert.equal(bodies.length, 4, 'two requests per turn, none twice');
    const results = bodies[3].messages.filter((m) => m.role === 'tool');
    assert.equal(results.length, 2);
    assert.equal(new Set(results.map((m) => m.toolCallId)).size, 2, 'one result per call');
    await screenshot(page, 'persist-second-tab-follows');
    assert.deepEqual(errors, [], 'the second tab threw nothing');
    await second.close();
  },
);
