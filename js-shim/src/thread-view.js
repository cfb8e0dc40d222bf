// A framework-free view of one runtime's thread, for UIs: immutable snapshots
// (the message list, each message, each tool call, the status, the pending
// approvals and interrupts), each replaced by a new object only when it
// changes, and listeners per snapshot, so a text delta notifies the one
// message it grew. The one place that turns changes into snapshots; the React
// hooks (react.js) only read it. It decides nothing: a call's state is the one
// the core announces. Each change costs O(1) amortised however many calls a
// message holds, as in the core: a message and the list are kept as drafts
// the view changes in place, and their snapshots are built when read (once
// per change at most), so a turn of N calls costs O(N), not O(N²).

import { MessageDraft, MessageOrder } from './thread-drafts.js';

// Changes that never move the status (the per-delta and per-call ones): no status read for them.
// A read costs a trip into the core, which lists the round's calls: one per call of a round of N
// calls was O(N²). (A result's call moves on with its own tool_call_status.)
const STATUS_UNCHANGED = new Set([
  'text_appended',
  'tool_call_args',
  'tool_call_partial',
  'metadata_merged',
  'message_ended',
  'state_patched',
  'state_replaced',
  'event',
  'tool_call_added',
  'tool_call_ended',
  'tool_result',
]);
// The call states the status lists (`running`, `pendingApprovals`): a tool_call_status moves the
// status only when its call goes into one of them or was listed.
const LISTED_STATES = new Set(['running', 'pending_approval']);

const messageKey = (id) => `message:${id}`;
const callKey = (id) => `toolCall:${id}`;
const entry = (message) => ({ id: message.id, role: message.role });

/** Arguments as the core reads them: blank text is no arguments ({}). */
function parseArgs(text) {
  try {
    return { args: text.trim() === '' ? {} : JSON.parse(text) };
  } catch (e) {
    return { invalid: `arguments are not valid JSON: ${e.message}` };
  }
}

export class ThreadView {
  #runtime;
  #snapshots = new Map(); // key -> snapshot (status, approvals, interrupts, tool calls)
  #drafts = new Map(); // message id -> MessageDraft
  #order = new MessageOrder();
  #texts = new Map(); // status keys -> JSON text of the snapshot (to replace it only when it changes)
  #listed = new Set(); // the toolCallIds the status lists
  #listeners = new Map(); // key -> Set of listeners
  #unsubscribe;

  constructor(runtime) {
    this.#runtime = runtime;
    this.#replaceAll(runtime.messages);
    this.#readStatus();
    this.#unsubscribe = runtime.subscribe((change) => this.#apply(change));
  }

  /** The messages in thread order, as `{id, role}`; a new array only when one is added, removed or replaced. */
  messages() {
    return this.#order.list();
  }

  message(id) {
    return this.#drafts.get(id)?.read();
  }

  toolCall(id) {
    return this.#snapshots.get(callKey(id));
  }

  status() {
    return this.#snapshots.get('status');
  }

  approvals() {
    return this.#snapshots.get('approvals');
  }

  interrupts() {
    return this.#snapshots.get('interrupts');
  }

  /**
   * Calls `listener()` when the snapshot under `key` is replaced: 'messages', 'status',
   * 'approvals', 'interrupts', `message:${id}` or `toolCall:${id}`. Returns the unsubscribe function.
   */
  subscribe(key, listener) {
    let set = this.#listeners.get(key);
    if (!set) this.#listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(key) === set) this.#listeners.delete(key);
    };
  }

  /** Stops following the runtime. */
  dispose() {
    this.#unsubscribe();
    this.#listeners.clear();
  }

  // ------------------------------------------------------------ snapshots

  #notify(key) {
    const listeners = this.#listeners.get(key);
    if (listeners) for (const listener of listeners) listener();
  }

  #put(key, snapshot) {
    this.#snapshots.set(key, snapshot);
    this.#notify(key);
  }

  #update(key, patch) {
    const current = this.#snapshots.get(key);
    if (current) this.#put(key, { ...current, ...patch(current) });
  }

  /** Replaces the snapshot when its JSON differs from the last one (status, approvals, interrupts). */
  #putIfChanged(key, value) {
    const text = JSON.stringify(value);
    if (this.#texts.get(key) === text) return false;
    this.#texts.set(key, text);
    this.#put(key, value);
    return true;
  }

  #readStatus() {
    const status = this.#runtime.status;
    if (this.#putIfChanged('status', status))
      this.#listed = new Set([...status.running, ...status.pendingApprovals.map((a) => a.toolCallId)]);
    this.#putIfChanged('approvals', status.pendingApprovals);
    this.#putIfChanged('interrupts', status.pendingInterrupts);
  }

  // ------------------------------------------------------------ changes

  #apply(change) {
    switch (change.kind) {
      case 'message_added':
      case 'message_updated':
        this.#putMessage(change.message);
        break;
      case 'text_appended':
        this.#changeMessage(change.messageId, (d) => d.set('content', (d.field('content') ?? '') + change.delta));
        break;
      case 'metadata_merged':
        this.#mergeMetadata(change);
        break;
      case 'messages_replaced':
        this.#replaceAll(change.messages);
        break;
      case 'tool_call_added':
        this.#addCall(change.messageId, change.toolCall);
        break;
      case 'tool_call_args':
        this.#update(callKey(change.toolCallId), (c) => ({ argsText: c.argsText + change.delta }));
        break;
      case 'tool_call_partial':
        // The runtime may grow `args` in place: the call is a new object all the same.
        this.#update(callKey(change.toolCallId), () =>
          change.invalid === undefined ? { args: change.args } : { args: change.args, invalid: change.invalid },
        );
        break;
      case 'tool_call_ended':
        this.#endCall(change.toolCallId);
        break;
      case 'tool_call_status':
        this.#update(callKey(change.toolCallId), () =>
          change.error === undefined ? { state: change.status } : { state: change.status, error: change.error },
        );
        break;
      case 'tool_result':
        this.#addResult(change.message);
        break;
    }
    if (this.#movesStatus(change)) this.#readStatus();
  }

  /** Changes message `id`'s draft with `change(draft)` (false: nothing changed) and notifies its listeners. */
  #changeMessage(id, change) {
    const draft = this.#drafts.get(id);
    if (draft && change(draft) !== false) this.#notify(messageKey(id));
  }

  #setMessage(message) {
    this.#drafts.set(message.id, new MessageDraft(message));
    this.#notify(messageKey(message.id));
  }

  #movesStatus({ kind, status, toolCallId }) {
    if (kind === 'tool_call_status') return LISTED_STATES.has(status) || this.#listed.has(toolCallId);
    return !STATUS_UNCHANGED.has(kind);
  }

  /** A message added, or replaced whole (an update, a second add of the same id). */
  #putMessage(message) {
    const known = this.#drafts.has(message.id);
    const moved = known && this.#drafts.get(message.id).field('role') !== message.role;
    this.#setMessage(message);
    if (!known) this.#order.append(entry(message));
    // Its role changed, so it may change runs: the list anew (rare).
    if (moved) this.#order.reset(this.messages().map((e) => (e.id === message.id ? entry(message) : e)));
    if (!known || moved) this.#notify('messages');
    // A run's input may bring messages with their calls and results whole.
    for (const call of message.toolCalls ?? []) {
      if (!this.toolCall(call.id)) this.#putSettledCall(message.id, call, new Map());
    }
    if (message.role === 'tool') this.#update(callKey(message.toolCallId), () => resultOf(message));
  }

  #mergeMetadata({ messageId, toolCallId, metadata }) {
    if (messageId !== undefined) return this.#changeMessage(messageId, (d) => d.set('metadata', metadata));
    const call = this.toolCall(toolCallId);
    if (call) this.#changeMessage(call.messageId, (d) => d.patchCall(toolCallId, () => ({ metadata })));
  }

  #addCall(messageId, toolCall) {
    this.#changeMessage(messageId, (d) => d.addCall(toolCall));
    this.#put(callKey(toolCall.id), {
      id: toolCall.id,
      name: toolCall.function.name,
      messageId,
      state: undefined, // until the core announces it (tool_call_status)
      args: undefined,
      argsText: toolCall.function.arguments ?? '',
    });
  }

  /** The arguments are complete: the final parse replaces the partial value (kept if they are not JSON). */
  #endCall(toolCallId) {
    const call = this.toolCall(toolCallId);
    if (!call) return;
    const { args, invalid } = parseArgs(call.argsText);
    this.#put(callKey(toolCallId), invalid === undefined ? { ...call, args } : { invalid, ...call });
    this.#changeMessage(call.messageId, (d) =>
      d.patchCall(toolCallId, (c) => ({ function: { ...c.function, arguments: call.argsText } })),
    );
  }

  /** A tool message, placed where the core puts it (MessageOrder.insertResult). */
  #addResult(message) {
    this.#setMessage(message);
    this.#order.insertResult(this.toolCall(message.toolCallId)?.messageId, entry(message));
    this.#notify('messages');
    this.#update(callKey(message.toolCallId), () => resultOf(message));
  }

  // ------------------------------------------------------------ a whole thread

  /**
   * A snapshot or an import: every message anew, but a message or call equal to the one held
   * keeps its object (and its listeners sleep). A call seen before keeps its state; a new one has
   * none announced, so it is done (error) when a tool message answers it, otherwise ready.
   */
  #replaceAll(messages) {
    const results = new Map(messages.filter((m) => m.role === 'tool').map((m) => [m.toolCallId, m]));
    const kept = new Set(messages.map((m) => m.id));
    for (const { id } of this.messages()) {
      if (!kept.has(id) && this.#drafts.delete(id)) this.#notify(messageKey(id));
    }
    for (const message of messages) {
      const old = this.message(message.id);
      if (!old || JSON.stringify(old) !== JSON.stringify(message)) this.#setMessage(message);
      for (const call of message.toolCalls ?? []) this.#putSettledCall(message.id, call, results);
    }
    const list = this.messages();
    const same = list.length === messages.length && messages.every((m, i) => sameEntry(list[i], m));
    if (!same) {
      this.#order.reset(messages.map(entry));
      this.#notify('messages');
    }
  }

  #putSettledCall(messageId, call, results) {
    const next = this.#settledCall(messageId, call, results);
    const old = this.toolCall(call.id);
    if (!old) return this.#put(callKey(call.id), next);
    const unchanged =
      old.argsText === next.argsText &&
      JSON.stringify([old.result, old.error]) === JSON.stringify([next.result, next.error]);
    if (!unchanged) this.#put(callKey(call.id), { ...next, state: old.state ?? next.state });
  }

  /** A call whose arguments are complete, from a message (a snapshot, an import, a run's input). */
  #settledCall(messageId, call, results) {
    const argsText = call.function?.arguments ?? '';
    const result = results.get(call.id);
    return {
      id: call.id,
      name: call.function?.name,
      messageId,
      state: result ? (result.error === undefined ? 'done' : 'error') : 'ready',
      ...parseArgs(argsText),
      argsText,
      ...(result ? resultOf(result) : {}),
    };
  }
}

const sameEntry = (e, message) => e.id === message.id && e.role === message.role;

/** What a tool message says of its call. */
function resultOf(message) {
  return message.error === undefined ? { result: message.content } : { result: message.content, error: message.error };
}

/** A view of `runtime`'s thread (see ThreadView); dispose() it to stop following the runtime. */
export function createThreadView(runtime) {
  return new ThreadView(runtime);
}
