// A typed example that uses the whole public API of agui-client-tools, compiled
// with `tsc --noEmit` (tests/node/types.test.mjs) to prove js-shim/index.d.ts:
// if a declaration drifts from what a user writes, this stops compiling.
import {
  createRuntime,
  contentParts,
  type ContentPart,
  type SideRequestResult,
  memoryStore,
  applyChange,
  type ThreadStore,
  init,
  browserTools,
  getCurrentLocation,
  copyToClipboard,
  readClipboard,
  requestUserApproval,
  AguiError,
  ERROR_CODES,
  MAX_FRONTEND_TOOL_ROUNDS,
  type Change,
  type ErrorCode,
  type ExportedThread,
  type Interrupt,
  type Json,
  type Message,
  type PendingApproval,
  type Runtime,
  type RunAgentInput,
  type Status,
  type TabRole,
  type ToolDefinition,
  type ToolInfo,
  type TurnResult,
} from 'agui-client-tools';

interface WeatherArgs {
  city: string;
  attempt?: number;
}

// A tool with typed arguments: the handler sees WeatherArgs, not any.
const getWeather: ToolDefinition<WeatherArgs> = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, attempt: { type: 'integer', minimum: 1 } },
    required: ['city'],
    additionalProperties: false,
  },
  timeoutMs: 5_000,
  summary: 'Get the weather',
  category: 'weather',
  handler: async (args, ctx) => {
    const city: string = args.city;
    const attempt: number | undefined = args.attempt;
    if (ctx.signal.aborted) throw new Error(`cancelled on ${ctx.threadId}/${ctx.toolCallId}`);
    return { city, attempt: attempt ?? 1, sky: 'sunny' };
  },
};

const deleteFile: ToolDefinition<{ path: string }> = {
  name: 'delete_file',
  description: 'Delete a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  destructive: true,
  confirm: 'Delete this file?',
  rejectedResult: { deleted: false },
  handler: ({ path }) => `deleted ${path}`,
};

// A result as AG-UI 1.0 content parts: text and an image.
const snapshot: ToolDefinition = {
  name: 'snapshot',
  description: 'A picture of the map.',
  handler: () => {
    const parts: ContentPart[] = [
      { type: 'text', text: 'The map:' },
      { type: 'image', source: { type: 'data', value: 'iVBORw0KGgo=', mimeType: 'image/png' } },
    ];
    return contentParts(parts);
  },
};

function describeChange(change: Change): string {
  switch (change.kind) {
    case 'message_added':
      return `${change.message.role} ${change.message.id}`;
    case 'text_appended':
      return `${change.messageId} += ${change.delta}`;
    case 'message_ended':
      return `end ${change.messageId}`;
    case 'message_updated':
      return `updated ${change.message.id}`;
    case 'metadata_merged':
      return `metadata ${change.messageId ?? change.toolCallId ?? ''} ${Object.keys(change.metadata).join(',')}`;
    case 'messages_replaced':
      return `${change.messages.length} messages`;
    case 'tool_call_added':
      return `${change.toolCall.function.name} in ${change.messageId}`;
    case 'tool_call_args':
      return `${change.toolCallId} args += ${change.delta}`;
    case 'tool_call_partial': {
      const args: Json = change.args; // the card draws what the model has written so far
      return `${change.toolCallId} so far ${JSON.stringify(args)}${change.invalid ? ` (invalid: ${change.invalid})` : ''}`;
    }
    case 'tool_call_ended':
      return `call ${change.toolCallId} ended`;
    case 'tool_call_status':
      return `${change.name}: ${change.status}${change.error ? ` (${change.error})` : ''}`;
    case 'tool_result': {
      const content: string | Json[] = change.message.content;
      return `result for ${change.message.toolCallId}: ${typeof content === 'string' ? content : 'parts'}`;
    }
    case 'approval_requested': {
      const a: PendingApproval = change.approval;
      return `approve ${a.name}(${JSON.stringify(a.args)})? ${a.confirm ?? a.summary}${a.destructive ? ' [destructive]' : ''}`;
    }
    case 'interrupts':
      return change.interrupts.map((i: Interrupt) => `${i.id}: ${i.reason}`).join('; ');
    case 'interrupt_answered':
      return `${change.interruptId} ${change.status}`;
    case 'state_replaced':
      return `state ${JSON.stringify(change.state)}`;
    case 'state_patched':
      return `${change.delta.length} patch ops`;
    case 'run_started':
      return `run ${change.runId}`;
    case 'run_finished':
      return `finished: ${change.outcome.type}`;
    case 'run_error':
      return `error ${change.code ?? ''}: ${change.message}`;
    case 'event':
      return change.event.type;
    case 'turn_started':
      return 'turn started';
    case 'round_started':
      return `round ${change.round} (${change.runId})`;
    case 'turn_ended':
      return `turn ended: ${change.reason}`;
    case 'request': {
      const input: RunAgentInput = change.input;
      return `POST ${input.runId} with ${input.tools.length} tools`;
    }
    case 'tools_changed':
      return 'tools changed';
    case 'storage_failed':
      return `thread ${change.threadId} kept in memory only: ${change.message}`;
    case 'role_changed': {
      const role: TabRole = change.role;
      return `this tab: ${role}${change.reason ? ` (${change.reason})` : ''}`;
    }
    case 'problem':
      return `${change.fatal ? 'fatal ' : ''}${change.code} at #${change.index} (${change.eventType}): ${change.message}`;
    default: {
      // Every kind is handled: this only compiles when the switch is exhaustive.
      const never: never = change;
      return never;
    }
  }
}

async function main(): Promise<void> {
  await init();
  const runtime: Runtime = await createRuntime({
    url: 'http://localhost:8000/agent',
    headers: { authorization: 'Bearer demo' },
    threadId: 'thread-1',
    maxRounds: MAX_FRONTEND_TOOL_ROUNDS,
    repeatLimit: 3,
    defaultTimeoutMs: 30_000,
    approvalTimeoutMs: 60_000,
    context: [{ description: 'units', value: 'metric' }],
    forwardedProps: { locale: 'en' },
    stampSchemaExtensions: false,
    limits: { maxEventBytes: 1 << 20, maxArgumentBytes: 1 << 20, maxResultBytes: 1 << 20 },
    tools: [getCurrentLocation, copyToClipboard],
  });

  runtime.tools.register(getWeather);
  runtime.tools.register(deleteFile);
  runtime.tools.register(readClipboard);
  runtime.tools.register({ ...requestUserApproval, defaultEnabled: true });
  runtime.tools.setEnabled('copy_to_clipboard', true);
  for (const definition of browserTools.all) console.log(definition.name, definition.defaultEnabled ?? true);
  const panel: ToolInfo[] = runtime.tools.list();
  console.log(panel.map((t) => `${t.summary}: ${t.enabled ? 'on' : 'off'}${t.needsApproval ? ' (asks)' : ''}`));
  console.log(
    runtime.tools.catalog().map((c) => c.name),
    runtime.tools.advertise().map((t) => t.name),
  );

  const unsubscribe = runtime.subscribe((change) => {
    console.log(describeChange(change));
    if (change.kind === 'approval_requested') {
      if (change.approval.destructive) runtime.approvals.reject(change.approval.toolCallId, 'not from a test');
      else runtime.approvals.approve(change.approval.toolCallId);
    }
    if (change.kind === 'interrupts') {
      for (const interrupt of change.interrupts) {
        if (interrupt.responseSchema) runtime.interrupts.resolve(interrupt.id, { confirm: true });
        else runtime.interrupts.cancel(interrupt.id, 'no schema');
      }
    }
  });

  const result: TurnResult = await runtime.send('What is the weather in Paris?');
  if (result.reason === 'run_error') console.error(result.code, result.message);
  const messages: Message[] = runtime.messages;
  for (const m of messages) {
    if (m.role === 'assistant')
      console.log(
        m.content ?? '',
        m.toolCalls?.map((c) => c.function.arguments),
      );
    else if (m.role === 'tool') console.log(m.toolCallId, m.error ?? m.content);
  }
  await runtime.send([{ role: 'user', content: 'And in Rome?' }]);
  runtime.tools.register(snapshot);
  await runtime.send([], { forwardedProps: { a2uiAction: { userAction: { name: 'ok' } } } });
  const side: SideRequestResult = await runtime.request({
    forwardedProps: { __proxiedMCPRequest: { method: 'ping' } },
  });
  console.log(side.result, result.result);
  const status: Status = runtime.status;
  console.log(
    status.phase,
    status.round,
    status.pendingApprovals.length,
    status.pendingInterrupts.length,
    status.running,
  );
  console.log(runtime.approvals.pending(), runtime.interrupts.pending(), runtime.state, runtime.lastInput?.runId);

  // Threads: export, store as JSON, restore; open a sibling.
  const exported: ExportedThread = runtime.thread.export();
  const stored = JSON.stringify(exported);
  const restored = await createRuntime({
    url: new URL('http://localhost:8000/agent'),
    thread: JSON.parse(stored) as ExportedThread,
  });
  const store: ThreadStore = memoryStore();
  const folded: ExportedThread = applyChange(exported, {
    format: 'agui-client-tools/thread-change',
    version: 1,
    messages: { from: exported.messages.length, count: exported.messages.length, edited: [], tail: [] },
  });
  console.log(folded.messages.length, typeof store.append);
  const kept = await createRuntime({ url: 'http://localhost:8000/agent', persist: store, threadId: 'thread-1' });
  const sidebar: string[] = (await store.list()).map((t) => t.threadId);
  const other: Runtime = await kept.openStoredThread('thread-3');
  const inCharge: boolean = other.role !== 'follower';
  console.log(inCharge);
  await store.delete(sidebar[0] ?? kept.threadId);
  const resumed: TurnResult | undefined = await restored.resumed;
  console.log(resumed?.reason, restored.threadId);
  const sibling = runtime.openThread({ threadId: 'thread-2', maxRounds: 2 });
  sibling.abort('not needed');
  {
    using scoped = runtime.openThread();
    console.log(scoped.threadId);
  }

  try {
    runtime.tools.register({ name: 'bad name', description: '', handler: () => undefined });
  } catch (e) {
    if (e instanceof AguiError) {
      const code: ErrorCode = e.code;
      console.log(code, ERROR_CODES.includes(code), e.message);
    }
  }
  unsubscribe();
  sibling.dispose();
  restored[Symbol.dispose]();
  runtime.dispose();
}

void main();
