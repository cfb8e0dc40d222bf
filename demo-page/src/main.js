// The demo page: wires the agui-client-tools runtime (imported as an app would) to the thread
// list, the conversation views, the composer, the tools panel and the debug drawer. The threads
// are kept by the runtime itself (createRuntime({persist}) with an IndexedDB store): the page only
// lists them, deletes them, and remembers which one was open.
import { MAX_FRONTEND_TOOL_ROUNDS, browserTools, createRuntime, indexedDbStore, memoryStore } from 'agui-client-tools';
import { createComposer } from './composer.js';
import { createDebugDrawer } from './debug-drawer.js';
import { h, textOf, truncate } from './dom.js';
import { ThreadView } from './thread-view.js';
import { createToolsPanel, restoreToggles } from './tools-panel.js';

const MAX_ROUNDS = MAX_FRONTEND_TOOL_ROUNDS;
const $ = (id) => document.getElementById(id);

const threads = new Map(); // threadId -> {runtime, view, title, asked}
let order = []; // threadIds, most recent first (as store.list() gives them)
let activeId = null;
let labelCache = null;
let panel = null; // the tools panel, once the runtime is up

// The conversation sticks to its newest line while it grows (streamed text, a chart loading),
// unless the user scrolled up to read.
const scroller = $('scroller');
let stick = true;
scroller.addEventListener('scroll', () => {
  stick = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
});
const autoscroll = new ResizeObserver(() => {
  if (stick) scroller.scrollTop = scroller.scrollHeight;
});

// Which thread was open, for the next load: a UI preference like the tools' toggles. The threads
// themselves are in the runtime's store, never here.
const ACTIVE_KEY = 'agui-demo/active-thread';

function rememberActive(threadId) {
  try {
    localStorage.setItem(ACTIVE_KEY, threadId);
  } catch {
    // (a page without localStorage opens the newest thread)
  }
}

function rememberedActive() {
  try {
    return localStorage.getItem(ACTIVE_KEY);
  } catch {
    return null;
  }
}

// The threads' store, shared by every runtime the page opens (openThread() passes it on).
let store = null;

function banner(text) {
  const el = $('banner');
  el.hidden = false;
  el.textContent = text;
}

let root = null; // the first runtime, until its thread is deleted (every thread shares its tools)
const anyRuntime = () => threads.get(activeId)?.runtime ?? threads.values().next().value?.runtime ?? root;
const active = () => threads.get(activeId);

/** Client tool name → catalog summary (the label of its cards). */
function labels() {
  if (!labelCache)
    labelCache = new Map(
      anyRuntime()
        .tools.catalog()
        .map((t) => [t.name, t.summary]),
    );
  return labelCache;
}

// ------------------------------------------------------------ threads

function titleOf(runtime) {
  const first = runtime.messages.find((m) => m.role === 'user');
  return first ? truncate(textOf(first.content).replace(/\s+/g, ' '), 60) : '';
}

const countAsked = (runtime) => runtime.messages.filter((m) => m.role === 'user').length;

function adopt(runtime) {
  const t = { runtime, title: titleOf(runtime), asked: countAsked(runtime) };
  let frame = 0;
  t.view = new ThreadView({
    runtime,
    maxRounds: MAX_ROUNDS,
    labels,
    onChange: (change) => {
      debug.log(runtime.threadId, change);
      if (change.kind === 'event') return;
      if (change.kind === 'storage_failed') {
        // The runtime goes on in memory: the thread is whole until the page closes.
        banner(`This thread may not survive a reload: ${change.message}`);
        return;
      }
      if (change.kind === 'tools_changed') {
        // Every thread hears it (the tools are shared); the active one updates the page.
        if (runtime.threadId !== activeId) return;
        labelCache = null;
        panel?.render();
        composer.refreshChips();
        debug.showRuntime(runtime);
        return;
      }
      if (change.kind === 'messages_replaced') t.asked = countAsked(runtime);
      if (change.kind === 'role_changed') t.follows = change.role === 'follower';
      if (change.kind === 'message_added' && change.message.role === 'user') {
        t.asked += 1;
        if (!t.title) t.title = truncate(textOf(change.message.content).replace(/\s+/g, ' '), 60);
        // Sent, so saved now: the store lists it first too.
        order = [runtime.threadId, ...order.filter((id) => id !== runtime.threadId)];
      }
      if (!frame) {
        frame = requestAnimationFrame(() => {
          frame = 0;
          refresh(runtime.threadId);
        });
      }
    },
  });
  t.view.el.hidden = true;
  $('scroller').append(t.view.el);
  autoscroll.observe(t.view.el);
  threads.set(runtime.threadId, t);
  runtime.resumed?.then(() => refresh(runtime.threadId));
  return t;
}

function activate(threadId) {
  if (!threads.has(threadId)) return;
  activeId = threadId;
  for (const [id, t] of threads) t.view.el.hidden = id !== threadId;
  rememberActive(threadId);
  refresh(threadId);
  stick = true;
  active().view.scrollToEnd();
  composer.focus();
}

/** A new thread (kept in the store, inherited from the first runtime, once it has a message). */
function newThread() {
  const t = adopt(anyRuntime().openThread());
  order = [t.runtime.threadId, ...order];
  activate(t.runtime.threadId);
}

function deleteThread(threadId) {
  const t = threads.get(threadId);
  if (!t) return;
  if (threads.size === 1) newThread(); // always keep one thread (and a live runtime to open from)
  t.view.dispose();
  t.view.el.remove();
  // Disposes the runtime and deletes the stored thread after any write in flight.
  t.runtime.thread.delete().catch((e) => banner(`The thread could not be deleted from storage: ${e?.message ?? e}`));
  threads.delete(threadId);
  if (root === t.runtime) root = null;
  order = order.filter((id) => id !== threadId);
  if (activeId === threadId) activate(order[0]);
  renderThreadList();
}

let listKey = '';

/** Rebuilds the thread list when something it shows changed (it is asked every frame of a run). */
function renderThreadList() {
  const rows = order
    .filter((id) => threads.has(id))
    .map((id) => {
      const t = threads.get(id);
      return { id, t, phase: t.runtime.status.phase };
    });
  const key = JSON.stringify([activeId, rows.map(({ id, t, phase }) => [id, t.title, t.asked, phase, t.follows])]);
  if (key === listKey) return;
  listKey = key;
  $('thread-list').replaceChildren(
    ...rows.map(({ id, t, phase }) => {
      const del = h('button', {
        type: 'button',
        class: 'thread-delete',
        title: 'Delete this thread',
        'aria-label': 'Delete thread',
        text: '×',
        onclick: (event) => {
          event.stopPropagation();
          if (del.dataset.armed) deleteThread(id);
          else {
            del.dataset.armed = '1';
            del.textContent = 'Delete?';
            setTimeout(() => {
              delete del.dataset.armed;
              del.textContent = '×';
            }, 3000);
          }
        },
      });
      return h(
        'li',
        { class: `thread-item${id === activeId ? ' active' : ''}`, dataset: { threadId: id, phase } },
        h(
          'button',
          {
            type: 'button',
            class: 'thread-open',
            onclick: () => activate(id),
            'aria-current': id === activeId ? 'true' : undefined,
          },
          h('span', { class: 'thread-title', text: t.title || 'New thread' }),
          h(
            'span',
            { class: 'thread-sub' },
            phase === 'awaiting' ? h('span', { class: 'thread-flag', text: 'needs you' }) : null,
            phase === 'running' ? h('span', { class: 'thread-flag running', text: 'working' }) : null,
            t.follows ? h('span', { class: 'thread-flag elsewhere', text: 'open in another tab' }) : null,
            `${t.asked} message${t.asked === 1 ? '' : 's'}`,
          ),
        ),
        del,
      );
    }),
  );
}

// ------------------------------------------------------------ page state

function refresh(threadId) {
  renderThreadList();
  if (threadId !== activeId) return;
  const t = active();
  const status = t.runtime.status;
  composer.showStatus(status, MAX_ROUNDS);
  debug.showRuntime(t.runtime);
  $('empty-state').hidden = t.view.entries.size > 0 || t.view.notes.length > 0;
}

function send(text) {
  const t = active();
  if (!t) return;
  let turn;
  try {
    turn = t.runtime.send(text);
  } catch (e) {
    t.view.addNote('error', `Could not send: ${e?.message ?? e}`);
    return;
  }
  $('empty-state').hidden = true;
  stick = true;
  t.view.scrollToEnd();
  refresh(t.runtime.threadId);
  // (In a tab that follows another, the send is carried out there; it fails if that tab closes first.)
  turn.then(
    () => refresh(t.runtime.threadId),
    (e) => t.view.addNote('error', `Could not send: ${e?.message ?? e}`),
  );
}

const debug = createDebugDrawer($('debug-body'));
const composer = createComposer({
  form: $('composer'),
  input: $('input'),
  stop: $('stop'),
  status: $('status-bar'),
  chips: $('suggestions'),
  onSend: send,
  onStop: () => active()?.runtime.abort('stopped by the user'),
  isEnabled: (name) =>
    anyRuntime()
      .tools.list()
      .some((t) => t.name === name && t.enabled),
});

function setupChrome() {
  const drawer = $('debug-drawer');
  const toggleDebug = $('toggle-debug');
  toggleDebug.addEventListener('click', () => {
    drawer.hidden = !drawer.hidden;
    toggleDebug.setAttribute('aria-expanded', String(!drawer.hidden));
    document.body.classList.toggle('debug-open', !drawer.hidden);
    if (active()) debug.showRuntime(active().runtime); // the drawer skips updates while hidden
  });
  const panelEl = $('tools-panel');
  // Wide screens show the tools panel and the thread list beside the chat (Tools hides the panel);
  // narrow ones show either as an overlay on demand.
  const narrow = window.matchMedia('(max-width: 820px)');
  const toggleTools = $('toggle-tools');
  const toggleThreads = $('toggle-threads');
  const syncButtons = () => {
    const b = document.body.classList;
    toggleTools.setAttribute(
      'aria-expanded',
      String(narrow.matches ? b.contains('tools-open') : !b.contains('tools-hidden')),
    );
    toggleThreads.setAttribute('aria-expanded', String(b.contains('threads-open')));
  };
  toggleTools.addEventListener('click', () => {
    document.body.classList.toggle(narrow.matches ? 'tools-open' : 'tools-hidden');
    document.body.classList.remove('threads-open');
    syncButtons();
  });
  toggleThreads.addEventListener('click', () => {
    document.body.classList.toggle('threads-open');
    document.body.classList.remove('tools-open');
    syncButtons();
  });
  $('thread-list').addEventListener('click', (event) => {
    if (event.target.closest('.thread-open')) document.body.classList.remove('threads-open');
  });
  narrow.addEventListener('change', syncButtons);
  syncButtons();
  panelEl.addEventListener('health', (event) => {
    const info = event.detail;
    $('agent-info').textContent =
      `agent: ${info.brain ?? '?'} brain${info.permits ? ` · ${info.permits.toLocaleString('en-US')} permits` : ''}`;
  });
  $('new-thread').addEventListener('click', () => {
    newThread();
    document.body.classList.remove('threads-open');
  });
}

/** The store the runtimes keep their threads in: IndexedDB, or this page's memory without it. */
function openStore() {
  try {
    return indexedDbStore({ name: 'agui-demo' });
  } catch (e) {
    banner(`Threads will not survive a reload: ${e?.message ?? e}`);
    return memoryStore();
  }
}

/** The saved threads, newest first; none when the store cannot be read (said on the banner). */
async function savedThreads() {
  try {
    return await store.list();
  } catch (e) {
    banner(`The saved threads could not be listed: ${e?.message ?? e}`);
    return [];
  }
}

async function boot() {
  setupChrome();
  const wasm = new URL('./agui_core.wasm', import.meta.url);
  const tools = [
    browserTools.getCurrentLocation,
    browserTools.copyToClipboard,
    browserTools.readClipboard,
    browserTools.requestUserApproval,
  ];
  store = openStore();
  const saved = await savedThreads();
  const wanted = rememberedActive();
  const first = saved.find((row) => row.threadId === wanted) ?? saved[0];
  // The runtime loads the thread it is given by id (a record it cannot read is a storage_failed
  // change, and that thread goes on in memory); without one, it starts a new thread.
  const options = { url: '/agent', wasm, maxRounds: MAX_ROUNDS, tools, persist: store };
  root = await createRuntime({ ...options, threadId: first?.threadId });
  restoreToggles(root);
  adopt(root);
  // The others share its tools (and their toggles): openStoredThread() loads each from the store,
  // or follows the tab already in charge of it.
  for (const row of saved) {
    if (row.threadId === root.threadId) continue;
    try {
      adopt(await root.openStoredThread(row.threadId));
    } catch (e) {
      banner(`A saved thread could not be restored (${e?.message ?? e}); it is left in storage as it was.`);
    }
  }
  order = saved.map((row) => row.threadId).filter((id) => threads.has(id));
  if (!order.includes(root.threadId)) order.unshift(root.threadId); // a new thread

  panel = createToolsPanel($('tools-panel'), anyRuntime);
  composer.refreshChips();
  activate(root.threadId);
  document.body.dataset.ready = 'true';
}

boot().catch((e) => {
  console.error(e);
  banner(`The page could not start: ${e?.message ?? e}`);
  document.body.dataset.ready = 'error';
});
