// A live card per tool call: its state as the core announces it, its arguments as they stream
// (the value parsed so far), then its result or error.
import { memo } from 'react';
import { useToolCall } from 'agui-client-tools/react';
import { probe, useRenderCount } from './probe.js';

export const ToolCard = memo(function ToolCard({ id }) {
  useRenderCount(`toolCall:${id}`);
  const call = useToolCall(id);
  if (!call) return null;
  const args = JSON.stringify(call.args ?? {}, null, 2);
  (probe.cardArgs[id] ??= []).push(args);
  return (
    <div className="tool-card" data-tool-call-id={id} data-name={call.name} data-state={call.state ?? ''}>
      <header>
        <strong>{call.name}</strong> <span className="state">{call.state ?? '…'}</span>
      </header>
      <pre className="args">{args}</pre>
      {call.invalid && <p className="invalid">{call.invalid}</p>}
      {call.error !== undefined ? (
        <p className="error">{call.error}</p>
      ) : (
        call.result !== undefined && (
          <details className="result">
            <summary>result</summary>
            <pre>{typeof call.result === 'string' ? call.result : JSON.stringify(call.result)}</pre>
          </details>
        )
      )}
    </div>
  );
});
