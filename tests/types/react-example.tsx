// A typed example of agui-client-tools/react: a chat with a live tool card, an
// approval card, an interrupt and a client tool, compiled with `tsc --noEmit`
// (tests/node/types.test.mjs) to prove js-shim/react.d.ts.
import { StrictMode, useState } from 'react';
import {
  requestUserApproval,
  type AguiError,
  type Json,
  type Message,
  type TabRole,
  type ToolCallState,
  type TurnResult,
} from 'agui-client-tools';
import {
  AgentProvider,
  useAgent,
  useAgentStatus,
  useApprovals,
  useClientTool,
  useInterrupts,
  useMessage,
  useMessages,
  useRole,
  useRuntime,
  useSend,
  useToolCall,
  type MessageEntry,
  type ToolCallView,
} from 'agui-client-tools/react';

function ToolCard({ id }: { id: string }) {
  const call: ToolCallView | undefined = useToolCall(id);
  if (!call) return null;
  const state: ToolCallState | undefined = call.state;
  const args: Json | undefined = call.args;
  return (
    <div data-state={state ?? 'unknown'}>
      {call.name}: {JSON.stringify(args ?? null)} {call.invalid ?? ''}
      {call.error !== undefined ? <b>{call.error}</b> : typeof call.result === 'string' ? call.result : null}
    </div>
  );
}

function Bubble({ id }: { id: string }) {
  const message: Message | undefined = useMessage(id);
  if (!message) return null;
  if (message.role === 'assistant')
    return (
      <div>
        {message.content}
        {(message.toolCalls ?? []).map((c) => (
          <ToolCard key={c.id} id={c.id} />
        ))}
      </div>
    );
  return <div>{typeof message.content === 'string' ? message.content : JSON.stringify(message.content)}</div>;
}

function ApprovalCards() {
  const { pending, approve, reject } = useApprovals();
  const [refused, setRefused] = useState<AguiError | null>(null);
  // An answer is a promise in every role; a refusal rejects it.
  const answer = (done: Promise<void>) => done.then(() => setRefused(null), setRefused);
  return (
    <>
      {refused && <p role="alert">{refused.message}</p>}
      {pending.map((a) => (
        <div key={a.toolCallId}>
          {a.confirm ?? a.summary}
          <button onClick={() => answer(approve(a.toolCallId))}>Approve</button>
          <button onClick={() => answer(reject(a.toolCallId, 'not now'))}>Reject</button>
        </div>
      ))}
    </>
  );
}

function InterruptCards() {
  const { pending, resolve, cancel } = useInterrupts();
  return (
    <>
      {pending.map((i) => (
        <div key={i.id}>
          {i.message ?? i.reason}
          <button onClick={() => resolve(i.id, { confirmed: true }).catch(console.error)}>Yes</button>
          <button onClick={() => void cancel(i.id).catch(console.error)}>No</button>
        </div>
      ))}
    </>
  );
}

function Tools() {
  const [units, setUnits] = useState<'metric' | 'imperial'>('metric');
  useClientTool<{ city: string }>({
    name: 'get_weather',
    description: 'Current weather for a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    handler: async ({ city }, { signal }) => (await fetch(`/weather?city=${city}&units=${units}`, { signal })).json(),
  });
  useClientTool({ ...requestUserApproval, defaultEnabled: true });
  return <button onClick={() => setUnits(units === 'metric' ? 'imperial' : 'metric')}>{units}</button>;
}

function Chat() {
  const runtime = useRuntime();
  const messages: readonly MessageEntry[] = useMessages();
  const status = useAgentStatus();
  const role: TabRole | null = useRole();
  const send = useSend();
  const [turn, setTurn] = useState<TurnResult | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const ask = () => send('Weather in Paris?').then(setTurn, setError);
  return (
    <main data-role={role ?? 'loading'}>
      <Tools />
      {messages.map((m) => (
        <Bubble key={m.id} id={m.id} />
      ))}
      <ApprovalCards />
      <InterruptCards />
      <button disabled={!runtime || status?.phase === 'running'} onClick={ask}>
        Send
      </button>
      {turn && <p>{turn.reason}</p>}
      {error && <p role="alert">{error.message}</p>}
    </main>
  );
}

export function App() {
  return (
    <StrictMode>
      <AgentProvider options={{ url: '/agent' }}>
        <Chat />
      </AgentProvider>
    </StrictMode>
  );
}

// useAgent directly, and a provider given that runtime.
export function OwnRuntime() {
  const runtime = useAgent({ url: '/agent', maxRounds: 3 });
  return (
    <AgentProvider runtime={runtime}>
      <Chat />
    </AgentProvider>
  );
}
