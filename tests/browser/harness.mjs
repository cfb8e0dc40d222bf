// Shared set-up for the browser tests: builds the demo page into a temporary folder, starts the
// demo agent on port 0 serving it, drives Debian's Chromium through playwright-core, blocks (and
// counts) every request that is not for the local server, and saves screenshots.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium } from './chromium.mjs';
import { mkdtemp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyChange } from 'agui-client-tools';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
export const SCREENSHOT_DIR = join(root, 'tests', 'out', 'screenshots');

const { buildPage } = await import(join(root, 'demo-page', 'build.mjs'));
const { startDemoServer } = await import(join(root, 'demo-page', 'server', 'main.mjs'));

/**
 * Starts everything a test file needs; call close() in after(). `brain` replaces the demo
 * agent's planner (a scripted brain sends events the planner never does); `server` adds options
 * of startDemoServer (e.g. argsDelayMs, to slow the streamed arguments down). `build(outdir)`
 * builds another page than the demo's (the React app), which marks itself ready on `ready`.
 */
export async function startHarness({
  brain,
  server: serverOptions = {},
  build = (outdir) => buildPage({ outdir, sourcemap: false }),
  ready = 'body[data-ready="true"]',
} = {}) {
  const outdir = await mkdtemp(join(tmpdir(), 'agui-demo-page-'));
  await build(outdir);
  const server = await startDemoServer({
    port: 0,
    staticRoot: outdir,
    ...serverOptions,
    ...(brain ? { brain } : {}),
  });
  const browser = await launchChromium();
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await announceOnce();
  const origin = new URL(server.url).origin;
  const contexts = new Set();

  return {
    url: server.url,
    /**
     * A fresh context (its own storage) and page, opened on the demo. `blocked` lists every
     * request that tried to leave the local server.
     */
    async open({ permissions = [], geolocation, viewport = { width: 1280, height: 860 } } = {}) {
      const context = await browser.newContext({ permissions, geolocation, viewport });
      contexts.add(context);
      const blocked = [];
      const errors = [];
      await context.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(`${origin}/`)) return route.continue();
        blocked.push(url);
        return route.abort('blockedbyclient');
      });
      const page = await context.newPage();
      const consoleErrors = [];
      page.on('pageerror', (e) => errors.push(String(e?.message ?? e)));
      page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
      await page.goto(server.url);
      await page.waitForSelector(ready, { timeout: 30000 });
      return { page, context, blocked, errors, consoleErrors };
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close().catch(() => {});
      await server.close();
      await rm(outdir, { recursive: true, force: true });
    },
  };
}

// node --test runs each file in its own process: the first of one run (same parent) says where
// the screenshots go. (A failure picture of this run is written after this cleanup.)
async function announceOnce() {
  const marker = join(SCREENSHOT_DIR, `.announced-${process.ppid}`);
  try {
    await writeFile(marker, '', { flag: 'wx' });
  } catch {
    return;
  }
  console.log(`# screenshots: ${SCREENSHOT_DIR}`);
  // A new run: forget the markers and failure pictures of earlier runs.
  for (const name of await readdir(SCREENSHOT_DIR)) {
    const stale =
      (name.startsWith('.announced-') && name !== `.announced-${process.ppid}`) || name.startsWith('FAILED-');
    if (stale) await rm(join(SCREENSHOT_DIR, name), { force: true });
  }
}

/**
 * A test of one flow in a fresh context: `fn(session)` drives the page. Afterwards no request may
 * have tried to leave the machine and the page must have thrown nothing. On failure the page is
 * saved as FAILED-<name>.png and its banner and console errors are added to the message.
 */
export function flow(getHarness, name, options, fn) {
  return test(name, async () => {
    const session = await getHarness().open(options);
    try {
      await fn(session);
    } catch (e) {
      const slug = name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 60);
      await screenshot(session.page, `FAILED-${slug}`).catch(() => {});
      const banner = await session.page.textContent('#banner').catch(() => null);
      e.message += `\n  page banner: ${banner || '(none)'}\n  console errors: ${JSON.stringify(session.consoleErrors)}`;
      throw e;
    }
    assert.deepEqual(session.blocked, [], 'no request left the local server');
    assert.deepEqual(session.errors, [], 'the page threw nothing');
    assert.deepEqual(session.consoleErrors, [], 'the page logged no error (a CSP violation would show here)');
  });
}

export async function screenshot(page, name) {
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });
}

/** Types a message and sends it with the Send button. */
export async function send(page, text) {
  await page.fill('#input', text);
  await page.click('#send');
}

/** Waits until the last user message's turn has ended (with the given reason, if any). */
export async function turnEnded(page, reason, timeout = 30000) {
  await page.waitForFunction(
    (want) => {
      const users = document.querySelectorAll('.conversation:not([hidden]) .msg-user');
      const turn = users[users.length - 1]?.dataset.turn;
      return turn && turn !== 'running' && (!want || turn === want);
    },
    reason ?? null,
    { timeout },
  );
}

/** The text of the last assistant bubble in the visible thread. */
export function lastAssistantText(page) {
  return page.evaluate(() => {
    const bubbles = [...document.querySelectorAll('.conversation:not([hidden]) .msg-assistant .bubble')].filter(
      (b) => b.textContent,
    );
    return bubbles.at(-1)?.textContent ?? '';
  });
}

export async function setTool(page, name, enabled) {
  const box = page.locator(`#tool-toggle-${name}`);
  if ((await box.isChecked()) !== enabled) await box.click();
  await page.waitForFunction(([n, on]) => document.querySelector(`#tool-toggle-${n}`)?.checked === on, [name, enabled]);
}

/** Every tool card in the visible thread with its state. */
export function toolCards(page) {
  return page.$$eval('.conversation:not([hidden]) .tool-card', (cards) =>
    cards.map((c) => ({
      id: c.dataset.toolCallId,
      name: c.dataset.name,
      side: c.dataset.side,
      state: c.dataset.state,
      label: c.querySelector('.tool-label')?.textContent,
      error: c.querySelector('.tool-error:not([hidden])')?.textContent ?? null,
    })),
  );
}

/**
 * The threads the demo's store holds (IndexedDB database "agui-demo", read directly, not through
 * the page's code, each export folded with its change records as docs/persistence.md says):
 * [{threadId, updatedAt, snapshot}], newest first; [] before the first save.
 */
export async function storedThreads(page) {
  const { threads, changes } = await page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const request = indexedDB.open('agui-demo');
        // No database yet: opening must not create one (the page's store creates it, with its tables).
        request.onupgradeneeded = () => request.transaction.abort();
        request.onerror = (event) => {
          event.preventDefault();
          resolve({ threads: [], changes: [] });
        };
        request.onsuccess = () => {
          const db = request.result;
          const tx = db.transaction(['threads', 'changes'], 'readonly');
          const threads = tx.objectStore('threads').getAll();
          const changes = tx.objectStore('changes').getAll(); // (in key order: by thread, then seq)
          tx.oncomplete = () => {
            db.close();
            resolve({ threads: threads.result, changes: changes.result });
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
  );
  const rows = threads.map(({ threadId, updatedAt, snapshot }) => {
    const after = changes.filter((c) => c.threadId === threadId);
    return {
      threadId,
      updatedAt: after.at(-1)?.updatedAt ?? updatedAt,
      snapshot: after.reduce((thread, c) => applyChange(thread, c.change), snapshot),
    };
  });
  return rows.sort((a, b) => b.updatedAt - a.updatedAt);
}

/** Waits until `test(storedThreads)` holds (a write is durable once it shows here), and returns them. */
export async function waitForStored(page, test, what = 'the stored threads', timeout = 15000) {
  const until = Date.now() + timeout;
  for (;;) {
    const rows = await storedThreads(page);
    if (test(rows)) return rows;
    if (Date.now() > until)
      throw new Error(`timed out waiting for ${what}; stored: ${JSON.stringify(rows).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Reloads the demo page and waits until it is ready again (its threads reopened from the store). */
export async function reload(page) {
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
}
