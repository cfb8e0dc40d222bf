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

const AXIS_TYPES = new Set(['category', 'value', 'time', 'log']);
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const axisFrom = (axis) => {
  if (!isObject(axis) || axis.type === undefined || AXIS_TYPES.has(axis.type)) return axis;
  const { type, ...rest } = axis; // a type still being written ("categ"): the default until it is whole
  return rest;
};

/**
 * The chart create_chart's arguments so far imply ({config}, as the runtime's tool_call_partial
 * hands them: open strings closed, half-written numbers left out), or null before there is a
 * config. Read-only on `args` (the runtime grows it in place): the option is new containers over
 * its values, and renderChart copies it again before ECharts sees it. A series is drawn once its
 * type is a whole supported name (a half-written "li" would make ECharts throw), an axis type
 * only once it is whole.
 */
export function chartFromArgs(args) {
  const config = isObject(args) && isObject(args.config) ? args.config : null;
  if (!config) return null;
  const option = {};
  for (const [key, value] of Object.entries(config)) {
    if (key === 'xAxis' || key === 'yAxis') option[key] = Array.isArray(value) ? value.map(axisFrom) : axisFrom(value);
    else if (key !== 'series') option[key] = value;
  }
  const series = Array.isArray(config.series) ? config.series : isObject(config.series) ? [config.series] : [];
  option.series = series.filter((s) => isObject(s) && SUPPORTED_SERIES.includes(s.type));
  return option;
}

/** The data points a chart holds, as ECharts has them (every series' data). */
function countPoints(chart) {
  const series = chart.getOption()?.series ?? [];
  return series.reduce((n, s) => n + (Array.isArray(s?.data) ? s.data.length : 0), 0);
}

/**
 * Draws the chart into `host` (which must be in the page). Returns {update(content), dispose(),
 * pointCount}.
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
    get pointCount() {
      return countPoints(chart);
    },
    dispose() {
      observer.disconnect();
      chart.dispose();
    },
  };
}
