// Renders an application/json+echart activity: the content is an ECharts option, drawn with the
// canvas renderer. The option comes from the model, so it is cleaned first: no HTML tooltips
// (a formatter string would be HTML), no links, no toolbox, no images fetched from anywhere.
import * as echarts from 'echarts/core';
import {
  BarChart,
  BoxplotChart,
  CandlestickChart,
  FunnelChart,
  GaugeChart,
  HeatmapChart,
  LineChart,
  PieChart,
  RadarChart,
  ScatterChart,
  SunburstChart,
  TreemapChart,
} from 'echarts/charts';
import {
  AriaComponent,
  DatasetComponent,
  DataZoomComponent,
  GridComponent,
  LegendComponent,
  MarkAreaComponent,
  MarkLineComponent,
  MarkPointComponent,
  PolarComponent,
  TitleComponent,
  TooltipComponent,
  TransformComponent,
  VisualMapComponent,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';

echarts.use([
  BarChart,
  BoxplotChart,
  CandlestickChart,
  FunnelChart,
  GaugeChart,
  HeatmapChart,
  LineChart,
  PieChart,
  RadarChart,
  ScatterChart,
  SunburstChart,
  TreemapChart,
  AriaComponent,
  DatasetComponent,
  DataZoomComponent,
  GridComponent,
  LegendComponent,
  MarkAreaComponent,
  MarkLineComponent,
  MarkPointComponent,
  PolarComponent,
  TitleComponent,
  TooltipComponent,
  TransformComponent,
  VisualMapComponent,
  CanvasRenderer,
]);

export const SUPPORTED_SERIES = [
  'bar',
  'boxplot',
  'candlestick',
  'funnel',
  'gauge',
  'heatmap',
  'line',
  'pie',
  'radar',
  'scatter',
  'sunburst',
  'treemap',
];

const DROP_KEYS = new Set(['toolbox', 'graphic', 'link', 'sublink']);

// A deep copy without anything that could run HTML or reach the network.
function clean(value, depth = 0) {
  if (depth > 40) return undefined;
  if (typeof value === 'string') return value.startsWith('image://') ? 'circle' : value;
  if (Array.isArray(value)) return value.map((v) => clean(v, depth + 1));
  if (!value || typeof value !== 'object') return value;
  const out = {};
  for (const [key, v] of Object.entries(value)) {
    if (DROP_KEYS.has(key)) continue;
    if (key === 'image' && typeof v === 'string') continue; // rich-text background images are fetched
    out[key] = clean(v, depth + 1);
  }
  return out;
}

function forceRichTextTooltips(option) {
  const fix = (t) => (t && typeof t === 'object' ? { ...t, renderMode: 'richText', enterable: false } : t);
  if (Array.isArray(option.tooltip)) option.tooltip = option.tooltip.map(fix);
  else if (option.tooltip) option.tooltip = fix(option.tooltip);
  const series = Array.isArray(option.series) ? option.series : option.series ? [option.series] : [];
  for (const s of series) if (s && typeof s === 'object' && s.tooltip) s.tooltip = fix(s.tooltip);
  return series;
}

export function safeOption(content) {
  const option = clean(content ?? {});
  const series = forceRichTextTooltips(option);
  const unsupported = [...new Set(series.map((s) => s?.type).filter((t) => t && !SUPPORTED_SERIES.includes(t)))];
  option.animation = option.animation ?? false; // steady pixels for screenshots and tests
  if (option.backgroundColor === undefined) option.backgroundColor = '#ffffff';
  // A model rarely sizes the grid: keep axis labels inside the card without a wide margin.
  if (option.grid === undefined && (option.xAxis !== undefined || option.yAxis !== undefined)) {
    option.grid = { left: 16, right: 24, top: option.title ? 64 : 32, bottom: 16, containLabel: true };
  } else if (
    option.grid &&
    typeof option.grid === 'object' &&
    !Array.isArray(option.grid) &&
    option.grid.bottom === undefined
  ) {
    option.grid = { ...option.grid, bottom: 40 }; // ECharts' default leaves a wide empty band
  }
  return { option, unsupported };
}

/**
 * Draws the chart into `host` (which must be in the page). Returns {update(content), dispose()}.
 */
export function renderChart(host, content, { onWarning } = {}) {
  const canvasHost = document.createElement('div');
  canvasHost.className = 'echart-canvas';
  host.append(canvasHost);
  const chart = echarts.init(canvasHost, null, { renderer: 'canvas' });
  const apply = (c) => {
    const { option, unsupported } = safeOption(c);
    if (unsupported.length) onWarning?.(`series type not supported here: ${unsupported.join(', ')}`);
    chart.setOption(option, { notMerge: true });
  };
  apply(content);
  // Charts in a hidden thread have no size yet: draw them when they get one.
  const observer = new ResizeObserver(() => chart.resize());
  observer.observe(canvasHost);
  return {
    update: apply,
    dispose() {
      observer.disconnect();
      chart.dispose();
    },
  };
}
