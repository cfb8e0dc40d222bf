// The tools panel: one switch per client tool (shared by every thread), with what it does and
// whether it asks first; below it, the agent's server-side tools, which are always on.
import { h } from './dom.js';

const STORAGE_KEY = 'agui-demo/tool-toggles';

export function loadToggles() {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}');
    return value && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}

function saveToggles(tools) {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(Object.fromEntries(tools.map((t) => [t.name, t.enabled]))));
  } catch {
    // storage full or blocked: the toggles still work for this visit
  }
}

/** Applies saved toggles to the registry (tools that no longer exist are ignored). */
export function restoreToggles(runtime) {
  const saved = loadToggles();
  for (const tool of runtime.tools.list()) {
    if (typeof saved[tool.name] === 'boolean' && saved[tool.name] !== tool.enabled)
      runtime.tools.setEnabled(tool.name, saved[tool.name]);
  }
}

function badge(text, cls, title) {
  return h('span', { class: `badge ${cls}`, text, title });
}

/**
 * @param {HTMLElement} host
 * @param {() => import('agui-client-tools').Runtime} getRuntime any live runtime (tools are shared)
 */
export function createToolsPanel(host, getRuntime) {
  const list = h('ul', { class: 'tool-toggles' });
  const serverList = h('ul', { class: 'server-tools' }, h('li', { class: 'muted', text: 'Asking the agent…' }));
  const errorEl = h('p', { class: 'card-error', hidden: true });
  host.replaceChildren(
    h('h2', { class: 'panel-title', text: 'Client tools' }),
    h('p', { class: 'panel-help', text: 'Run in this tab. A tool that is off is not offered to the agent at all.' }),
    list,
    errorEl,
    h('h2', { class: 'panel-title', text: 'Server tools' }),
    h('p', { class: 'panel-help', text: 'Run by the agent on its server; always available.' }),
    serverList,
  );

  const render = () => {
    const runtime = getRuntime();
    const tools = runtime.tools.list();
    list.replaceChildren(
      ...tools.map((tool) => {
        const id = `tool-toggle-${tool.name}`;
        const input = h('input', {
          type: 'checkbox',
          id,
          class: 'switch',
          role: 'switch',
          checked: tool.enabled,
          dataset: { tool: tool.name },
          onchange: () => {
            errorEl.hidden = true;
            try {
              getRuntime().tools.setEnabled(tool.name, input.checked);
              saveToggles(getRuntime().tools.list());
            } catch (e) {
              input.checked = !input.checked;
              errorEl.hidden = false;
              errorEl.textContent = e?.message ?? String(e);
            }
          },
        });
        return h(
          'li',
          { class: `tool-toggle${tool.enabled ? ' on' : ''}`, dataset: { tool: tool.name } },
          input,
          h(
            'label',
            { for: id },
            h('span', { class: 'tool-toggle-name' }, tool.summary, h('code', { text: tool.name })),
            h('span', { class: 'tool-toggle-desc', text: tool.description }),
            h(
              'span',
              { class: 'badges' },
              tool.defaultEnabled ? null : badge('opt-in', 'badge-optin', 'Off until you turn it on'),
              tool.needsApproval
                ? badge('asks first', 'badge-approval', tool.confirm ?? 'Each call waits for your approval')
                : null,
              tool.destructive ? badge('destructive', 'badge-danger', 'Changes something') : null,
            ),
          ),
        );
      }),
    );
  };

  fetch('/api/health')
    .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`HTTP ${r.status}`))))
    .then((health) => {
      const tools = Array.isArray(health.serverTools) ? health.serverTools : [];
      serverList.replaceChildren(
        ...tools.map((t) =>
          h(
            'li',
            { class: 'server-tool', title: t.description ?? '' },
            h('code', { text: t.name }),
            h('span', { class: 'tool-toggle-desc', text: t.description ?? '' }),
          ),
        ),
      );
      if (!tools.length) serverList.replaceChildren(h('li', { class: 'muted', text: 'none' }));
      host.dispatchEvent(new CustomEvent('health', { detail: health }));
    })
    .catch(() =>
      serverList.replaceChildren(h('li', { class: 'muted', text: 'Unknown (the agent has no /api/health).' })),
    );

  render();
  return { render };
}
