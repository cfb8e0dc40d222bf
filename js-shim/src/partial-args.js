// Arguments as they stream. The core hands out how each call's value grew since
// the last step (a few operations; see wasm/protocol/partial_json.hpp), and
// this replays them onto one live value per call: a step costs what it added,
// however large the value already is. The page gets that live value in each
// tool_call_partial change: read it, redraw from it, copy it to keep it.

export class PartialArgs {
  #calls = new Map(); // toolCallId -> {root, open: containers innermost last, string: [container, key]}

  /**
   * The core's {toolCallId, ops, invalid?} as the page reads it: {toolCallId, args, invalid?}.
   * `known`: only for a call begun here (a tab that starts following mid-call has not seen the
   * ops before: it gets null, and the call's whole arguments when it ends).
   */
  resolve({ toolCallId, ops, invalid }, known = false) {
    let call = this.#calls.get(toolCallId);
    if (!call && known) return null;
    if (!call) call = this.begin(toolCallId);
    for (const op of ops) replay(call, op);
    const change = { kind: 'tool_call_partial', toolCallId, args: call.root };
    if (invalid !== undefined) change.invalid = invalid;
    return change;
  }

  /** A call whose ops will come from its first one. */
  begin(toolCallId) {
    const call = { root: null, open: [], string: null };
    this.#calls.set(toolCallId, call);
    return call;
  }

  /** A call's arguments ended (its final value is in the thread), or a run began. */
  forget(toolCallId) {
    if (toolCallId === undefined) this.#calls.clear();
    else this.#calls.delete(toolCallId);
  }
}

function replay(call, op) {
  switch (op[0]) {
    case '}':
    case ']':
      call.open.pop();
      return;
    case '+': {
      const [container, key] = call.string;
      if (container === null) call.root += op[1];
      else container[key] += op[1];
      return;
    }
  }
  const top = call.open.at(-1);
  const keyed = top !== undefined && !Array.isArray(top);
  const key = keyed ? op[1] : undefined;
  const arg = op[keyed ? 2 : 1];
  const value = op[0] === '{' ? {} : op[0] === '[' ? [] : arg;
  let slot;
  if (top === undefined) {
    call.root = value;
    slot = [null, null];
  } else if (keyed) {
    // As JSON.parse makes it: "__proto__" is an own member, not the prototype.
    Object.defineProperty(top, key, { value, writable: true, enumerable: true, configurable: true });
    slot = [top, key];
  } else {
    slot = [top, top.push(value) - 1];
  }
  if (op[0] === '{' || op[0] === '[') call.open.push(value);
  else if (op[0] === 's') call.string = slot;
}
