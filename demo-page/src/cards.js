// The cards that wait for the user: an approval (Approve / Reject) for a call that needs consent,
// and an AG-UI interrupt with a form generated from its responseSchema.
import { h, prettify, truncate } from './dom.js';
import { buildSchemaForm } from './schema-form.js';

function argRows(args) {
  const rows = Object.entries(args ?? {}).map(([k, v]) =>
    h(
      'div',
      { class: 'kv' },
      h('dt', { text: prettify(k) }),
      h('dd', { text: typeof v === 'string' ? v : JSON.stringify(v) }),
    ),
  );
  return rows.length ? h('dl', { class: 'kv-list' }, rows) : null;
}

/**
 * @param {import('agui-client-tools').PendingApproval} approval
 * @param {{approve: (id: string) => void, reject: (id: string, reason: string) => void}} actions
 */
export function createApprovalCard(approval, { approve, reject }) {
  const isGate = approval.name === 'request_user_approval';
  const args = { ...(approval.args ?? {}) };
  const prompt = isGate
    ? String(args.action ?? 'The agent asks for your approval')
    : (approval.confirm ?? `Allow “${approval.summary}”?`);
  if (isGate) delete args.action;
  const reason = h('input', {
    type: 'text',
    class: 'approval-reason',
    placeholder: 'Reason (optional, sent to the agent)',
    'aria-label': 'Reason for rejecting',
  });
  const error = h('p', { class: 'card-error', hidden: true });
  const show = (e) => {
    error.hidden = false;
    error.textContent = e?.message ?? String(e);
  };
  const controls = (disabled) => {
    for (const b of el.querySelectorAll('button, input')) b.disabled = disabled;
  };
  const decide = (fn, decision) => {
    try {
      // In a tab that follows another, the decision is carried out there and answered by a promise.
      Promise.resolve(fn()).catch((e) => {
        delete el.dataset.decision;
        controls(false);
        show(e);
      });
      el.dataset.decision = decision;
      controls(true);
    } catch (e) {
      show(e);
    }
  };
  const el = h(
    'div',
    {
      class: `approval-card${approval.destructive ? ' destructive' : ''}`,
      role: 'group',
      'aria-label': 'Approval needed',
      dataset: { toolCallId: approval.toolCallId },
    },
    h(
      'p',
      { class: 'card-kicker' },
      approval.destructive ? 'Destructive action — approval needed' : 'Approval needed',
      isGate ? null : h('span', { class: 'muted', text: ` · ${approval.summary}` }),
    ),
    h('p', { class: 'approval-prompt', text: prompt }),
    argRows(args),
    h(
      'div',
      { class: 'card-actions' },
      h('button', {
        type: 'button',
        class: 'btn btn-primary approve',
        text: 'Approve',
        onclick: () => decide(() => approve(approval.toolCallId), 'approved'),
      }),
      h('button', {
        type: 'button',
        class: 'btn btn-danger reject',
        text: 'Reject',
        onclick: () => decide(() => reject(approval.toolCallId, reason.value.trim()), 'rejected'),
      }),
      reason,
    ),
    error,
  );
  return el;
}

/**
 * @param {import('agui-client-tools').Interrupt} interrupt
 * @param {{resolve: (id: string, payload: any) => void, cancel: (id: string, reason: string) => void}} actions
 */
export function createInterruptCard(interrupt, { resolve, cancel }) {
  const form = buildSchemaForm(interrupt.responseSchema);
  let sent; // the payload of a resolved answer, shown once answered
  const error = h('p', { class: 'card-error', hidden: true });
  const status = h('p', { class: 'interrupt-status', hidden: true });
  const fail = (e) => {
    error.hidden = false;
    error.textContent = e?.message ?? String(e);
  };
  const formEl = h(
    'form',
    {
      class: 'interrupt-form',
      onsubmit: (event) => {
        event.preventDefault();
        error.hidden = true;
        try {
          const payload = form.read();
          Promise.resolve(resolve(interrupt.id, payload)).catch(fail); // (a promise in a following tab)
          sent = payload;
        } catch (e) {
          fail(e);
        }
      },
    },
    form.el,
    h(
      'div',
      { class: 'card-actions' },
      h('button', { type: 'submit', class: 'btn btn-primary submit', text: 'Send answer' }),
      h('button', {
        type: 'button',
        class: 'btn cancel',
        text: 'Cancel',
        onclick: () => {
          try {
            Promise.resolve(cancel(interrupt.id, 'cancelled by the user')).catch(fail);
          } catch (e) {
            fail(e);
          }
        },
      }),
    ),
  );
  const meta = [
    interrupt.reason && `reason: ${interrupt.reason}`,
    interrupt.expiresAt && `expires ${interrupt.expiresAt}`,
  ]
    .filter(Boolean)
    .join(' · ');
  const el = h(
    'section',
    {
      class: 'interrupt-card',
      dataset: { interruptId: interrupt.id, state: 'pending' },
      role: 'group',
      'aria-label': 'The agent is waiting for you',
    },
    h(
      'p',
      { class: 'card-kicker' },
      'The agent paused and needs an answer',
      meta ? h('span', { class: 'muted', text: ` · ${meta}` }) : null,
    ),
    h('p', { class: 'interrupt-message', text: interrupt.message ?? truncate(interrupt.id, 80) }),
    formEl,
    status,
    error,
  );
  return {
    el,
    message: interrupt.message ?? interrupt.id,
    answered(state) {
      el.dataset.state = state;
      for (const c of formEl.querySelectorAll('input, select, textarea, button')) c.disabled = true;
      formEl.hidden = true;
      status.hidden = false;
      const shown =
        sent && typeof sent === 'object' && !Array.isArray(sent)
          ? Object.entries(sent)
              .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
              .join(' · ')
          : sent === undefined || sent === null
            ? ''
            : JSON.stringify(sent);
      status.textContent =
        state === 'resolved'
          ? `You answered${shown ? ` (${shown})` : ''}; the agent continues.`
          : 'Cancelled; the agent was told.';
      return status.textContent;
    },
  };
}
