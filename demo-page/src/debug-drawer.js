// The debug drawer: the last RunAgentInput the active thread sent, what the next run would
// advertise, the agent state, and a log of every runtime change (raw AG-UI events optional).
import { h, shortId, truncate } from './dom.js';

const MAX_LOG = 400;

function summarize(change) {
  switch (change.kind) {
    case 'message_added':
      return `${change.message.role} ${change.message.id}`;
    case 'text_appended':
      return JSON.stringify(change.delta);
    case 'tool_call_added':
      return `${change.toolCall.function?.name} ${change.toolCall.id}`;
    case 'tool_call_args':
      return `${change.toolCallId} ${JSON.stringify(change.delta)}`;
    case 'tool_call_partial': {
      // Not the value: stringifying it every step would cost its whole size per step.
      const args = change.args;
      const shape =
        args && typeof args === 'object'
          ? Array.isArray(args)
            ? `[${args.length} items]`
            : `{${Object.keys(args).join(', ')}}`
          : typeof args;
      return `${change.toolCallId} ${shape}${change.invalid ? ` · invalid: ${change.invalid}` : ''}`;
    }
    case 'tool_call_status':
      return `${change.name} → ${change.status}${change.error ? `: ${change.error}` : ''}`;
    case 'tool_result':
      return `${change.message.toolCallId}: ${change.message.content}`;
    case 'approval_requested':
      return `${change.approval.name} ${change.approval.toolCallId}`;
    case 'interrupts':
      return change.interrupts.map((i) => i.id).join(', ');
    case 'round_started':
      return `round ${change.round} ${change.runId}`;
    case 'run_started':
      return change.runId;
    case 'run_finished':
      return JSON.stringify(change.outcome);
    case 'run_error':
      return `${change.code ?? ''} ${change.message}`;
    case 'turn_ended':
      return `${change.reason}${change.message ? `: ${change.message}` : ''}`;
    case 'request':
      return `${change.input.runId}: ${change.input.messages.length} messages, tools [${change.input.tools.map((t) => t.name).join(', ')}]`;
    case 'event':
      return change.event.type;
    case 'problem':
      return `${change.code}${change.fatal ? ' (fatal)' : ''}: ${change.message}`;
    default: {
      const { kind, ...rest } = change;
      return JSON.stringify(rest);
    }
  }
}

export function createDebugDrawer(host) {
  const requestMeta = h('p', {
    class: 'debug-meta',
    id: 'debug-request-meta',
    text: 'No request sent yet in this thread.',
  });
  const requestPre = h('pre', { class: 'json debug-pre', id: 'debug-request' });
  const advertised = h('p', { class: 'debug-meta', id: 'debug-advertised' });
  const statePre = h('pre', { class: 'json debug-pre small', id: 'debug-state' });
  const log = h('ol', { class: 'event-log', id: 'event-log' });
  const raw = h('input', { type: 'checkbox', id: 'debug-raw' });
  const entries = [];
  let shownInput; // the RunAgentInput last rendered (re-rendered only when it changes)

  host.replaceChildren(
    h(
      'section',
      { class: 'debug-section' },
      h('h3', { text: 'Last request (RunAgentInput)' }),
      requestMeta,
      advertised,
      requestPre,
    ),
    h('section', { class: 'debug-section' }, h('h3', { text: 'Agent state' }), statePre),
    h(
      'section',
      { class: 'debug-section' },
      h(
        'div',
        { class: 'debug-log-head' },
        h('h3', { text: 'Event log' }),
        h('label', { class: 'inline' }, raw, ' raw AG-UI events'),
        h('button', {
          type: 'button',
          class: 'btn btn-small',
          text: 'Clear',
          onclick: () => (log.replaceChildren(), (entries.length = 0)),
        }),
      ),
      log,
    ),
  );

  return {
    showRuntime(runtime) {
      if (host.closest('[hidden]')) return; // drawn when the drawer opens
      const input = runtime.lastInput;
      if (input === shownInput && input) {
        // unchanged request; the state and the advertised tools may have moved on
      } else if (input) {
        shownInput = input;
        requestPre.textContent = JSON.stringify(input, null, 2);
        requestMeta.textContent = `runId ${input.runId} · ${input.messages.length} messages · tools: ${
          input.tools.map((t) => t.name).join(', ') || 'none'
        }${input.resume?.length ? ` · resume: ${input.resume.map((r) => r.status).join(', ')}` : ''}`;
      } else {
        shownInput = null;
        requestPre.textContent = '';
        requestMeta.textContent = 'No request sent yet in this thread (since the page loaded).';
      }
      advertised.textContent = `Next run advertises: ${
        runtime.tools
          .advertise()
          .map((t) => t.name)
          .join(', ') || 'no client tools'
      }`;
      statePre.textContent = JSON.stringify(runtime.state, null, 2);
    },
    log(threadId, change) {
      if (change.kind === 'event' && !raw.checked) return;
      const item = h(
        'li',
        { class: `log-${change.kind}`, dataset: { kind: change.kind } },
        h('span', { class: 'log-thread', text: shortId(threadId) }),
        h('span', { class: 'log-kind', text: change.kind }),
        h('span', { class: 'log-text', text: truncate(summarize(change), 300) }),
      );
      const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
      entries.push(item);
      log.append(item);
      while (entries.length > MAX_LOG) entries.shift().remove();
      if (atEnd) log.scrollTop = log.scrollHeight;
    },
  };
}
