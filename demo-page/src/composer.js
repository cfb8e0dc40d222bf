// The composer: message box, Send / Stop, the status line (phase and round counter) and the
// suggestion chips that show a newcomer what the demo agent understands.
import { append, h } from './dom.js';

export const SUGGESTIONS = [
  { text: 'help', label: 'Help', hint: 'The demo agent lists its phrases' },
  {
    text: 'How many permits by type?',
    label: 'Permits by type',
    hint: 'Server tools: schema, SQL, then an ECharts bar chart',
  },
  { text: 'Permits per month', label: 'Per month', hint: 'A line chart' },
  { text: 'Show permits on a map', label: 'Map of permits', hint: 'A Leaflet map, drawn offline' },
  {
    text: 'Where am I?',
    label: 'Where am I?',
    hint: 'Client tool get_current_location (the browser asks for permission)',
  },
  {
    text: "Copy 'Hello from agui-client-tools' to clipboard",
    label: 'Copy to clipboard',
    hint: 'Client tool copy_to_clipboard (opt-in: turn it on in the tools panel)',
    tool: 'copy_to_clipboard',
  },
  {
    text: 'Delete the permits from 2019',
    label: 'Approval',
    hint: 'Client tool request_user_approval (opt-in): an approval card',
    tool: 'request_user_approval',
  },
  { text: 'Several rounds please', label: 'Several rounds', hint: 'Location, then approval, then an answer' },
  { text: 'interrupt', label: 'Interrupt', hint: 'The run pauses with a form to answer' },
  { text: 'loop', label: 'Endless loop', hint: 'The agent never stops; the round cap has to' },
  { text: 'state', label: 'State', hint: 'STATE_SNAPSHOT then STATE_DELTA (see Debug)' },
  { text: 'error', label: 'Server error', hint: 'The run ends with RUN_ERROR' },
];

/**
 * @param {{form: HTMLFormElement, input: HTMLTextAreaElement, stop: HTMLButtonElement,
 *          status: HTMLElement, chips: HTMLElement, onSend: (text: string) => void,
 *          onStop: () => void, isEnabled: (tool: string) => boolean}} parts
 */
export function createComposer({ form, input, stop, status, chips, onSend, onStop, isEnabled }) {
  const submit = () => {
    const text = input.value.trim();
    if (!text) return;
    input.value = '';
    autosize();
    onSend(text);
  };
  const autosize = () => {
    input.style.height = 'auto';
    input.style.height = `${Math.min(input.scrollHeight, 180)}px`;
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit();
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    }
  });
  input.addEventListener('input', autosize);
  stop.addEventListener('click', () => onStop());

  const chipButtons = SUGGESTIONS.map((s) =>
    h('button', {
      type: 'button',
      class: 'chip',
      title: `${s.hint}\nSends: “${s.text}”`,
      dataset: { text: s.text, tool: s.tool, hint: s.hint },
      text: s.label,
      onclick: () => onSend(s.text),
    }),
  );
  chips.replaceChildren(h('span', { class: 'chips-label', text: 'Try:' }), ...chipButtons);

  return {
    /** Marks the chips whose opt-in tool is off. */
    refreshChips() {
      for (const b of chipButtons) {
        const tool = b.dataset.tool;
        const off = Boolean(tool) && !isEnabled(tool);
        b.classList.toggle('needs-tool', off);
        b.title = `${b.dataset.hint}${off ? `\n(${tool} is off: the agent will say so; turn it on in the tools panel)` : ''}\nSends: “${b.dataset.text}”`;
      }
    },
    /** @param {import('agui-client-tools').Status} s */
    showStatus(s, maxRounds) {
      status.dataset.phase = s.phase;
      stop.disabled = s.phase === 'idle';
      let text;
      if (s.phase === 'idle') text = 'Ready';
      else if (s.phase === 'awaiting') {
        const what = [
          s.pendingApprovals.length
            ? `${s.pendingApprovals.length} approval${s.pendingApprovals.length > 1 ? 's' : ''}`
            : '',
          s.pendingInterrupts.length
            ? `${s.pendingInterrupts.length} question${s.pendingInterrupts.length > 1 ? 's' : ''}`
            : '',
        ]
          .filter(Boolean)
          .join(' and ');
        text = `Waiting for you: ${what || 'a decision'} above`;
      } else if (s.running.length)
        text = `Running ${s.running.length} tool${s.running.length > 1 ? 's' : ''} in your browser…`;
      else text = 'The agent is working…';
      const round = s.phase === 'idle' ? '' : s.round > 0 ? `Follow-up round ${s.round} of ${maxRounds}` : 'First run';
      status.replaceChildren();
      append(status, [
        h('span', { class: 'status-dot', 'aria-hidden': 'true' }),
        h('span', { class: 'status-text', text }),
        round ? h('span', { class: 'round-counter', dataset: { round: String(s.round) }, text: round }) : null,
      ]);
    },
    focus: () => input.focus(),
  };
}
