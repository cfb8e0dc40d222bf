// One tool call as a card: its label (the catalog summary, or the prettified name of a server
// tool), where it runs, its arguments as they stream, its state, and its result or error.
import { h, parseJson, prettyJson, textOf, truncate } from './dom.js';

export const FINAL_STATES = new Set(['done', 'error', 'rejected', 'incomplete']);

const STATE_TEXT = {
  streaming: 'Receiving arguments…',
  waiting: 'Waiting for the run to finish',
  server: 'Running on the server…',
  pending_approval: 'Waiting for your approval',
  running: 'Running in your browser…',
  done: 'Done',
  error: 'Error',
  rejected: 'Rejected',
  incomplete: 'No result',
};

/** A short, one-line view of the arguments: `key: value` pairs, objects collapsed. */
function previewArgs(text) {
  const args = parseJson(text);
  if (args === undefined) return truncate(text, 160);
  if (!args || typeof args !== 'object' || Array.isArray(args)) return truncate(JSON.stringify(args), 160);
  const parts = Object.entries(args).map(([k, v]) => {
    const shown =
      typeof v === 'string' ? v : v && typeof v === 'object' ? (Array.isArray(v) ? '[…]' : '{…}') : String(v);
    return `${k}: ${truncate(shown, 120)}`;
  });
  return parts.length ? parts.join(' · ') : 'no arguments';
}

/** What a tool message says: {state, error?, text}. A {error} result is an error the model reads. */
export function classifyResult(message) {
  const text = textOf(message.content);
  if (message.error) return { state: 'error', error: String(message.error), text };
  const value = parseJson(text);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    if (value.error !== undefined && value.error !== null && value.error !== false) {
      const e = value.error;
      return { state: 'error', error: typeof e === 'string' ? e : (e.message ?? JSON.stringify(e)), text };
    }
    if (value.decision === 'rejected') return { state: 'rejected', text };
  }
  return { state: 'done', text };
}

export class ToolCard {
  /**
   * @param {{id: string, name: string, args?: string, label: string, side: 'client' | 'server'}} call
   */
  constructor({ id, name, args = '', label, side }) {
    this.id = id;
    this.name = name;
    this.side = side;
    this.args = args;
    this.stateEl = h('span', { class: 'tool-state' });
    this.argsPreview = h('div', { class: 'tool-args-preview' });
    this.argsPre = h('pre', { class: 'json' });
    this.argsDetails = h('details', { class: 'tool-args' }, h('summary', { text: 'Arguments' }), this.argsPre);
    this.slot = h('div', { class: 'tool-slot' }); // approval cards go here
    this.errorEl = h('p', { class: 'tool-error', hidden: true });
    this.resultPre = h('pre', { class: 'json' });
    this.resultDetails = h(
      'details',
      { class: 'tool-result', hidden: true },
      h('summary', { text: 'Result' }),
      this.resultPre,
    );
    this.el = h(
      'article',
      { class: 'tool-card', dataset: { toolCallId: id, name, side } },
      h(
        'header',
        { class: 'tool-head' },
        h('span', { class: 'tool-icon', 'aria-hidden': 'true', text: side === 'client' ? '⌂' : '⚙' }),
        h('span', { class: 'tool-label', text: label }),
        h('code', { class: 'tool-name', text: name }),
        h('span', {
          class: 'tool-side',
          text: side === 'client' ? 'your browser' : 'server',
          title: side === 'client' ? 'A client tool: it runs in this tab' : 'A server tool: the agent runs it',
        }),
        this.stateEl,
      ),
      this.argsPreview,
      this.slot,
      this.errorEl,
      h('div', { class: 'tool-details' }, this.argsDetails, this.resultDetails),
    );
    this.setState(args ? 'waiting' : 'streaming');
    this.renderArgs();
  }

  get state() {
    return this.el.dataset.state;
  }

  setState(state, note) {
    this.el.dataset.state = state;
    let text = STATE_TEXT[state] ?? state;
    if (state === 'waiting' && this.side === 'server') text = STATE_TEXT.server;
    this.stateEl.textContent = note ? `${text} · ${note}` : text;
  }

  renderArgs() {
    this.argsPreview.textContent = this.args ? previewArgs(this.args) : '…';
    this.argsPre.textContent = prettyJson(this.args);
  }

  appendArgs(delta) {
    this.args += delta;
    this.argsPreview.textContent = truncate(this.args, 160);
    this.argsPre.textContent = this.args;
  }

  endArgs() {
    this.renderArgs();
    if (this.state === 'streaming') this.setState('waiting');
  }

  /** A tool_call_status change from the runtime (client tools). */
  setStatus(status, error) {
    if (status === 'error') this.showError(error ?? 'the call failed');
    else if (status === 'done' && FINAL_STATES.has(this.state))
      return; // a result already refined it
    else this.setState(status);
  }

  showError(text) {
    this.setState('error');
    this.errorEl.hidden = false;
    this.errorEl.textContent = text;
  }

  /** The tool message that answers this call. */
  setResult(message) {
    const { state, error, text } = classifyResult(message);
    this.resultDetails.hidden = false;
    this.resultPre.textContent = prettyJson(text);
    if (state === 'error') this.showError(error);
    else this.setState(state);
    this.clearSlot();
  }

  showApproval(el) {
    this.slot.replaceChildren(el);
    this.setState('pending_approval');
  }

  clearSlot() {
    this.slot.replaceChildren();
  }

  /** The turn ended and this call never got an answer (a server tool cut off by an error, say). */
  closeIfOpen() {
    if (!FINAL_STATES.has(this.state) && this.state !== 'pending_approval') this.setState('incomplete');
  }
}
