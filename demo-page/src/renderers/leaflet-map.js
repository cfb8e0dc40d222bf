// Renders an application/json+leaflet activity ({center: [lat, lon], zoom?, geojson}) with Leaflet,
// without any tile layer: no request leaves the machine. Points are circle markers (no icon
// images) over a plain background with a coordinate grid; popups are built as text nodes.
import * as L from 'leaflet/dist/leaflet-src.esm.js';

const PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#4b5563'];
const CATEGORY_KEYS = ['permit_type', 'category', 'type', 'kind'];

/** Accepts the documented shape and a few near misses (the content comes from a model). */
export function normalizeMapContent(content) {
  const c = content && typeof content === 'object' ? (content.data ?? content) : {};
  let geojson = c.geojson ?? (c.type === 'FeatureCollection' || c.type === 'Feature' ? c : null);
  if (!geojson && Array.isArray(c.markers)) {
    geojson = {
      type: 'FeatureCollection',
      features: c.markers
        .filter((m) => Number.isFinite(Number(m?.lat)) && Number.isFinite(Number(m?.lon ?? m?.lng)))
        .map((m) => ({
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [Number(m.lon ?? m.lng), Number(m.lat)] },
          properties: { popup: m.popup ?? m.label ?? '' },
        })),
    };
  }
  const center = Array.isArray(c.center) && c.center.length === 2 ? c.center.map(Number) : null;
  const zoom = Number.isFinite(c.zoom) ? c.zoom : 11;
  return { center, zoom, geojson: geojson ?? { type: 'FeatureCollection', features: [] } };
}

function categoryOf(feature) {
  const p = feature?.properties ?? {};
  const key = CATEGORY_KEYS.find((k) => typeof p[k] === 'string' || typeof p[k] === 'number');
  return key ? String(p[key]) : null;
}

function popupText(feature) {
  const p = feature?.properties ?? {};
  if (typeof p.popup === 'string' || typeof p.popup === 'number') return String(p.popup);
  const lines = Object.entries(p)
    .filter(([, v]) => v === null || typeof v !== 'object')
    .slice(0, 8)
    .map(([k, v]) => `${k}: ${v}`);
  return lines.join('\n');
}

function niceStep(span) {
  const raw = Math.max(span / 6, 1e-4);
  const pow = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw);
}

// A light lat/lon grid, so the markers have a frame of reference without map tiles.
function addGraticule(target, bounds) {
  const pad = 0.6;
  const south = bounds.getSouth() - (bounds.getNorth() - bounds.getSouth()) * pad - 0.01;
  const north = bounds.getNorth() + (bounds.getNorth() - bounds.getSouth()) * pad + 0.01;
  const west = bounds.getWest() - (bounds.getEast() - bounds.getWest()) * pad - 0.01;
  const east = bounds.getEast() + (bounds.getEast() - bounds.getWest()) * pad + 0.01;
  const step = niceStep(Math.max(north - south, east - west));
  const style = { color: '#94a3b8', weight: 1, opacity: 0.45, interactive: false, className: 'graticule' };
  const lines = [];
  for (let lat = Math.ceil(south / step) * step; lat <= north; lat += step)
    lines.push([
      [lat, west],
      [lat, east],
    ]);
  for (let lon = Math.ceil(west / step) * step; lon <= east; lon += step)
    lines.push([
      [south, lon],
      [north, lon],
    ]);
  L.polyline(lines, style).addTo(target);
}

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const isLonLat = (c) => Array.isArray(c) && c.length >= 2 && Number.isFinite(c[0]) && Number.isFinite(c[1]);

/**
 * The map create_map's arguments so far imply ({data: {center, zoom, geojson}}, as the runtime's
 * tool_call_partial hands them: open strings closed, half-written numbers left out), or null
 * before there is a data object. Read-only on `args` (the runtime grows it in place): a new
 * FeatureCollection of the Point features whose coordinates are whole (a feature still being
 * written, or a half-written "Poi" type, would make Leaflet throw), each with a copy of its
 * properties so far.
 */
export function mapFromArgs(args) {
  const data = isObject(args) && isObject(args.data) ? args.data : null;
  if (!data) return null;
  const features = [];
  for (const f of Array.isArray(data.geojson?.features) ? data.geojson.features : []) {
    const coordinates = f?.geometry?.type === 'Point' ? f.geometry.coordinates : null;
    if (!isLonLat(coordinates)) continue;
    features.push({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [coordinates[0], coordinates[1]] },
      properties: isObject(f.properties) ? { ...f.properties } : {},
    });
  }
  const center = isLonLat(data.center) && data.center.length === 2 ? [data.center[0], data.center[1]] : undefined;
  const zoom = Number.isFinite(data.zoom) ? data.zoom : undefined;
  return { center, zoom, geojson: { type: 'FeatureCollection', features } };
}

/**
 * Draws the map into `host`. Returns {update(content, {live}), dispose(), markerCount}. One
 * Leaflet map, its layers redrawn on update; a `live` update (arguments still streaming) keeps
 * the view on the center instead of fitting it to the points, so the map holds still as they
 * arrive.
 */
export function renderMap(host, content, { live = false } = {}) {
  const mapEl = document.createElement('div');
  mapEl.className = 'leaflet-map';
  const legend = document.createElement('div');
  legend.className = 'map-legend';
  host.append(mapEl, legend);
  let map = L.map(mapEl, { attributionControl: true, zoomControl: true, preferCanvas: false, worldCopyJump: false });
  map.attributionControl.setPrefix(false);
  map.attributionControl.addAttribution('No map tiles: drawn offline');
  L.control.scale({ imperial: false }).addTo(map);
  let drawn = null; // the layers of the last draw
  let lastView = null; // the view a live draw set
  let observer = null;
  let fit = null;
  const state = { markerCount: 0 };

  const draw = (raw, { live = false } = {}) => {
    drawn?.remove();
    drawn = L.layerGroup().addTo(map);
    legend.replaceChildren();
    const { center, zoom, geojson } = normalizeMapContent(raw);
    const colors = new Map();
    const colorOf = (cat) => {
      if (cat === null) return PALETTE[0];
      if (!colors.has(cat)) colors.set(cat, PALETTE[colors.size % PALETTE.length]);
      return colors.get(cat);
    };
    let markers = 0;
    const layer = L.geoJSON(geojson, {
      pointToLayer: (feature, latlng) => {
        markers += 1;
        const color = colorOf(categoryOf(feature));
        return L.circleMarker(latlng, {
          radius: 6,
          color: '#ffffff',
          weight: 1.5,
          fillColor: color,
          fillOpacity: 0.9,
          className: 'map-marker',
        });
      },
      // Applied to every vector layer, circle markers included: only style lines and polygons.
      style: (feature) =>
        feature?.geometry?.type === 'Point' || feature?.geometry?.type === 'MultiPoint'
          ? {}
          : { color: PALETTE[0], weight: 2, fillOpacity: 0.15 },
      onEachFeature: (feature, lyr) => {
        const text = popupText(feature);
        if (!text) return;
        // A DOM node, not a string: Leaflet would set a string as innerHTML.
        const el = document.createElement('div');
        el.className = 'map-popup';
        el.textContent = text;
        lyr.bindPopup(el, { minWidth: 200, maxWidth: 320 });
      },
    });
    state.markerCount = markers;
    const bounds = layer.getBounds();
    const start = center ?? (bounds.isValid() ? [bounds.getCenter().lat, bounds.getCenter().lng] : [0, 0]);
    const view = [start, center || bounds.isValid() ? zoom : 1];
    // Live: only a new center or zoom moves the view (resetting it every frame would be work for
    // nothing, and would undo the user's panning).
    if (!live || JSON.stringify(view) !== lastView) map.setView(...view, { animate: false });
    lastView = live ? JSON.stringify(view) : null;
    if (bounds.isValid()) addGraticule(drawn, bounds);
    else if (center) addGraticule(drawn, L.latLngBounds([center, center]));
    // Fitting needs a size: a map drawn in a hidden thread fits when it is first shown.
    fit = live
      ? null
      : () => {
          if (bounds.isValid()) map.fitBounds(bounds, { padding: [24, 24], maxZoom: zoom + 2 });
        };
    if (fit && mapEl.clientWidth > 0) {
      fit();
      fit = null;
    }
    layer.addTo(drawn);
    if (center) {
      L.circleMarker(center, {
        radius: 4,
        color: '#111827',
        weight: 2,
        fill: false,
        interactive: false,
        className: 'map-center',
      }).addTo(drawn);
    }
    for (const [cat, color] of colors) {
      const dot = document.createElement('span');
      dot.className = 'legend-dot';
      dot.style.background = color;
      const item = document.createElement('span');
      item.className = 'legend-item';
      item.append(dot, document.createTextNode(cat));
      legend.append(item);
    }
    const count = document.createElement('span');
    count.className = 'legend-count';
    count.textContent = `${markers} point${markers === 1 ? '' : 's'}`;
    legend.append(count);
  };
  draw(content, { live });
  observer = new ResizeObserver(() => {
    if (!map || mapEl.clientWidth === 0) return;
    map.invalidateSize();
    if (fit) {
      fit();
      fit = null;
    }
  });
  observer.observe(mapEl);
  return {
    update: draw,
    get markerCount() {
      return state.markerCount;
    },
    dispose() {
      observer?.disconnect();
      map?.remove();
      map = null;
    },
  };
}
