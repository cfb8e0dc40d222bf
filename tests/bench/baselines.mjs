// The JavaScript peers the runtime is measured against: an SSE line splitter, the smallest correct JS reducer of the
// bench's event kinds (JSON.parse per event, Map-indexed appends, a tiny JSON Patch), and JSON.parse alone.

/**
 * Splits an event stream's bytes into events' data (text/event-stream: LF or CRLF line ends, `data` lines joined with
 * "\n", other fields and comments ignored, a blank line dispatches). Calls onData(text) per event.
 */
export function sseSplitter(onData) {
  const decoder = new TextDecoder();
  let carry = '';
  let data = null;
  return {
    push(bytes) {
      const text = carry + decoder.decode(bytes, { stream: true });
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        let end = nl;
        if (end > start && text.charCodeAt(end - 1) === 13) end -= 1;
        if (end === start) {
          if (data !== null) onData(data);
          data = null;
        } else if (text.startsWith('data:', start)) {
          let v = start + 5;
          if (text.charCodeAt(v) === 32) v += 1;
          const value = text.slice(v, end);
          data = data === null ? value : `${data}\n${value}`;
        }
        start = nl + 1;
      }
      carry = text.slice(start);
    },
    end() {
      carry += decoder.decode();
      data = null; // an unterminated event is discarded
    },
  };
}

// ---------------------------------------------------------------- a tiny JSON Patch (RFC 6902)

const unescape = (t) => t.replace(/~1/g, '/').replace(/~0/g, '~');
const tokens = (path) => {
  if (path === '') return [];
  if (path[0] !== '/') throw new Error(`bad pointer ${path}`);
  return path.slice(1).split('/').map(unescape);
};

function get(doc, toks) {
  let v = doc;
  for (const t of toks) {
    if (v === null || typeof v !== 'object' || !(t in v)) throw new Error(`no ${t}`);
    v = v[Array.isArray(v) ? Number(t) : t];
  }
  return v;
}

// Copies the containers along `toks` (copy on write, so a failing patch leaves the original) and lets `fn` change
// the last one; returns the new root.
function update(doc, toks, fn) {
  if (toks.length === 0) return fn(null, null);
  const copy = Array.isArray(doc) ? doc.slice() : { ...doc };
  if (toks.length === 1) {
    fn(copy, toks[0]);
    return copy;
  }
  const [head, ...rest] = toks;
  const key = Array.isArray(copy) ? Number(head) : head;
  const child = copy[key];
  if (child === null || typeof child !== 'object') throw new Error(`no container at ${head}`);
  copy[key] = update(child, rest, fn);
  return copy;
}

function index(arr, t, forAdd) {
  if (t === '-' && forAdd) return arr.length;
  if (!/^(0|[1-9][0-9]*)$/.test(t)) throw new Error(`bad index ${t}`);
  const i = Number(t);
  if (i > arr.length || (!forAdd && i === arr.length)) throw new Error(`index ${t} out of range`);
  return i;
}

function add(doc, toks, value) {
  if (toks.length === 0) return value;
  return update(doc, toks, (parent, t) => {
    if (Array.isArray(parent)) parent.splice(index(parent, t, true), 0, value);
    else parent[t] = value;
  });
}

function remove(doc, toks) {
  if (toks.length === 0) throw new Error('cannot remove the root');
  return update(doc, toks, (parent, t) => {
    if (Array.isArray(parent)) parent.splice(index(parent, t, false), 1);
    else if (t in parent) delete parent[t];
    else throw new Error(`no ${t}`);
  });
}

const equal = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** Applies `ops` to `doc` without changing it; returns the new document or throws. */
export function applyPatch(doc, ops) {
  let root = doc;
  for (const op of ops) {
    const path = tokens(op.path);
    switch (op.op) {
      case 'add':
        root = add(root, path, op.value);
        break;
      case 'remove':
        root = remove(root, path);
        break;
      case 'replace':
        get(root, path); // must exist
        root =
          path.length === 0
            ? op.value
            : update(root, path, (parent, t) => {
                parent[Array.isArray(parent) ? Number(t) : t] = op.value;
              });
        break;
      case 'move': {
        const v = get(root, tokens(op.from));
        root = add(remove(root, tokens(op.from)), path, v);
        break;
      }
      case 'copy':
        root = add(root, path, structuredClone(get(root, tokens(op.from))));
        break;
      case 'test':
        if (!equal(get(root, path), op.value)) throw new Error(`test failed at ${op.path}`);
        break;
      default:
        throw new Error(`unknown op ${op.op}`);
    }
  }
  return root;
}

// ---------------------------------------------------------------- the reducer

/**
 * The bench's event kinds folded into messages and state, with the changes a UI needs delivered to `listener`
 * (the same kinds the runtime reports). O(1) per event: Map indices, in-place appends.
 */
export class MiniThread {
  messages = [];
  state = {};
  #byId = new Map();
  #calls = new Map();
  #results = new Map();
  #listener;

  constructor(listener = () => {}) {
    this.#listener = listener;
  }

  applyData(text) {
    let event;
    try {
      event = JSON.parse(text);
    } catch {
      this.#listener({ kind: 'problem', code: 'invalid_json' });
      return;
    }
    this.apply(event);
  }

  apply(e) {
    const emit = this.#listener;
    switch (e.type) {
      case 'RUN_STARTED':
        emit({ kind: 'run_started', runId: e.runId });
        break;
      case 'RUN_FINISHED':
        emit({ kind: 'run_finished', outcome: e.outcome ?? { type: 'success' } });
        break;
      case 'TEXT_MESSAGE_START': {
        if (this.#byId.has(e.messageId)) break;
        const message = { id: e.messageId, role: e.role ?? 'assistant', content: '' };
        this.messages.push(message);
        this.#byId.set(message.id, message);
        emit({ kind: 'message_added', message });
        break;
      }
      case 'TEXT_MESSAGE_CONTENT': {
        const m = this.#byId.get(e.messageId);
        if (!m) break;
        m.content += e.delta;
        emit({ kind: 'text_appended', messageId: e.messageId, delta: e.delta });
        break;
      }
      case 'TEXT_MESSAGE_END':
        emit({ kind: 'message_ended', messageId: e.messageId });
        break;
      case 'TOOL_CALL_START': {
        if (this.#calls.has(e.toolCallId)) break;
        let parent = e.parentMessageId ? this.#byId.get(e.parentMessageId) : undefined;
        if (!parent || parent.role !== 'assistant') {
          parent = {
            id: e.parentMessageId && !parent ? e.parentMessageId : e.toolCallId,
            role: 'assistant',
            toolCalls: [],
          };
          this.messages.push(parent);
          this.#byId.set(parent.id, parent);
          emit({ kind: 'message_added', message: parent });
        }
        const call = { id: e.toolCallId, type: 'function', function: { name: e.toolCallName, arguments: '' } };
        (parent.toolCalls ??= []).push(call);
        this.#calls.set(call.id, { call, message: parent });
        emit({ kind: 'tool_call_added', messageId: parent.id, toolCall: call });
        break;
      }
      case 'TOOL_CALL_ARGS': {
        const ref = this.#calls.get(e.toolCallId);
        if (!ref) break;
        ref.call.function.arguments += e.delta;
        emit({ kind: 'tool_call_args', toolCallId: e.toolCallId, delta: e.delta });
        break;
      }
      case 'TOOL_CALL_END':
        emit({ kind: 'tool_call_ended', toolCallId: e.toolCallId });
        break;
      case 'TOOL_CALL_RESULT': {
        if (this.#results.has(e.toolCallId) || this.#byId.has(e.messageId)) break;
        const message = { id: e.messageId, role: e.role ?? 'tool', toolCallId: e.toolCallId, content: e.content };
        // Right after the assistant message holding the call (after its tool messages): scan back from the end.
        const owner = this.#calls.get(e.toolCallId)?.message;
        let pos = this.messages.length;
        if (owner) {
          for (let i = this.messages.length - 1; i >= 0; i -= 1) {
            if (this.messages[i] !== owner) continue;
            pos = i + 1;
            while (pos < this.messages.length && this.messages[pos].role === 'tool') pos += 1;
            break;
          }
        }
        if (pos === this.messages.length) this.messages.push(message);
        else this.messages.splice(pos, 0, message);
        this.#byId.set(message.id, message);
        this.#results.set(e.toolCallId, message);
        emit({ kind: 'tool_result', message });
        break;
      }
      case 'STATE_SNAPSHOT':
        this.state = e.snapshot;
        emit({ kind: 'state_replaced', state: e.snapshot });
        break;
      case 'STATE_DELTA':
        try {
          this.state = applyPatch(this.state, e.delta);
          emit({ kind: 'state_patched', delta: e.delta });
        } catch (err) {
          emit({ kind: 'problem', code: 'patch_failed', message: err.message });
        }
        break;
      default:
        emit({ kind: 'event', event: e });
    }
  }
}

/** Reads a Response body to its end, handing each chunk to `push`. */
export async function readBody(response, push) {
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    push(value);
  }
}
