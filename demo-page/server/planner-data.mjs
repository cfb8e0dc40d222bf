// The planner's data questions: which phrases map to which SQL, chart or map, and summary.
//
// Summaries are computed from the rows execute_query returned, never from constants, so what the
// agent says always matches what the database holds.

const PERMIT_TYPES = ['Residential', 'Commercial', 'Electrical', 'Plumbing', 'Mechanical', 'Demolition', 'Sign'];
const usd = (n) => `$${Math.round(n).toLocaleString('en-US')}`;
const count = (n) => Number(n).toLocaleString('en-US');

// "largest demolition projects" -> Demolition. The value comes from a fixed list, so it can be
// put in the SQL text without any injection risk.
function typeFilter(text) {
  const type = PERMIT_TYPES.find((t) => text.includes(t.toLowerCase()));
  return type
    ? { type, where: `WHERE permit_type = '${type}'`, label: `${type.toLowerCase()} ` }
    : { type: null, where: '', label: '' };
}

const byType = () => ({
  reasoning: 'Counting permits per permit_type: one GROUP BY, then a bar chart sorted by count.',
  sql: 'SELECT permit_type, COUNT(*) AS permits FROM permits GROUP BY permit_type ORDER BY permits DESC',
  visual: (rows) => [
    'create_chart',
    {
      config: {
        title: { text: 'Permits by type' },
        tooltip: { trigger: 'axis' },
        xAxis: { type: 'category', data: rows.map((r) => r.permit_type) },
        yAxis: { type: 'value', name: 'Permits' },
        series: [{ type: 'bar', name: 'Permits', data: rows.map((r) => r.permits) }],
      },
    },
  ],
  summarize: ({ rows }) => {
    if (rows.length < 2) return `Found ${rows.length} permit type(s).`;
    const total = rows.reduce((s, r) => s + r.permits, 0);
    const [first, second] = rows;
    const share = (r) => `${Math.round((100 * r.permits) / total)}%`;
    return `There are ${count(total)} permits in ${rows.length} types. ${first.permit_type} leads with ${count(first.permits)} (${share(first)}), then ${second.permit_type} with ${count(second.permits)} (${share(second)}); the smallest is ${rows.at(-1).permit_type} with ${count(rows.at(-1).permits)}.`;
  },
});

const perMonth = (text) => {
  const f = typeFilter(text);
  return {
    reasoning: `Grouping ${f.label}permits by the month of issued_date (substr of the ISO date), then a line chart.`,
    sql: `SELECT substr(issued_date, 1, 7) AS month, COUNT(*) AS permits FROM permits ${f.where} GROUP BY month ORDER BY month`,
    visual: (rows) => [
      'create_chart',
      {
        config: {
          title: { text: `${f.type ?? 'All'} permits per month` },
          tooltip: { trigger: 'axis' },
          xAxis: { type: 'category', data: rows.map((r) => r.month) },
          yAxis: { type: 'value', name: 'Permits' },
          series: [{ type: 'line', name: 'Permits', smooth: true, areaStyle: {}, data: rows.map((r) => r.permits) }],
        },
      },
    ],
    summarize: ({ rows }) => {
      if (rows.length === 0) return 'No permits matched.';
      const total = rows.reduce((s, r) => s + r.permits, 0);
      const busiest = rows.reduce((a, b) => (b.permits > a.permits ? b : a));
      const quietest = rows.reduce((a, b) => (b.permits < a.permits ? b : a));
      return `${count(total)} ${f.label}permits over ${rows.length} months (${rows[0].month} to ${rows.at(-1).month}), ${(total / rows.length).toFixed(1)} a month on average. Busiest: ${busiest.month} with ${count(busiest.permits)}; quietest: ${quietest.month} with ${count(quietest.permits)}.`;
    },
  };
};

const onMap = (text) => {
  const f = typeFilter(text);
  return {
    reasoning: `Taking the 150 most recent ${f.label}permits with their coordinates and plotting them as GeoJSON points.`,
    sql: `SELECT permit_id, issued_date, permit_type, work_class, address, valuation, lat, lon FROM permits ${f.where} ORDER BY issued_date DESC, permit_id DESC LIMIT 150`,
    visual: (rows) => [
      'create_map',
      {
        data: {
          center: [mean(rows.map((r) => r.lat)), mean(rows.map((r) => r.lon))].map((v) => Math.round(v * 1e5) / 1e5),
          zoom: 11,
          geojson: {
            type: 'FeatureCollection',
            features: rows.map((r) => ({
              type: 'Feature',
              geometry: { type: 'Point', coordinates: [r.lon, r.lat] }, // GeoJSON order is [lon, lat]
              properties: {
                permit_id: r.permit_id,
                permit_type: r.permit_type,
                popup: `${r.permit_id}: ${r.permit_type} ${r.work_class}, ${r.address} (${usd(r.valuation)}, ${r.issued_date})`,
              },
            })),
          },
        },
      },
    ],
    summarize: ({ rows }) => {
      if (rows.length === 0) return 'No permits matched, so the map is empty.';
      const types = tally(rows.map((r) => r.permit_type));
      return `Mapped the ${rows.length} most recent ${f.label}permits, issued ${rows.at(-1).issued_date} to ${rows[0].issued_date}. Most common: ${types
        .map(([t, n]) => `${t} (${n})`)
        .slice(0, 3)
        .join(', ')}.`;
    },
  };
};

const largest = (text) => {
  const f = typeFilter(text);
  return {
    reasoning: `Ordering ${f.label}permits by valuation, top 10, and a horizontal bar chart of their values.`,
    sql: `SELECT permit_id, permit_type, work_class, description, address, valuation, contractor FROM permits ${f.where} ORDER BY valuation DESC LIMIT 10`,
    visual: (rows) => [
      'create_chart',
      {
        config: {
          title: { text: `Largest ${f.label}projects by valuation` },
          tooltip: { trigger: 'axis' },
          grid: { left: 160 },
          xAxis: { type: 'value', name: 'USD' },
          yAxis: { type: 'category', inverse: true, data: rows.map((r) => `${r.address} (${r.permit_id})`) },
          series: [{ type: 'bar', name: 'Valuation', data: rows.map((r) => r.valuation) }],
        },
      },
    ],
    summarize: ({ rows }) => {
      if (rows.length === 0) return 'No permits matched.';
      const top = rows
        .slice(0, 3)
        .map(
          (r, i) => `${i + 1}. ${r.permit_id}, ${r.description} at ${r.address}: ${usd(r.valuation)} (${r.contractor})`,
        );
      return `The ${rows.length} largest ${f.label}projects add up to ${usd(rows.reduce((s, r) => s + r.valuation, 0))}. Top three:\n${top.join('\n')}`;
    },
  };
};

const mean = (xs) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
function tally(values) {
  const counts = new Map();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || String(a[0]).localeCompare(String(b[0])));
}

// Phrase -> question, first match wins.
export const DATA_QUESTIONS = [
  { name: 'map', phrases: ['map'], build: onMap },
  { name: 'largest', phrases: ['largest', 'biggest', 'most expensive', 'top'], build: largest },
  { name: 'per month', phrases: ['per month', 'by month', 'monthly', 'over time'], build: perMonth },
  { name: 'by type', phrases: ['by type', 'how many', 'count'], build: byType },
];

export function pickDataQuestion(text) {
  const entry = DATA_QUESTIONS.find((q) => q.phrases.some((p) => new RegExp(`\\b${p}\\b`).test(text)));
  return entry ? entry.build(text) : null;
}

// "sql: SELECT ..." runs the user's own query, to show what execute_query accepts and refuses.
export function userQuery(raw) {
  const m = /^sql:\s*([\s\S]+)$/i.exec(raw);
  if (!m) return null;
  return {
    reasoning: 'Running your query as written; execute_query refuses anything but one read-only SELECT.',
    sql: m[1].trim(),
    visual: null,
    summarize: ({ columns, rows, truncated }) => {
      const preview = rows.slice(0, 5).map((r) => columns.map((c) => `${c}=${r[c]}`).join(', '));
      return `${rows.length}${truncated ? '+ (capped)' : ''} row(s), columns ${columns.join(', ')}.${preview.length ? `\n${preview.join('\n')}` : ''}`;
    },
  };
}
