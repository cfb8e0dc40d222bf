// Types for agui-client-tools/react: React 18+ hooks over a runtime, checked by
// `tsc --noEmit` on tests/types/react-example.tsx. The hooks read the runtime of
// the nearest <AgentProvider>; each returns an immutable snapshot that is
// replaced only when it changes (see ThreadView in index.d.ts).
import type { ReactElement, ReactNode } from 'react';
import type {
  Interrupt,
  Json,
  Message,
  MessageEntry,
  PendingApproval,
  Runtime,
  RuntimeOptions,
  Status,
  TabRole,
  ToolCallView,
  ToolDefinition,
  TurnResult,
} from './index.js';

export type { MessageEntry, ToolCallView } from './index.js';

/**
 * Creates a runtime with createRuntime(options) on mount and disposes it on unmount; null until it
 * is ready. `options` are read once, at mount (remount with a `key` to change them). Safe under
 * StrictMode: its mount, unmount, mount makes one runtime (with `persist`, the one in charge of the
 * thread, and persisting). `null`: no runtime. A refused option is thrown during render, to the
 * nearest error boundary.
 */
export function useAgent(options: RuntimeOptions | null): Runtime | null;

export interface AgentProviderProps {
  /** A runtime of yours (you dispose it). */
  runtime?: Runtime | null;
  /** Or options: the provider makes the runtime on mount and disposes it on unmount (useAgent). */
  options?: RuntimeOptions | null;
  children?: ReactNode;
}

/** Shares one runtime with the hooks below it. Children render at once; hooks read empty snapshots until the runtime is ready. */
export function AgentProvider(props: AgentProviderProps): ReactElement;

/** The provider's runtime, null while it is being made: for send(), abort(), tools. */
export function useRuntime(): Runtime | null;

/** The messages as `{id, role}`, in thread order; a new array only when one is added, removed or replaced. */
export function useMessages(): readonly MessageEntry[];

/** One message; its component alone re-renders when it changes (a text delta). */
export function useMessage(id: string): Message | undefined;

/** One tool call: its state, its arguments as they stream and once final, its result or error. */
export function useToolCall(id: string): ToolCallView | undefined;

/** runtime.status, or null before the runtime is ready. */
export function useAgentStatus(): Status | null;

/** runtime.role, re-rendering on each role_changed (runtime.role itself is not reactive); null before the runtime is ready. */
export function useRole(): TabRole | null;

/**
 * runtime.send as a promise in every role: of the turn's end here, of its end in the tab in charge
 * in a follower. It rejects (never throws) when refused: the runtime not ready yet, bad input, or a
 * follower's send the tab in charge refused or could not answer. Catch it.
 */
export function useSend(): (textOrMessages: Parameters<Runtime['send']>[0]) => Promise<TurnResult>;

/**
 * The answers of useApprovals and useInterrupts are promises in every role (a tab's role can change
 * between two renders): resolved once done, here or in the tab in charge; rejected (never thrown)
 * with the AguiError when refused, e.g. `unknown_tool_call` for a call answered meanwhile. Catch it.
 */
export interface Approvals {
  readonly pending: PendingApproval[];
  approve(toolCallId: string): Promise<void>;
  reject(toolCallId: string, reason?: string): Promise<void>;
}

/** The calls waiting for the user's decision, with approve and reject. */
export function useApprovals(): Approvals;

export interface Interrupts {
  readonly pending: Interrupt[];
  /** The payload is checked against the interrupt's responseSchema. */
  resolve(interruptId: string, payload?: Json): Promise<void>;
  cancel(interruptId: string, reason?: string): Promise<void>;
}

/** The AG-UI interrupts waiting for an answer, with resolve and cancel. */
export function useInterrupts(): Interrupts;

/**
 * Registers a client tool while the component is mounted (once under StrictMode's double mount).
 * Every call runs the handler of the latest render: a new handler does not re-register the tool;
 * a change of the rest of the definition (compared as JSON) does.
 */
export function useClientTool<Args = any>(definition: ToolDefinition<Args>): void;
