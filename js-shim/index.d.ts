// Types for agui-client-tools. Written by hand (Emscripten 3.1.6 has no
// --emit-tsd) and checked by `tsc --noEmit` on tests/types/example.ts.
// The names follow AG-UI's own vocabulary: RunAgentInput, threadId, runId,
// toolCallId, and the event names.

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A JSON Schema (draft 7, plus $defs / prefixItems / dependentRequired). */
export type JsonSchema = { [key: string]: Json } | boolean;

/** The error codes the core reports (defined once, in wasm/common/error.hpp). */
export type ErrorCode =
  | 'invalid_tool'
  | 'duplicate_tool'
  | 'unknown_tool'
  | 'invalid_schema'
  | 'invalid_json'
  | 'invalid_argument'
  | 'invalid_state'
  | 'wrong_thread'
  | 'unknown_tool_call'
  | 'unknown_interrupt'
  | 'already_answered'
  | 'limit_exceeded'
  | 'protocol'
  | 'transport'
  | 'internal'
  | 'storage_failed';

export const ERROR_CODES: readonly ErrorCode[];

/**
 * Thrown by the API when a call is refused; nothing changed. Bad arguments (a
 * BigInt, a cycle, an id whose toString throws) are `invalid_argument`, with a
 * message naming the method and the argument.
 */
export class AguiError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string);
}

/** What a handler receives besides its arguments. */
export interface ToolContext {
  /** The thread that raised the call. */
  readonly threadId: string;
  readonly toolCallId: string;
  /** Aborted when the turn is aborted or the call times out; a late answer is ignored. */
  readonly signal: AbortSignal;
}

/**
 * A handler gets the validated arguments. Its return value is the result the
 * model reads: a string as is, `undefined` as "", anything else as JSON. A
 * throw or rejection (of anything: a value that cannot be described gets a
 * generic message, at once), a timeout, or a value JSON cannot encode becomes
 * an error result; it never fails the run. A lone surrogate in a string result
 * or an error message becomes U+FFFD (strings cross into the core as UTF-8).
 */
export type ToolHandler<Args = any> = (args: Args, ctx: ToolContext) => unknown | Promise<unknown>;

export interface ToolDefinition<Args = any> {
  /** ^[A-Za-z0-9_-]{1,64}$ */
  name: string;
  /** The model reads it to decide when to call the tool. */
  description: string;
  /** An object schema; omit for no parameters. Compiled once, at registration. */
  parameters?: JsonSchema | null;
  handler: ToolHandler<Args>;
  /** Default true. false ships the tool opt-in: off until the user enables it. */
  defaultEnabled?: boolean;
  /** Each call waits for approvals.approve() before the handler runs. */
  requiresApproval?: boolean;
  /** Mutates something: implies requiresApproval. */
  destructive?: boolean;
  /** The prompt of the approval card. */
  confirm?: string;
  /** A short label for tool-call cards (falls back to a prettified name). */
  summary?: string;
  /** Advisory grouping. */
  category?: string;
  /** Per-call timeout (default: RuntimeOptions.defaultTimeoutMs, 30 s). */
  timeoutMs?: number;
  /**
   * The result a rejected approval answers with, instead of an error result. An object gets a
   * non-empty reject reason (approvals.reject(id, reason)) as its `reason` key, replacing the one it
   * has: its own `reason` is the answer when the user gives none.
   */
  rejectedResult?: Json;
  /**
   * Safe to run again (reading the location, copying a text). With `persist`, a call starts only
   * once the store holds it as running; when the store fails, an idempotent tool's call runs
   * anyway (a reload may then run it a second time), any other gets the error result
   * "not run: the thread could not be saved (...)". Default false.
   */
  idempotent?: boolean;
}

/** A tool as a tools panel shows it. */
export interface ToolInfo {
  name: string;
  description: string;
  summary: string;
  category?: string;
  enabled: boolean;
  defaultEnabled: boolean;
  requiresApproval: boolean;
  destructive: boolean;
  idempotent: boolean;
  needsApproval: boolean;
  confirm?: string;
  timeoutMs?: number;
}

export interface CatalogEntry {
  name: string;
  summary: string;
  description: string;
}

/** AG-UI Tool, as advertised in RunAgentInput.tools. */
export interface Tool {
  name: string;
  description: string;
  parameters?: JsonSchema;
  metadata?: { [key: string]: Json };
}

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  encryptedValue?: string;
  metadata?: { [key: string]: Json };
}

/** AG-UI Message (every field the server sent is kept). */
export type Message =
  | { id: string; role: 'user'; content: string | Json[]; name?: string; [key: string]: unknown }
  | { id: string; role: 'system' | 'developer'; content: string; name?: string; [key: string]: unknown }
  | { id: string; role: 'assistant'; content?: string; toolCalls?: ToolCall[]; name?: string; [key: string]: unknown }
  | { id: string; role: 'tool'; toolCallId: string; content: string | Json[]; error?: string; [key: string]: unknown }
  | { id: string; role: 'activity'; activityType: string; content: { [key: string]: Json }; [key: string]: unknown }
  | { id: string; role: 'reasoning'; content: string; encryptedValue?: string; [key: string]: unknown };

export interface ResumeEntry {
  interruptId: string;
  status: 'resolved' | 'cancelled';
  payload?: Json;
}

export interface RunAgentInput {
  threadId: string;
  runId: string;
  state: Json;
  messages: Message[];
  tools: Tool[];
  context: { description: string; value: string }[];
  forwardedProps: Json;
  resume?: ResumeEntry[];
}

export interface Interrupt {
  id: string;
  reason: string;
  message?: string;
  toolCallId?: string;
  responseSchema?: { [key: string]: Json };
  expiresAt?: string;
  metadata?: { [key: string]: Json };
}

/** A call waiting for the user's decision. */
export interface PendingApproval {
  toolCallId: string;
  threadId: string;
  name: string;
  args: { [key: string]: Json };
  summary: string;
  confirm?: string;
  destructive: boolean;
}

/** Why a turn ended. */
export type TurnEndReason = 'done' | 'round_limit' | 'aborted' | 'run_error' | 'cancelled';

/** send()'s options. */
export interface SendOptions {
  /** This turn's forwardedProps, over the runtime's (see send()). */
  forwardedProps?: { [key: string]: Json };
}

export interface TurnResult {
  reason: TurnEndReason;
  message?: string;
  /** For run_error: the RUN_ERROR code, "transport" or "protocol". */
  code?: string;
  /** The turn's last run's RUN_FINISHED.result, when it finished with one (absent when null). */
  result?: Json;
}

/** What request() resolves to. */
export interface SideRequestResult {
  /** RUN_FINISHED.result (null when the run sent none). */
  result: Json;
}

export interface Status {
  phase: 'idle' | 'running' | 'awaiting';
  threadId: string;
  /** Follow-up runs sent in this turn. */
  round: number;
  runId?: string;
  pendingApprovals: PendingApproval[];
  pendingInterrupts: Interrupt[];
  /** toolCallIds whose handlers are running. */
  running: string[];
}

/**
 * A tool call's state (defined once, in wasm/protocol/kinds.hpp; docs/changes.md has the table of
 * what moves each). A client call: streaming → ready → (pending_approval) → running → done | error |
 * cancelled | denied. A server call: streaming → ready → done when its result arrives.
 */
export type ToolCallState =
  'streaming' | 'ready' | 'pending_approval' | 'running' | 'done' | 'error' | 'cancelled' | 'denied';

/** The codes of a Problem (defined once, in wasm/protocol/kinds.hpp; docs/ordering.md says what each means). */
export type ProblemCode =
  | 'invalid_event'
  | 'invalid_json'
  | 'invalid_utf8'
  | 'truncated_event'
  | 'unknown_event'
  | 'limit_exceeded'
  | 'missing_field'
  | 'before_run_started'
  | 'after_run_end'
  | 'second_run_started'
  | 'run_id_mismatch'
  | 'wrong_thread'
  | 'invalid_outcome'
  | 'unknown_outcome'
  | 'unknown_message'
  | 'duplicate_message'
  | 'invalid_message'
  | 'activity_message'
  | 'not_activity'
  | 'already_started'
  | 'already_ended'
  | 'unclosed_message'
  | 'unknown_tool_call'
  | 'duplicate_tool_call'
  | 'parent_not_assistant'
  | 'not_open'
  | 'after_end'
  | 'unclosed_tool_call'
  | 'duplicate_result'
  | 'patch_failed'
  | 'unknown_pending_call'
  | 'invalid_response_schema'
  | 'call_state_final';

/** A rule the stream broke (see docs/ordering.md). The round cap is not one: it arrives as turn_ended. */
export interface Problem {
  kind: 'problem';
  /** The event's position in its run, from 0. */
  index: number;
  eventType: string;
  code: ProblemCode;
  message: string;
  /** true: the run was stopped. */
  fatal: boolean;
}

/** What changed, delivered to subscribe() listeners in order. */
export type Change =
  | { kind: 'message_added'; message: Message }
  | { kind: 'text_appended'; messageId: string; delta: string }
  | { kind: 'message_ended'; messageId: string }
  | { kind: 'message_updated'; message: Message }
  | { kind: 'metadata_merged'; messageId?: string; toolCallId?: string; metadata: { [key: string]: Json } }
  | { kind: 'messages_replaced'; messages: Message[] }
  | { kind: 'tool_call_added'; messageId: string; toolCall: ToolCall }
  | { kind: 'tool_call_args'; toolCallId: string; delta: string }
  /**
   * The arguments parsed so far (open strings, arrays and objects closed; a half-written number or
   * literal left out), at most once per call per step; `invalid` once, when they stop being JSON.
   * `args` is one live value per call, grown in place from step to step (a step costs what it
   * added): read it and redraw from it; copy it (structuredClone) to keep how it was.
   */
  | { kind: 'tool_call_partial'; toolCallId: string; args: Json; invalid?: string }
  | { kind: 'tool_call_ended'; toolCallId: string }
  | {
      kind: 'tool_call_status';
      toolCallId: string;
      name: string;
      status: ToolCallState;
      error?: string;
    }
  | { kind: 'tool_result'; message: Extract<Message, { role: 'tool' }> }
  | { kind: 'approval_requested'; approval: PendingApproval }
  | { kind: 'interrupts'; interrupts: Interrupt[] }
  | { kind: 'interrupt_answered'; interruptId: string; status: 'resolved' | 'cancelled' }
  | { kind: 'state_replaced'; state: Json }
  | { kind: 'state_patched'; delta: Json[] }
  | { kind: 'run_started'; runId: string }
  | { kind: 'run_finished'; outcome: { type: 'success' | 'interrupt' | 'cancelled'; [key: string]: Json } }
  | { kind: 'run_error'; message: string; code?: string }
  | { kind: 'event'; event: { type: string; [key: string]: Json } }
  | { kind: 'turn_started' }
  | { kind: 'round_started'; round: number; runId: string }
  | {
      kind: 'turn_ended';
      reason: TurnEndReason;
      message?: string;
      /** reason 'round_limit': the calls the cap closed with an error result, in call order. */
      closedCalls?: string[];
    }
  | { kind: 'request'; input: RunAgentInput }
  | { kind: 'tools_changed' }
  /** options.persist failed to load or save the thread (once per failure streak); the runtime goes on in memory. */
  | { kind: 'storage_failed'; threadId: string; message: string }
  /**
   * This runtime's part among the tabs on its thread (`reason`: why it is alone though its store is
   * shared: no Web Locks or BroadcastChannel here, or the browser refused them, e.g. "... Web Locks
   * refused: SecurityError: ..." in a sandboxed iframe).
   */
  | { kind: 'role_changed'; threadId: string; role: TabRole; reason?: string }
  | Problem;

/** The format of thread.export(): plain JSON, safe to store. */
export interface ExportedThread {
  format: 'agui-client-tools/thread';
  version: 1;
  threadId: string;
  messages: Message[];
  state: Json;
  [key: string]: Json | Message[];
}

export interface Limits {
  /** Bytes one SSE event may hold (default 8 MiB; 0 = no limit). Over it, the run stops. */
  maxEventBytes?: number;
  /** Bytes of one call's arguments (default 1 MiB). Over it, an error result. */
  maxArgumentBytes?: number;
  /** Bytes of one handler result (default 1 MiB). Over it, an error result. */
  maxResultBytes?: number;
  /** Bytes of one streamed text or reasoning message (default 16 MiB). Over it, the run stops. */
  maxMessageBytes?: number;
  /** Nesting of arrays and objects in events, state, arguments (default 128). */
  maxJsonDepth?: number;
  /** Tool calls run per round (default 64); later calls get an error result. */
  maxCallsPerRound?: number;
}

export interface RuntimeOptions {
  /** The AG-UI endpoint (POST, answered with text/event-stream). */
  url: string | URL;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  /**
   * Default: a random UUID. A non-empty string of well-formed text (a lone surrogate is refused:
   * stored as given, it would come back under its U+FFFD form and not be found); every method that
   * takes a thread id checks it so (invalid_argument naming the method and argument).
   */
  threadId?: string;
  /** MAX_FRONTEND_TOOL_ROUNDS: follow-up runs per turn (default 5). */
  maxRounds?: number;
  /** The Nth identical call in a row (same tool, same arguments) is refused (default 3; 0 = off). */
  repeatLimit?: number;
  /** Per-call handler timeout (default 30000). */
  defaultTimeoutMs?: number;
  /** Approvals not decided within this time are rejected (default: no timeout). */
  approvalTimeoutMs?: number;
  /**
   * A run whose stream sends nothing (no event, no comment) for this long ends
   * with a run_error naming the limit (default 120000; 0 = never).
   */
  idleTimeoutMs?: number;
  context?: { description: string; value: string }[];
  forwardedProps?: Json;
  /** Also stamp x-destructive / x-category / x-confirm / x-summary into schemas (default false). */
  stampSchemaExtensions?: boolean;
  /**
   * Accept schema patterns only a backtracking RegExp runs (lookaround,
   * back-references, or a counted repetition too large for the linear-time
   * matcher). Default false: such a pattern makes register() throw
   * invalid_schema naming it and the construct, since a model's argument could then stall the tab.
   */
  allowBacktrackingPatterns?: boolean;
  limits?: Limits;
  /** Tools to register at once. */
  tools?: ToolDefinition[];
  /**
   * A thread to restore (from thread.export()). With `persist`, the store is the truth for a stored
   * thread: an export that differs from what the store holds for its threadId is refused
   * (invalid_argument; open the stored one with `threadId` and no `thread`), the same one opened.
   */
  thread?: ExportedThread;
  /**
   * A store to keep the thread in (memoryStore(), indexedDbStore(), or your own: docs/persistence.md).
   * With `threadId`, createRuntime() first loads what the store holds for it. The thread is written
   * at each point that matters (a message sent, a run's end, an approval, a result) and at most once
   * a second while a run streams; before a handler starts, the thread that says it runs is durable,
   * so a reload never runs a call twice. A store that fails, or holds a record that cannot be read
   * or imported (or a load() not settled within saveTimeoutMs): a `storage_failed` change naming the
   * store, thread and record, and the runtime goes on in memory, never writing over that record. A store shared by tabs (indexedDbStore()) puts one tab in charge
   * of each thread and makes the others follow it (`role`, docs/persistence.md#tabs).
   */
  persist?: ThreadStore;
  /** A save() or load() of `persist` not settled within this time counts as failed (default 10000; 0 = never). */
  saveTimeoutMs?: number;
  /** The .wasm bytes or URL, for bundlers that do not ship it by themselves. */
  wasm?: ArrayBuffer | Uint8Array | string | URL;
}

export interface Runtime {
  readonly threadId: string;
  readonly messages: Message[];
  readonly state: Json;
  readonly status: Status;
  /** The last RunAgentInput sent (parsed from the request body on first read, then the same object). */
  readonly lastInput: RunAgentInput | null;
  /** After restoring a thread with pending approvals or interrupts: the turn it continues. */
  readonly resumed?: Promise<TurnResult>;
  /**
   * With a store shared by tabs: 'leader' when this tab is in charge of the thread (it runs the
   * turns and the handlers), 'follower' when another tab is (this one shows its changes, and its
   * send(), approvals, interrupts, abort() and thread.delete() are carried out there: they then
   * return a promise of the answer). 'alone' otherwise. Changes are announced as `role_changed`.
   */
  readonly role: TabRole;

  readonly tools: {
    register<Args = any>(definition: ToolDefinition<Args>): void;
    unregister(name: string): void;
    setEnabled(name: string, enabled: boolean): void;
    list(): ToolInfo[];
    catalog(): CatalogEntry[];
    /** What the next run will advertise (the enabled tools, in registration order). */
    advertise(): Tool[];
  };
  readonly approvals: {
    pending(): PendingApproval[];
    /** (In a follower: a promise, settled once the tab in charge has done it or refused.) */
    approve(toolCallId: string): void | Promise<void>;
    reject(toolCallId: string, reason?: string): void | Promise<void>;
  };
  readonly interrupts: {
    /** An interrupt that arrived past its expiresAt is never pending: it was cancelled. */
    pending(): Interrupt[];
    /**
     * The payload is checked against the interrupt's responseSchema. Past the
     * interrupt's expiresAt it is cancelled instead (an interrupt_answered
     * change with status 'cancelled'; the next run sends status "cancelled").
     */
    resolve(interruptId: string, payload?: Json): void | Promise<void>;
    cancel(interruptId: string, reason?: string): void | Promise<void>;
  };
  readonly thread: {
    /**
     * A snapshot of the thread, plain JSON. It cannot know what happened after
     * it was taken: importing an export taken before an approval, after the
     * approved call ran, runs that call again.
     */
    export(): ExportedThread;
    /**
     * With `persist`: disposes the runtime and deletes its thread from the store, after the write in
     * flight (so no late write brings it back). For a threads sidebar, with `store.list()`. Every
     * refusal is a rejection (invalid_state after dispose()).
     */
    delete(): Promise<void>;
  };

  /**
   * Sends a user message (or messages) and drives the tool loop until the turn ends.
   * In a follower, the tab in charge does it; the last message goes with an id (the caller's, or
   * one the follower makes). If charge moves before the answer comes, that id settles it: the
   * message reached the thread, so it resolves with that turn's end (`reason: 'aborted'`, "...
   * reached the thread, and its turn was cut short", when the takeover ended the turn); or it did
   * not, and it rejects `invalid_state` "... it was not sent (send it again)".
   *
   * `options.forwardedProps` (an object): this turn's own, laid key by key over the runtime's
   * `forwardedProps` (a shallow merge, as `{...runtime, ...turn}`; the runtime's keys keep their
   * place) on every run of the turn: its follow-up rounds and interrupt resumes too, since a user
   * action belongs to the turn it starts (and a reload mid-turn keeps them). The next `send()`
   * without them sends the runtime's alone. With them, `send([], { forwardedProps })` starts a turn
   * with no new message: an A2UI user action (`{ a2uiAction }`), `@ag-ui/langgraph`'s resume channel
   * (`{ command: { resume } }`); it supersedes a running turn as any send does. `send([])` without
   * them is refused.
   */
  send(textOrMessages: string | Message[] | Omit<Message, 'id'>[], options?: SendOptions): Promise<TurnResult>;
  /**
   * A side request: one run beside the turn, for a server that answers in RUN_FINISHED.result
   * (MCP Apps' `forwardedProps.__proxiedMCPRequest`, for an app's `resources/read` and
   * `tools/call`). It touches neither the thread nor the loop nor the round count: it sends no
   * messages (a turn may be mid-round), the tools, context and state, and `forwardedProps` merged
   * over the runtime's as send() does. Of its events only RUN_FINISHED (resolves `{result}`) and
   * RUN_ERROR (rejects `protocol`) count; every other is skipped, never folded into the thread.
   * A failed request rejects `transport`. It runs beside a turn (never supersedes it, abort()
   * leaves it); dispose() rejects it `invalid_state`. In a follower, the tab in charge sends it.
   */
  request(options?: SendOptions): Promise<SideRequestResult>;
  /**
   * Stops this client's turn: the request is cancelled and its body no longer
   * read (even when a custom fetch ignores the signal), running handlers' signals
   * abort, open calls are closed as cancelled. The server is not stopped: it may
   * still be running the thread, and may answer the next run with an empty stream.
   */
  abort(reason?: string): void | Promise<void>;
  subscribe(listener: (change: Change) => void): () => void;
  /**
   * Another thread sharing these tools and toggles. With a persist store it takes no `threadId` and
   * no `thread` (being synchronous, it cannot load what the store holds): openStoredThread(),
   * createRuntime({ persist, thread }).
   */
  openThread(options?: { threadId?: string; thread?: ExportedThread } & Partial<RuntimeOptions>): Runtime;
  /**
   * A thread kept in this runtime's persist store, by id, sharing these tools and toggles: loaded
   * from the store, or (a store shared by tabs) followed in the tab already in charge of it.
   */
  openStoredThread(threadId: string): Promise<Runtime>;
  /** Frees the thread's memory in the wasm heap (a runtime never disposed is freed once garbage-collected). */
  dispose(): void;
  [Symbol.dispose](): void;
}

export function createRuntime(options: RuntimeOptions): Promise<Runtime>;
/** Loads the WebAssembly core ahead of createRuntime() (optional). */
export function init(options?: { wasm?: ArrayBuffer | Uint8Array | string | URL }): Promise<unknown>;

export const MAX_FRONTEND_TOOL_ROUNDS: 5;

export const getCurrentLocation: ToolDefinition<Record<string, never>>;
export const copyToClipboard: ToolDefinition<{ text: string }>;
export const readClipboard: ToolDefinition<Record<string, never>>;
export const requestUserApproval: ToolDefinition<{ action: string; details?: string }>;
export const browserTools: {
  readonly getCurrentLocation: ToolDefinition<Record<string, never>>;
  readonly copyToClipboard: ToolDefinition<{ text: string }>;
  readonly readClipboard: ToolDefinition<Record<string, never>>;
  readonly requestUserApproval: ToolDefinition<{ action: string; details?: string }>;
  readonly all: readonly ToolDefinition[];
};

/** A message in the list a thread view keeps: enough to lay the list out and pick a component. */
export interface MessageEntry {
  readonly id: string;
  readonly role: Message['role'];
}

/** A tool call as a card draws it; a new object whenever anything in it changes. */
export interface ToolCallView {
  readonly id: string;
  readonly name: string;
  /** The assistant message holding the call. */
  readonly messageId: string;
  /** As the core announces it (tool_call_status); undefined until the first announcement. */
  readonly state: ToolCallState | undefined;
  /**
   * While streaming: the value the arguments so far imply (one live value, grown in place: copy it
   * to keep it). Once they end: the final parsed arguments. Undefined before the first piece.
   */
  readonly args: Json | undefined;
  /** The arguments' text so far. */
  readonly argsText: string;
  /** The tool message's content, once the result arrives. */
  readonly result?: string | Json[];
  /** The error the call ended with. */
  readonly error?: string;
  /** Why the arguments are not JSON (the partial value stays as it was). */
  readonly invalid?: string;
}

/** What a ThreadView listener can follow: each names one snapshot. */
export type ThreadViewKey =
  'messages' | 'status' | 'approvals' | 'interrupts' | `message:${string}` | `toolCall:${string}`;

/**
 * Immutable snapshots of one runtime's thread, each replaced (a new object) only when it changes,
 * with listeners per snapshot: a text delta notifies only the listeners of that message. Built for
 * useSyncExternalStore and its like; agui-client-tools/react is built on it.
 */
export interface ThreadView {
  /** `{id, role}` in thread order; a new array only when a message is added, removed or replaced. */
  messages(): readonly MessageEntry[];
  message(id: string): Message | undefined;
  toolCall(id: string): ToolCallView | undefined;
  status(): Status;
  approvals(): PendingApproval[];
  interrupts(): Interrupt[];
  /** Calls `listener` when the snapshot under `key` is replaced; returns the unsubscribe function. */
  subscribe(key: ThreadViewKey, listener: () => void): () => void;
  /** Stops following the runtime. */
  dispose(): void;
}

/** A view of the runtime's thread from now on (it reads the messages and status once, then follows the changes). */
export function createThreadView(runtime: Runtime): ThreadView;

/** One saved thread, as ThreadStore.list() gives it. */
export interface StoredThreadEntry {
  threadId: string;
  /** When it was last saved (ms since the epoch). */
  updatedAt: number;
  /** How many messages its snapshot holds. */
  messages: number;
}

/** A runtime's part among the tabs on its thread (Runtime.role). */
export type TabRole = 'leader' | 'follower' | 'alone';

/**
 * What changed in a thread since the runtime's last write to its store (docs/persistence.md, "The
 * record format"): the messages from `from` on, those edited before, and the export's other
 * fields (`state` only when it changed).
 */
export interface ThreadChange {
  format: 'agui-client-tools/thread-change';
  version: 1;
  messages: { from: number; count: number; edited: Array<[number, Message]>; tail: Message[] };
  [field: string]: unknown;
}

/** `snapshot` with `change` folded in (a new object); throws an Error saying why a change does not fit. */
export function applyChange(snapshot: ExportedThread, change: ThreadChange): ExportedThread;

/**
 * Where a runtime keeps its threads across reloads: memoryStore(), indexedDbStore(), or any
 * object with these four methods, and optionally append() (docs/persistence.md). A fault is an
 * AguiError whose message names the store, the thread and its record, and what was wrong.
 */
export interface ThreadStore {
  /**
   * Set when every tab of the origin sees the same storage (indexedDbStore(): 'indexeddb:<name>'):
   * the runtimes on one thread then agree on one tab in charge of it. Absent: this page only.
   */
  readonly scope?: string;
  /** How messages name the store ('memoryStore()', 'indexedDbStore("name")'); absent: 'options.persist'. */
  readonly label?: string;
  /** The saved snapshot (thread.export()), or null when none is saved. Rejects on a newer or corrupted record. */
  load(threadId: string): Promise<ExportedThread | null>;
  /** Resolves once the write is durable; never overwrites a record written by a newer version. */
  save(threadId: string, snapshot: ExportedThread): Promise<void>;
  /** Every saved thread, newest first. */
  list(): Promise<StoredThreadEntry[]>;
  /** Removes the thread and its changes (no error when it is absent); never a record written by a newer version. */
  delete(threadId: string): Promise<void>;
  /**
   * Optional: keeps a change after the last save(), durable when it resolves; load() then folds
   * it in (applyChange). Without it, the runtime saves the whole export each time.
   */
  append?(threadId: string, change: ThreadChange): Promise<void>;
}

/** A store in the page's (or node's) memory, keeping deep copies; for node and tests. */
export function memoryStore(): ThreadStore;

/**
 * A store in IndexedDB: database `name` (version 2), object stores "threads" (keyed by threadId)
 * and "changes" (keyed [threadId, seq]).
 * Throws at once where IndexedDB is missing (node, some private windows).
 */
export function indexedDbStore(options?: { name?: string }): ThreadStore;
