// The conversation of one thread, kept up to date from runtime.subscribe() changes: streamed text,
// reasoning, tool-call cards, approvals, interrupts, charts and maps, and in-place notes for what
// the messages do not record (run errors, round-cap stops, follow-up rounds). Text only, no HTML.
import { createActivityCard } from './activity.js';
import { createApprovalCard, createInterruptCard } from './cards.js';
import { h, prettify, textOf } from './dom.js';
import { ToolCard } from './tool-card.js';

const NOTE_CLASS = {
  round: 'note note-round',
  round_limit: 'note note-warn',
  run_error: 'note note-error',
  problem: 'note note-warn',
  aborted: 'note note-muted',
  cancelled: 'note note-muted',
  interrupt: 'note note-muted',
  error: 'note note-error',
};

export class ThreadView {
  /**
   * @param {{runtime: import('agui-client-tools').Runtime, notes?: object[], maxRounds: number,
   *          labels: () => Map<string, string>, onChange?: (change: object) => void}} options
   */
  constructor({ runtime, notes = [], maxRounds, labels, onChange }) {
    this.runtime = runtime;
    this.notes = notes; // this page's only: the runtime's store keeps the messages, not these
    this.maxRounds = maxRounds;
    this.labels = labels;
    this.onChange = onChange;
    this.el = h('div', {
      class: 'conversation',
      role: 'log',
      'aria-live': 'polite',
      dataset: { threadId: runtime.threadId },
    });
    this.entries = new Map(); // messageId -> {el, textEl?, toolsEl?, role}
    this.cards = new Map(); // toolCallId -> ToolCard
    this.activities = new Map(); // messageId -> activity card
    this.interrupts = new Map(); // interruptId -> interrupt card
    this.lastMessageId = null;
    this.turnEl = null; // the user message of the turn in progress
    this.turnHadError = false;
    this.unsubscribe = runtime.subscribe((change) => this.apply(change));
    this.renderAll();
  }

  dispose() {
    this.unsubscribe();
    for (const card of this.cards.values()) card.dispose();
    for (const a of this.activities.values()) a.dispose();
    this.activities.clear();
  }

  // ------------------------------------------------------------ rendering from scratch

  renderAll() {
    for (const card of this.cards.values()) card.dispose();
    for (const a of this.activities.values()) a.dispose();
    this.el.replaceChildren();
    this.entries.clear();
    this.cards.clear();
    this.activities.clear();
    this.interrupts.clear();
    this.lastMessageId = null;
    for (const note of this.notes) if (note.after === null) this.renderNote(note);
    const messages = this.runtime.messages;
    const byAfter = new Map();
    for (const note of this.notes) {
      if (note.after === null) continue;
      if (!byAfter.has(note.after)) byAfter.set(note.after, []);
      byAfter.get(note.after).push(note);
    }
    const known = new Set(messages.map((m) => m.id));
    for (const m of messages) {
      this.addMessage(m);
      if (m.role === 'user') this.entries.get(m.id).el.dataset.turn = 'done';
      for (const note of byAfter.get(m.id) ?? []) this.renderNote(note);
    }
    for (const note of this.notes) if (note.after !== null && !known.has(note.after)) this.renderNote(note);
    const status = this.runtime.status;
    if (status.phase !== 'idle') {
      // A restored thread whose turn goes on (approvals, interrupts, calls it resumes).
      const users = messages.filter((m) => m.role === 'user');
      this.turnEl = users.length ? this.entries.get(users.at(-1).id).el : null;
      if (this.turnEl) this.turnEl.dataset.turn = 'running';
    }
    for (const id of status.running) this.cards.get(id)?.setState('running');
    for (const approval of status.pendingApprovals) this.showApproval(approval);
    for (const interrupt of status.pendingInterrupts) this.showInterrupt(interrupt);
    this.scrollToEnd();
  }

  // ------------------------------------------------------------ messages

  /** `live`: the message is streaming in now (not rendered from history). */
  addMessage(m, live = false) {
    if (this.entries.has(m.id)) return;
    this.lastMessageId = m.id;
    switch (m.role) {
      case 'user': {
        const el = h(
          'div',
          { class: 'msg msg-user', dataset: { messageId: m.id } },
          h('div', { class: 'bubble', text: textOf(m.content) }),
        );
        this.entries.set(m.id, { el, role: 'user' });
        this.el.append(el);
        return;
      }
      case 'assistant': {
        const textEl = h('div', { class: 'bubble', text: textOf(m.content) });
        const toolsEl = h('div', { class: 'tool-list' });
        const el = h('div', { class: 'msg msg-assistant', dataset: { messageId: m.id } }, textEl, toolsEl);
        el.classList.toggle('empty', !textEl.textContent);
        this.entries.set(m.id, { el, textEl, toolsEl, role: 'assistant' });
        this.el.append(el);
        for (const call of m.toolCalls ?? []) this.addToolCall(m.id, call);
        return;
      }
      case 'reasoning': {
        const textEl = h('div', { class: 'reasoning-text', text: textOf(m.content) });
        const summary = h('summary', { text: live ? 'Thinking…' : 'Reasoning' });
        const el = h('details', { class: 'msg msg-reasoning', dataset: { messageId: m.id } }, summary, textEl);
        this.entries.set(m.id, { el, textEl, summary, role: 'reasoning' });
        this.el.append(el);
        return;
      }
      case 'tool': {
        const card = this.cards.get(m.toolCallId);
        if (card) {
          card.setResult(m);
          this.entries.set(m.id, { el: null, role: 'tool' });
          return;
        }
        // A result for a call this thread never showed (e.g. a snapshot without the call).
        const el = h(
          'div',
          { class: 'msg msg-tool', dataset: { messageId: m.id } },
          h('p', { class: 'muted', text: `Tool result for ${m.toolCallId}` }),
          h('pre', { class: 'json', text: textOf(m.content) }),
        );
        this.entries.set(m.id, { el, role: 'tool' });
        this.el.append(el);
        return;
      }
      case 'activity': {
        const card = createActivityCard(m);
        this.activities.set(m.id, card);
        this.entries.set(m.id, { el: card.el, role: 'activity' });
        this.el.append(card.el);
        card.attach();
        return;
      }
      default: {
        const el = h(
          'div',
          { class: 'msg msg-system', dataset: { messageId: m.id } },
          h('span', { class: 'muted', text: `${m.role}: ` }),
          textOf(m.content),
        );
        this.entries.set(m.id, { el, role: m.role });
        this.el.append(el);
      }
    }
  }

  addToolCall(messageId, call) {
    if (this.cards.has(call.id)) return this.cards.get(call.id);
    let entry = this.entries.get(messageId);
    if (!entry || entry.role !== 'assistant') {
      this.addMessage({ id: messageId ?? `calls-${call.id}`, role: 'assistant', content: '' });
      entry = this.entries.get(messageId ?? `calls-${call.id}`);
    }
    const name = call.function?.name ?? 'tool';
    const labels = this.labels();
    const card = new ToolCard({
      id: call.id,
      name,
      args: call.function?.arguments ?? '',
      label: labels.get(name) ?? prettify(name),
      side: labels.has(name) ? 'client' : 'server',
    });
    this.cards.set(call.id, card);
    entry.toolsEl.append(card.el);
    return card;
  }

  showApproval(approval) {
    const card = this.cards.get(approval.toolCallId);
    const el = createApprovalCard(approval, {
      approve: (id) => this.runtime.approvals.approve(id),
      reject: (id, reason) => this.runtime.approvals.reject(id, reason),
    });
    if (card) card.showApproval(el);
    else this.el.append(el);
  }

  showInterrupt(interrupt) {
    if (this.interrupts.has(interrupt.id)) return;
    const card = createInterruptCard(interrupt, {
      resolve: (id, payload) => this.runtime.interrupts.resolve(id, payload),
      cancel: (id, reason) => this.runtime.interrupts.cancel(id, reason),
    });
    this.interrupts.set(interrupt.id, card);
    this.el.append(card.el);
  }

  // ------------------------------------------------------------ notes

  addNote(kind, text, { render = true, title } = {}) {
    const note = { kind, title, text, after: this.lastMessageId, at: new Date().toISOString() };
    this.notes.push(note);
    if (render) this.renderNote(note);
  }

  renderNote(note) {
    const el = h(
      'div',
      {
        class: NOTE_CLASS[note.kind] ?? 'note',
        role: note.kind === 'run_error' ? 'alert' : undefined,
        dataset: { note: note.kind },
      },
      note.title ? [h('strong', { text: `${note.title}:` }), ' '] : null,
      note.text,
    );
    this.el.append(el);
    return el;
  }

  // ------------------------------------------------------------ changes

  apply(change) {
    switch (change.kind) {
      case 'message_added':
        this.addMessage(change.message, true);
        if (change.message.role === 'user') {
          this.turnEl = this.entries.get(change.message.id)?.el ?? null;
          if (this.turnEl) this.turnEl.dataset.turn = 'running';
        }
        break;
      case 'text_appended': {
        const entry = this.entries.get(change.messageId);
        if (entry?.textEl) {
          entry.textEl.append(change.delta);
          entry.el.classList.remove('empty');
        }
        break;
      }
      case 'message_ended': {
        const entry = this.entries.get(change.messageId);
        if (entry?.summary) entry.summary.textContent = 'Reasoning';
        break;
      }
      case 'message_updated': {
        const m = change.message;
        const activity = this.activities.get(m.id);
        if (activity) activity.update(m);
        else if (!this.entries.has(m.id)) this.addMessage(m);
        else {
          const entry = this.entries.get(m.id);
          if (entry.textEl && typeof m.content === 'string') {
            entry.textEl.textContent = m.content;
            entry.el.classList.toggle('empty', !m.content);
          }
        }
        break;
      }
      case 'messages_replaced':
        this.renderAll();
        break;
      case 'tool_call_added':
        this.addToolCall(change.messageId, change.toolCall);
        break;
      case 'tool_call_args':
        this.cards.get(change.toolCallId)?.appendArgs(change.delta);
        break;
      case 'tool_call_partial':
        // The runtime's value, grown in place by later changes: the card reads it, never keeps it.
        this.cards.get(change.toolCallId)?.setPartial(change.args, change.invalid);
        break;
      case 'tool_call_ended':
        this.cards.get(change.toolCallId)?.endArgs();
        break;
      case 'tool_call_status':
        this.cards.get(change.toolCallId)?.setStatus(change.status, change.error);
        break;
      case 'tool_result':
        this.addMessage(change.message);
        break;
      case 'approval_requested':
        this.showApproval(change.approval);
        break;
      case 'interrupts':
        for (const interrupt of change.interrupts) this.showInterrupt(interrupt);
        break;
      case 'interrupt_answered': {
        // The card says it live; the note keeps it when the thread is drawn again (messages_replaced).
        const card = this.interrupts.get(change.interruptId);
        const said = card?.answered(change.status);
        this.addNote('interrupt', card ? `“${card.message}” ${said}` : `Interrupt ${change.status}.`, {
          render: !card,
        });
        break;
      }
      case 'turn_started':
        this.turnHadError = false;
        break;
      case 'round_started':
        if (change.round > 0) {
          this.addNote(
            'round',
            `Follow-up round ${change.round} of ${this.maxRounds}: tool results sent back to the agent`,
          );
        }
        break;
      case 'run_error':
        this.turnHadError = true;
        this.addNote('run_error', `${change.message}${change.code ? ` (${change.code})` : ''}`, {
          title: 'The run failed',
        });
        break;
      case 'problem':
        if (change.fatal) this.turnHadError = true; // the turn then ends run_error: one line is enough
        this.addNote(change.fatal ? 'error' : 'problem', change.message, {
          title: `Stream problem${change.eventType ? ` in ${change.eventType}` : ''}${change.fatal ? ' (the run was stopped)' : ''}`,
        });
        break;
      case 'turn_ended':
        this.endTurn(change);
        break;
      default:
        break;
    }
    this.onChange?.(change);
  }

  endTurn({ reason, message, closedCalls = [] }) {
    if (reason === 'round_limit') {
      const open = closedCalls.length === 1 ? 'the open call' : `the ${closedCalls.length} open calls`;
      this.addNote(
        'round_limit',
        `the agent was still calling tools after ${this.maxRounds} follow-up rounds, so the runtime ended the turn and answered ${open} with an error.`,
        { title: 'Stopped at the round cap' },
      );
    } else if (reason === 'run_error' && !this.turnHadError) {
      this.addNote('run_error', message ?? 'unknown error', { title: 'The run failed' });
    } else if (reason === 'aborted') {
      this.addNote('aborted', `Stopped${message ? `: ${message}` : '.'}`);
    } else if (reason === 'cancelled') {
      this.addNote('cancelled', `The agent cancelled the run${message ? `: ${message}` : '.'}`);
    }
    for (const card of this.cards.values()) card.closeIfOpen();
    if (this.turnEl) this.turnEl.dataset.turn = reason;
    this.turnEl = null;
  }

  // ------------------------------------------------------------ scrolling

  /** Jumps to the newest message (the page keeps it there while it grows, see main.js). */
  scrollToEnd() {
    const scroller = this.el.parentElement;
    if (scroller && !this.el.hidden) scroller.scrollTop = scroller.scrollHeight;
  }
}
