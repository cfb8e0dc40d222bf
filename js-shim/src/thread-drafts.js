// The two parts of the thread view (thread-view.js) that grow with the thread: a
// message (its calls) and the message list. Each is a draft the view changes in
// place, in O(1) amortised per change, and hands out as an immutable snapshot
// built when read and kept until the next change. Rebuilding them per change (a
// copy of the message's calls per call added or ended, of the list per result)
// made a turn of N calls on one message O(N²).

/** One message: the runtime's object until something changes it, then the view's own copy. */
export class MessageDraft {
  #snapshot; // what read() gives; null when the draft changed since
  #fields = null; // the view's own copy of the message's fields, made at its first change
  #calls = null; // the view's own copy of toolCalls (its copy of each call), likewise
  #callsSnapshot = null; // the toolCalls array last handed out; null when a call changed since
  #index = null; // toolCallId -> position in #calls, built when first needed

  constructor(message) {
    this.#snapshot = message;
  }

  /** The message as it is now: the same object until it changes. */
  read() {
    if (this.#snapshot) return this.#snapshot;
    const snapshot = { ...this.#fields };
    if (this.#calls) snapshot.toolCalls = this.#callsSnapshot ??= this.#calls.slice();
    return (this.#snapshot = snapshot);
  }

  field(key) {
    return (this.#fields ?? this.#snapshot)[key];
  }

  set(key, value) {
    this.#own()[key] = value;
    this.#snapshot = null;
  }

  addCall(call) {
    const fields = this.#own();
    // A message without calls gets the key where a spread would have put it: last.
    if (!this.#calls) {
      this.#calls = [];
      fields.toolCalls = null;
    }
    this.#calls.push(call);
    this.#index?.set(call.id, this.#calls.length - 1);
    this.#changedCalls();
  }

  /** Replaces the message's copy of call `id` by `{...call, ...patch(call)}`; false if it has none. */
  patchCall(id, patch) {
    this.#own();
    const at = this.#positions().get(id);
    if (at === undefined) return false;
    const call = this.#calls[at];
    this.#calls[at] = { ...call, ...patch(call) };
    this.#changedCalls();
    return true;
  }

  #own() {
    if (!this.#fields) {
      this.#fields = { ...this.#snapshot };
      if (Array.isArray(this.#snapshot.toolCalls)) {
        this.#calls = this.#snapshot.toolCalls.slice();
        this.#callsSnapshot = this.#snapshot.toolCalls; // what was handed out, until a call changes
      }
    }
    return this.#fields;
  }

  #positions() {
    if (!this.#index) this.#index = new Map((this.#calls ?? []).map((c, i) => [c?.id, i]));
    return this.#index;
  }

  #changedCalls() {
    this.#callsSnapshot = null;
    this.#snapshot = null;
  }
}

/**
 * The message list as `{id, role}` entries, kept as runs: a message, then the tool messages right
 * after it. A result goes at the end of its call's message's run, which is where the core puts it
 * (Thread::insert_results: after that message and the tool messages already after it), so placing
 * one is a push, not a search and a copy of the list.
 */
export class MessageOrder {
  #runs = []; // arrays of entries; each holds no tool message after its first but tool messages
  #runOf = new Map(); // message id -> its run
  #list = []; // the list last handed out; null when it changed since

  list() {
    return (this.#list ??= this.#runs.flat());
  }

  /** At the end of the list: a tool message joins the last run, any other starts one. */
  append(entry) {
    const last = this.#runs.at(-1);
    if (entry.role === 'tool' && last) this.#join(last, entry);
    else this.#start(this.#runs.length, entry);
  }

  /** A tool message answering a call of message `ownerId`, where the core puts it; at the end if that is unknown. */
  insertResult(ownerId, entry) {
    const run = this.#runOf.get(ownerId);
    if (!run) this.append(entry);
    else if (entry.role === 'tool') this.#join(run, entry);
    else this.#start(this.#runs.indexOf(run) + 1, entry); // not a tool message: it ends the run (rare)
  }

  /** Every entry anew (a whole thread, or a message that changed role). */
  reset(entries) {
    this.#runs = [];
    this.#runOf.clear();
    for (const entry of entries) this.append(entry);
  }

  #join(run, entry) {
    run.push(entry);
    this.#runOf.set(entry.id, run);
    this.#list = null;
  }

  #start(at, entry) {
    const run = [entry];
    if (at === this.#runs.length) this.#runs.push(run);
    else this.#runs.splice(at, 0, run);
    this.#runOf.set(entry.id, run);
    this.#list = null;
  }
}
