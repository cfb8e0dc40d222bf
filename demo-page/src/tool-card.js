// One tool call as a card: its label (the catalog summary, or the prettified name of a server
// tool), where it runs, its arguments as they stream, its state, and its result or error. A chart
// or map call also draws its arguments while they stream (the runtime's tool_call_partial).
import { h, parseJson, prettyJson, textOf, truncate } from './dom.js';

// The tools whose cards draw their arguments as they stream: the renderer (loaded on first use,
// as the activity cards load theirs) and what it reads from the arguments so far.
const LIVE_PREVIEWS = {
  create_chart: {
    noun: 'point',
    load: () => import('./renderers/echart.js').then((m) => ({ render: m.renderChart, shape: m.chartFromArgs })),
  },
  create_map: {
    noun: 'place',
    load: () => import('./renderers/leaflet-map.js').then((m) => ({ render: m.renderMap, shape: m.mapFromArgs })),
  },
};

export const FINAL_STATES = new Set(['done', 'error', 'rejected', 'cancelled', 'incomplete']);

const STATE_TEXT = {
  streaming: 'Receiving arguments…',
  waiting: 'Waiting for the run to finish',
  server: 'Running on the server…',
  pending_approval: 'Waiting for your approval',
  running: 'Running in your browser…',
  done: 'Done',
  error: 'Error',
  rejected: 'Rejected',
  cancelled: 'Cancelled',
  incomplete: 'No result',
};

/** A short, one-line view of the arguments text: `key: value` pairs, objects collapsed. */
function previewArgs(text) {
  const args = parseJson(text);
  return args === undefined ? truncate(text, 160) : previewValue(args);
}

/** The same view of a value (the arguments parsed so far); reads only its top level. */
function previewValue(args) {
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
    this.invalidEl = h('p', { class: 'tool-invalid', hidden: true });
    this.argsDetails.addEventListener('toggle', () => {
      if (this.argsDetails.open) this.argsPre.textContent = this.ended ? prettyJson(this.args) : this.args;
    });
    this.ended = Boolean(args); // a call from history comes with its arguments whole
    this.partial = undefined; // the runtime's value of the arguments so far, until the next frame draws it
    this.frame = 0;
    // Drawn only for a call seen streaming: a call from history shows its result's chart or map.
    this.live = this.ended ? null : (LIVE_PREVIEWS[name] ?? null);
    this.preview = this.live ? this.createPreview() : null;
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
      this.invalidEl,
      this.preview?.el,
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

  /** A tool_call_args delta: kept, drawn with the next frame (the text only while no value parsed). */
  appendArgs(delta) {
    this.args += delta;
    if (this.argsDetails.open) this.argsPre.textContent = this.args;
    this.scheduleDraw();
  }

  /**
   * A tool_call_partial change: the arguments parsed so far, and `invalid` once they stop being
   * JSON. `args` belongs to the runtime, which may grow it in place: it is read when the next
   * frame draws (the newest value wins), never changed, and let go once the call ends.
   */
  setPartial(args, invalid) {
    this.partial = args;
    if (invalid !== undefined) {
      this.el.dataset.invalid = 'true';
      this.invalidEl.hidden = false;
      this.invalidEl.textContent = `The arguments stopped being JSON: ${invalid}`;
    }
    this.scheduleDraw();
  }

  scheduleDraw() {
    if (this.frame || this.ended) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      if (!this.ended) this.drawArgs(this.partial, true);
    });
  }

  /** One redraw from the arguments so far (`live`) or the final ones: the one-line view, the preview. */
  drawArgs(value, live) {
    if (value !== undefined) this.argsPreview.textContent = previewValue(value);
    else if (live) this.argsPreview.textContent = this.args ? truncate(this.args, 160) : '…';
    if (this.preview) this.preview.draw(value, live);
  }

  endArgs() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.ended = true;
    // The whole text parsed; if it is not JSON, the last value it made sense as.
    const final = parseJson(this.args) ?? this.partial;
    this.partial = undefined;
    this.renderArgs();
    if (this.preview) this.preview.draw(final, false);
    if (this.state === 'streaming') this.setState('waiting');
  }

  /**
   * The drawing of a chart or map call's arguments: {el, draw(args, live), dispose()}. The
   * renderer loads on first use; until then (and between frames) only the newest value is kept.
   */
  createPreview() {
    const { noun, load } = this.live;
    const badge = h('span', { class: 'preview-badge', text: 'streaming…' });
    const count = h('span', { class: 'preview-count', text: `no ${noun}s yet` });
    const note = h('span', { class: 'preview-note', hidden: true });
    const host = h('div', { class: 'tool-preview-body' });
    const el = h(
      'div',
      { class: 'tool-preview', dataset: { live: 'streaming', points: '0' } },
      h('div', { class: 'tool-preview-head' }, badge, count, note),
      host,
    );
    let renderer = null; // {render, shape} once loaded
    let view = null;
    let pending = null; // [args, live] waiting for the renderer
    let disposed = false;
    const show = (args, live) => {
      const content = renderer.shape(args);
      if (content === null) return; // no config / data object yet
      try {
        if (view) view.update(content, { live });
        else view = renderer.render(host, content, { live, onWarning: (text) => fail(text) });
        note.hidden = true;
      } catch (e) {
        if (!view) host.replaceChildren(); // a first draw that threw: the next one starts clean
        fail(`cannot draw this yet: ${e?.message ?? e}`);
      }
      const points = view ? (view.pointCount ?? view.markerCount ?? 0) : 0;
      el.dataset.points = String(points);
      count.textContent = `${points} ${noun}${points === 1 ? '' : 's'}${live ? ' so far' : ''}`;
    };
    const fail = (text) => {
      note.hidden = false;
      note.textContent = text;
    };
    const draw = (args, live) => {
      if (!live) {
        el.dataset.live = 'ended';
        badge.hidden = true;
      }
      if (args === undefined) return;
      if (renderer) return show(args, live);
      // Before the renderer is there, remember the newest value only (the runtime's: read later).
      pending = [args, live];
    };
    load()
      .then((loaded) => {
        if (disposed) return;
        renderer = loaded;
        if (pending) show(...pending);
        pending = null;
      })
      .catch((e) => fail(`could not load the renderer: ${e?.message ?? e}`));
    return {
      el,
      draw,
      dispose() {
        disposed = true;
        view?.dispose();
        view = null;
      },
    };
  }

  dispose() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.ended = true;
    this.partial = undefined;
    this.preview?.dispose();
  }

  /** A tool_call_status change: the core's state of the call (docs/changes.md#call-states). */
  setStatus(status, error) {
    switch (status) {
      case 'streaming': // the card began so
        return;
      case 'ready': // the arguments are whole: the call waits for its run to end (or its server)
        if (this.state === 'streaming') this.setState('waiting');
        return;
      case 'error':
      case 'cancelled':
        return this.showError(error ?? 'the call failed', status);
      case 'denied':
        return this.setState('rejected');
      case 'done':
        if (FINAL_STATES.has(this.state)) return; // a result already refined it
    }
    this.setState(status);
  }

  showError(text, state = 'error') {
    this.setState(state);
    this.errorEl.hidden = false;
    this.errorEl.textContent = text;
  }

  /** The tool message that answers this call. */
  setResult(message) {
    const { state, error, text } = classifyResult(message);
    this.resultDetails.hidden = false;
    this.resultPre.textContent = prettyJson(text);
    // Denied and cancelled are what the core said; the result only gives the words.
    if (this.state === 'rejected' || this.state === 'cancelled') {
      if (error) this.showError(error, this.state);
    } else if (state === 'error') this.showError(error);
    else this.setState(state);
    this.clearSlot();
    // Drawn whole by its activity card now: the live drawing steps aside (kept, hidden, for a failure).
    if (this.preview && state === 'done') this.preview.el.hidden = true;
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
    if (!this.ended) this.endArgs(); // cut off mid-stream: what came is all there will be
    if (!FINAL_STATES.has(this.state) && this.state !== 'pending_approval') this.setState('incomplete');
  }
}
