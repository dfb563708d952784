// Live charts of the sampled history (GET api/history), drawn with uPlot (the global `uPlot`
// from uPlot.iife.min.js, shipped in these assets). A chart is rebuilt when its set of series
// changes (a stream or group appeared) and otherwise only given new data.
const PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#4b5563'];
const MAX_SERIES = PALETTE.length;
const HEIGHT = 170;

export class LiveChart {
  constructor(el) {
    this.el = el;
    this.plot = null;
    this.labels = '';
  }

  /** xs: unix seconds; series: [{ label, values }] aligned with xs (null = no value). */
  draw(xs, series) {
    // The busiest series are the ones worth a colour.
    const peak = (s) => Math.max(0, ...s.values.filter((v) => v !== null));
    const shown = [...series].sort((a, b) => peak(b) - peak(a) || a.label.localeCompare(b.label)).slice(0, MAX_SERIES);
    shown.sort((a, b) => a.label.localeCompare(b.label));
    const labels = shown.map((s) => s.label).join('\n');
    const data = [xs, ...shown.map((s) => s.values)];
    if (this.plot === null || labels !== this.labels) {
      if (this.plot !== null) this.plot.destroy();
      this.labels = labels;
      const opts = {
        width: this.width(),
        height: HEIGHT,
        scales: { x: { time: true }, y: { range: (_u, min, max) => [0, Math.max(1, max * 1.1)] } },
        axes: [{}, { size: 56 }],
        series: [{}, ...shown.map((s, i) => ({ label: s.label, stroke: PALETTE[i], width: 1.5 }))],
        legend: { live: false },
        cursor: { drag: { x: false, y: false } },
      };
      this.plot = new uPlot(opts, data, this.el);
    } else {
      this.plot.setData(data);
    }
    this.el.dataset.points = String(xs.length);
    this.el.dataset.series = String(shown.length);
  }

  width() {
    return Math.max(240, this.el.clientWidth);
  }

  resize() {
    if (this.plot !== null) this.plot.setSize({ width: this.width(), height: HEIGHT });
  }
}

/** Turns history points into the two charts' series: rate per stream, lag per stream/group. */
export function seriesOf(points) {
  const xs = points.map((p) => p.t / 1000);
  const streams = new Set();
  const groups = new Map();
  for (const p of points) {
    for (const [name, s] of Object.entries(p.streams)) {
      streams.add(name);
      for (const g of Object.keys(s.groups)) groups.set(`${name} / ${g}`, [name, g]);
    }
  }
  const rate = [...streams].map((name) => ({ label: name, values: points.map((p) => p.streams[name]?.rate ?? null) }));
  const lag = [...groups].map(([label, [name, g]]) => ({ label, values: points.map((p) => p.streams[name]?.groups[g]?.lag ?? null) }));
  return { xs, rate, lag };
}
