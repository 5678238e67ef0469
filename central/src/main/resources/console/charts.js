// The live charts of an edge's panel: the protection gauges the edge reports to central on its
// report stream (GET /configuration/edges/<id>/metrics), the last 15 minutes, redrawn every report
// interval while the panel is on screen. Drawn as SVG by hand: four kinds of line chart need no
// library, and nothing is fetched from anywhere but central.

import { edgePath, request } from './api.js';
import { h, replace, time } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
// The window shown: the shortest of these that holds every point (central keeps 15 minutes), so a
// freshly connected edge is not drawn as a sliver at the right. Ticks in seconds before now.
const WINDOWS = [
  { ms: 60 * 1000, ticks: [60, 40, 20, 0] },
  { ms: 5 * 60 * 1000, ticks: [300, 240, 180, 120, 60, 0] },
  { ms: 15 * 60 * 1000, ticks: [900, 600, 300, 0] },
];
const TIERS = ['start', 'continuation', 'proxy'];
const CHARTED_PEERS = 4;
// The drawing's own units; CSS scales the whole picture to the card's width.
const WIDTH = 320;
const HEIGHT = 120;
const LEFT = 40;
const RIGHT = 8;
const TOP = 8;
const BOTTOM = 18;

/** The "Live protection" card of edge id; it polls for as long as it stays in the page. */
export function chartsCard(id) {
  const body = h('div', { class: 'charts' }, h('p', { class: 'loading', text: 'Loading the reported gauges…' }));
  const note = h('p', { class: 'help', 'aria-live': 'polite' });
  const section = h('section', { class: 'card live', 'aria-labelledby': 'card-live' },
    h('h2', { id: 'card-live', text: 'Live protection' }),
    h('p', { class: 'help', text: 'What this edge reported over the last 15 minutes: inbound admission, refusals by tier, '
      + 'executor lag, and the outbound guard per peer. Times are in your browser\'s zone.' }),
    body, note);
  poll(id, section, body, note);
  return section;
}

async function poll(id, section, body, note) {
  let waitMs = 5000;
  // The first round runs before the card is attached; later rounds stop once it has left the page.
  for (let round = 0; round === 0 || section.isConnected; round += 1) {
    try {
      const metrics = await request('GET', `${edgePath(id)}/metrics`);
      waitMs = Math.min(30000, Math.max(2000, (metrics.intervalSeconds || 5) * 1000));
      draw(body, metrics);
      replace(note, metrics.points.length === 0 ? ''
        : ['Last report ', time(new Date(metrics.points[metrics.points.length - 1].t).toISOString()),
          `; every ${metrics.intervalSeconds} s.`]);
    } catch (error) {
      replace(note, h('span', { class: 'error', text: `Could not load the reported gauges: ${error.message}` }));
    }
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}

function draw(body, metrics) {
  const points = metrics.points;
  if (points.length === 0) {
    replace(body, h('p', { class: 'empty', text: 'No reports yet: the edge sends them every few seconds once it is '
      + 'connected (central keeps them in memory only, for 15 minutes).' }));
    return;
  }
  const last = points[points.length - 1];
  const view = { now: Math.max(Date.now(), last.t) };
  view.window = WINDOWS.find((w) => view.now - points[0].t <= w.ms) || WINDOWS[WINDOWS.length - 1];
  const gapMs = 2.5 * (metrics.intervalSeconds || 5) * 1000;
  const charts = [
    chart({
      kind: 'admission', title: 'Admission limit and in flight',
      summary: `now: mode ${last.mode}, limit ${last.limit}, in flight ${last.inFlight}`,
      series: [
        { name: 'limit', cls: 's-limit', values: points.map((p) => [p.t, p.limit]) },
        { name: 'in flight', cls: 's-inflight', values: points.map((p) => [p.t, p.inFlight]) },
      ],
    }, view, gapMs),
    refusalsChart(points, view, gapMs),
    chart({
      kind: 'lag', title: 'Executor lag (ms)', summary: `now: ${last.lagMs} ms`,
      series: [{ name: 'lag', cls: 's-lag', values: points.map((p) => [p.t, p.lagMs]) }],
    }, view, gapMs),
    ...peerCharts(points, view, gapMs),
  ];
  replace(body, charts);
}

function refusalsChart(points, view, gapMs) {
  const minutes = view.window.ms / 60000;
  const series = [];
  let total = 0;
  for (const mode of ['enforce', 'shadow']) {
    for (const tier of TIERS) {
      const values = points.map((p) => [p.t, ((p.refused || {})[mode] || {})[tier] || 0]);
      const sum = values.reduce((acc, [, v]) => acc + v, 0);
      if (sum > 0) {
        total += sum;
        series.push({ name: `${tier} (${mode})`, cls: `s-${tier}`, dashed: mode === 'shadow', values });
      }
    }
  }
  const figure = chart({
    kind: 'refusals', title: 'Refusals per interval, by tier (dashed: shadow, would have refused)',
    summary: `${total === 0 ? 'none' : total} in the last ${minutes} min`,
    series: series.length > 0 ? series : [{ name: 'refusals', cls: 's-none', values: points.map((p) => [p.t, 0]) }],
  }, view, gapMs);
  figure.dataset.total = String(total);
  return figure;
}

/** A chart per peer with the most in flight (in flight, waiting, breaker state); the rest listed. */
function peerCharts(points, view, gapMs) {
  const last = points[points.length - 1];
  const busiest = new Map();
  for (const p of points) {
    for (const [name, peer] of Object.entries(p.peers || {})) {
      busiest.set(name, Math.max(busiest.get(name) || 0, peer.inFlight + peer.waiting));
    }
  }
  const names = [...busiest.keys()].sort((a, b) => busiest.get(b) - busiest.get(a) || a.localeCompare(b));
  const charted = names.slice(0, CHARTED_PEERS);
  const figures = charted.map((name) => {
    const current = (last.peers || {})[name];
    const breaker = current ? current.breaker : 'not reported';
    const figure = chart({
      kind: 'peer', title: `Outbound guard: ${name}`,
      summary: current ? `now: in flight ${current.inFlight}, waiting ${current.waiting}, breaker ${breaker.replace('_', '-')}`
        : 'not in the last report',
      series: [
        { name: 'in flight', cls: 's-inflight', values: points.map((p) => [p.t, ((p.peers || {})[name] || {}).inFlight]) },
        { name: 'waiting', cls: 's-waiting', dashed: true, values: points.map((p) => [p.t, ((p.peers || {})[name] || {}).waiting]) },
      ],
    }, view, gapMs);
    figure.dataset.breaker = breaker;
    return figure;
  });
  const rest = names.slice(CHARTED_PEERS);
  if (rest.length > 0) {
    figures.push(h('p', { class: 'help' }, `${rest.length} more ${rest.length === 1 ? 'peer' : 'peers'}: `,
      rest.map((name, i) => [i > 0 ? ', ' : '', h('code', { text: name }),
        ` (${(((last.peers || {})[name] || {}).breaker || 'not reported').replace('_', '-')})`])));
  }
  if (names.length === 0) {
    figures.push(h('p', { class: 'help', text: 'No outbound guard peers reported.' }));
  }
  return figures;
}

/**
 * One line chart: a figure with its caption (title and the latest values), the SVG and a legend.
 * spec: { kind, title, summary, series: [{ name, cls, dashed, values: [[t, v], ...] }] }; a value
 * that is undefined, or a gap in time longer than gapMs, breaks the line.
 */
function chart(spec, view, gapMs) {
  const { now } = view;
  const windowMs = view.window.ms;
  const from = now - windowMs;
  let max = 0;
  for (const s of spec.series) {
    for (const [t, v] of s.values) {
      if (t >= from && Number.isFinite(v)) {
        max = Math.max(max, v);
      }
    }
  }
  const top = niceCeiling(max);
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = HEIGHT - TOP - BOTTOM;
  const x = (t) => LEFT + ((t - from) / windowMs) * plotW;
  const y = (v) => TOP + plotH - (v / top) * plotH;

  const svg = svgEl('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'plot', role: 'img',
    'aria-label': `${spec.title}: ${spec.summary}` });
  for (const v of [0, top / 2, top]) {
    svg.appendChild(svgEl('line', { class: 'grid', x1: LEFT, x2: WIDTH - RIGHT, y1: y(v), y2: y(v) }));
    svg.appendChild(svgText(LEFT - 4, y(v) + 3, formatTick(v), 'tick end'));
  }
  const ticks = view.window.ticks;
  ticks.forEach((seconds, i) => {
    const anchor = i === 0 ? 'start' : i === ticks.length - 1 ? 'end' : 'middle';
    svg.appendChild(svgText(x(now - seconds * 1000), HEIGHT - 4, tickLabel(seconds), `tick ${anchor}`));
  });
  for (const s of spec.series) {
    for (const run of runs(s.values, from, gapMs)) {
      const attrs = { class: `line ${s.cls}${s.dashed ? ' dashed' : ''}`,
        points: run.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(' ') };
      svg.appendChild(svgEl(run.length === 1 ? 'circle' : 'polyline', run.length === 1
        ? { class: attrs.class, cx: x(run[0][0]).toFixed(1), cy: y(run[0][1]).toFixed(1), r: 1.5 } : attrs));
    }
  }
  const legend = h('ul', { class: 'legend' }, spec.series.map((s) =>
    h('li', {}, h('span', { class: `swatch ${s.cls}${s.dashed ? ' dashed' : ''}`, 'aria-hidden': 'true' }), s.name)));
  return h('figure', { class: `chart ${spec.kind}` },
    h('figcaption', {}, h('strong', { text: spec.title }), h('span', { class: 'muted', text: ` — ${spec.summary}` })),
    svg, legend);
}

/** The points inside the window, cut where a value is missing or the edge was silent too long. */
function runs(values, from, gapMs) {
  const out = [];
  let run = [];
  let previous = null;
  for (const [t, v] of values) {
    if (t < from || !Number.isFinite(v)) {
      if (run.length > 0) {
        out.push(run);
      }
      run = [];
      previous = null;
      continue;
    }
    if (previous !== null && t - previous > gapMs && run.length > 0) {
      out.push(run);
      run = [];
    }
    run.push([t, v]);
    previous = t;
  }
  if (run.length > 0) {
    out.push(run);
  }
  return out;
}

function tickLabel(seconds) {
  if (seconds === 0) {
    return 'now';
  }
  return seconds < 60 || seconds % 60 !== 0 ? `−${seconds} s` : `−${seconds / 60} min`;
}

/** 1, 2 or 5 times a power of ten, at least 1 and not below max. */
function niceCeiling(max) {
  if (!(max > 1)) {
    return 1;
  }
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) {
    if (step * power >= max) {
      return step * power;
    }
  }
  return 10 * power;
}

function formatTick(v) {
  if (v >= 1e6) {
    return `${+(v / 1e6).toFixed(1)}M`;
  }
  if (v >= 1e4) {
    return `${+(v / 1e3).toFixed(1)}k`;
  }
  return String(+v.toFixed(1));
}

function svgEl(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) {
    el.setAttribute(name, String(value));
  }
  return el;
}

function svgText(x, y, text, cls) {
  const el = svgEl('text', { x: x.toFixed(1), y: y.toFixed(1), class: cls });
  el.textContent = text;
  return el;
}
