// Activity messages (AG-UI generative UI): picks a renderer by activityType. ECharts and Leaflet
// are loaded on first use (separate chunks); unknown types are shown as their JSON, as text.
import { h, prettyJson } from './dom.js';

export const ECHART = 'application/json+echart';
export const LEAFLET = 'application/json+leaflet';

const RENDERERS = {
  [ECHART]: {
    label: 'Chart',
    load: () => import('./renderers/echart.js').then((m) => m.renderChart),
  },
  [LEAFLET]: {
    label: 'Map',
    load: () => import('./renderers/leaflet-map.js').then((m) => m.renderMap),
  },
};

function titleOf(message) {
  const c = message.content ?? {};
  const t = c.title;
  if (typeof t === 'string') return t;
  if (t && typeof t === 'object' && !Array.isArray(t) && typeof t.text === 'string') return t.text;
  if (Array.isArray(t) && typeof t[0]?.text === 'string') return t[0].text;
  return null;
}

/**
 * An activity card. Returns {el, update(message), dispose()}; the renderer runs once the card is
 * in the document (call attach() after inserting it).
 */
export function createActivityCard(message) {
  const spec = RENDERERS[message.activityType];
  const host = h('div', { class: 'activity-body' });
  const warning = h('p', { class: 'activity-warning', hidden: true });
  const title = titleOf(message);
  const el = h(
    'section',
    {
      class: 'activity-card',
      dataset: { messageId: message.id, activityType: message.activityType, state: 'loading' },
    },
    h(
      'header',
      { class: 'activity-head' },
      h('span', { class: 'activity-kind', text: spec?.label ?? 'Activity' }),
      title && spec?.label !== 'Chart' ? h('span', { class: 'activity-title', text: title }) : null,
      h('code', { class: 'activity-type', text: message.activityType }),
    ),
    host,
    warning,
  );
  let latest = message;
  let view = null;
  let disposed = false;
  const warn = (text) => {
    warning.hidden = false;
    warning.textContent = text;
  };

  const showJson = (m) => {
    host.replaceChildren(h('pre', { class: 'json', text: prettyJson(m.content) }));
    el.dataset.state = 'rendered';
  };

  const attach = () => {
    if (!spec) return showJson(latest);
    spec
      .load()
      .then((render) => {
        if (disposed) return;
        view = render(host, latest.content, { onWarning: warn });
        el.dataset.state = 'rendered';
        if (typeof view.markerCount === 'number') el.dataset.markers = String(view.markerCount);
      })
      .catch((e) => {
        el.dataset.state = 'error';
        warn(`Could not draw this ${spec.label.toLowerCase()}: ${e?.message ?? e}`);
        host.replaceChildren(h('pre', { class: 'json', text: prettyJson(latest.content) }));
      });
  };

  return {
    el,
    attach,
    update(m) {
      latest = m;
      if (!spec) return showJson(m);
      if (!view) return; // the first render will use `latest`
      try {
        view.update(m.content);
        if (typeof view.markerCount === 'number') el.dataset.markers = String(view.markerCount);
      } catch (e) {
        warn(`Could not update: ${e?.message ?? e}`);
      }
    },
    dispose() {
      disposed = true;
      view?.dispose();
      view = null;
    },
  };
}
