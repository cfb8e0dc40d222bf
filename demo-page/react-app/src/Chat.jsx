// The chat: the message list, the approval cards, the composer, and the client tools.
import { memo, useEffect, useState } from 'react';
import {
  useAgentStatus,
  useApprovals,
  useMessage,
  useMessages,
  useRole,
  useRuntime,
  useSend,
} from 'agui-client-tools/react';
import { ToolCard } from './ToolCard.jsx';
import { ClientTools } from './ClientTools.jsx';
import { probe, useRenderCount } from './probe.js';

export function Chat() {
  const runtime = useRuntime();
  const status = useAgentStatus();
  const role = useRole(); // 'leader' | 'follower' | 'alone': which tab runs this thread's turns
  useEffect(() => {
    probe.runtime = runtime;
    return runtime?.subscribe((c) => c.kind === 'storage_failed' && probe.storageFailures.push(c.message));
  }, [runtime]);
  return (
    <main data-ready={runtime ? 'true' : 'false'} data-phase={status?.phase ?? 'loading'} data-role={role ?? ''}>
      <h1>agui-client-tools · React</h1>
      {/* Mounted with the runtime there: StrictMode's double mount registers, unregisters, registers. */}
      {runtime && <ClientTools />}
      <MessageList />
      <ApprovalCards />
      <Composer />
    </main>
  );
}

function MessageList() {
  useRenderCount('list');
  const messages = useMessages();
  return (
    <ol className="messages">{messages.map((m) => (m.role === 'tool' ? null : <Message key={m.id} id={m.id} />))}</ol>
  );
}

// memo: a new entry in the list does not re-render the messages already there.
const Message = memo(function Message({ id }) {
  useRenderCount(`message:${id}`);
  const message = useMessage(id);
  if (!message) return null;
  const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? '');
  return (
    <li className={`msg msg-${message.role}`} data-message-id={id}>
      {message.role === 'activity' ? <em>{message.activityType}</em> : text && <p className="text">{text}</p>}
      {(message.toolCalls ?? []).map((call) => (
        <ToolCard key={call.id} id={call.id} />
      ))}
    </li>
  );
});

function ApprovalCards() {
  const approvals = useApprovals();
  const { pending, approve, reject } = (probe.approvals = approvals);
  // An answer can be refused (the call was answered meanwhile, in this tab or another): say so.
  const [refused, setRefused] = useState(null);
  const answer = (promise) => promise.then(() => setRefused(null), setRefused);
  const cards = pending.map((a) => (
    <section key={a.toolCallId} className="approval" data-tool-call-id={a.toolCallId}>
      <p>{a.confirm ?? `${a.summary}: ${a.args.action ?? ''}`}</p>
      {a.args.details && <p className="details">{a.args.details}</p>}
      <button className="approve" onClick={() => answer(approve(a.toolCallId))}>
        Approve
      </button>
      <button className="reject" onClick={() => answer(reject(a.toolCallId, 'the user said no'))}>
        Reject
      </button>
    </section>
  ));
  return (
    <>
      {refused && (
        <p className="refused" role="alert">
          {refused.message}
        </p>
      )}
      {cards}
    </>
  );
}

function Composer() {
  const runtime = useRuntime();
  const send = (probe.send = useSend());
  const [text, setText] = useState('');
  const [error, setError] = useState(null); // why the last send was refused
  const submit = (event) => {
    event.preventDefault();
    if (!runtime || !text.trim()) return;
    setError(null);
    send(text).catch(setError);
    setText('');
  };
  return (
    <form className="composer" onSubmit={submit}>
      {error && (
        <p className="send-error" role="alert">
          {error.message}
        </p>
      )}
      <input id="input" value={text} onChange={(e) => setText(e.target.value)} placeholder="Try: where am i" />
      <button id="send" disabled={!runtime}>
        Send
      </button>
    </form>
  );
}
