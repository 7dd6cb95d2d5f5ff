// A step chart in SVG: counts hold from one sample to the next (a sample is the last counts seen
// in its hour), stacked when the series add up to a whole (tiers), lines otherwise.

const NS = 'http://www.w3.org/2000/svg';
const s = (tag, attrs = {}, ...kids) => {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const k of kids) el.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return el;
};

/**
 * points: [{ at, values: { key: number } }] oldest first; series: [{ key, label, color }].
 * Returns an <svg> (with a <title> per series for screen readers and hover) and a legend.
 */
export function stepChart(points, series, opts = {}) {
  const width = opts.width ?? 640;
  const height = opts.height ?? 180;
  const pad = { l: 44, r: 12, t: 10, b: 24 };
  const wrap = document.createElement('figure');
  wrap.className = 'chart';
  if (points.length === 0) {
    wrap.append(Object.assign(document.createElement('p'), { className: 'muted', textContent: 'No samples yet.' }));
    return wrap;
  }
  const times = points.map((p) => Date.parse(p.at));
  const t0 = times[0];
  // The last point (now) gets some width of its own, or the current counts would be a hairline.
  const last = times[times.length - 1];
  const t1 = last + Math.max(3_600_000, (last - t0) * 0.06);
  const totals = points.map((p) => (opts.stacked ? series.reduce((a, x) => a + (p.values[x.key] ?? 0), 0) : Math.max(0, ...series.map((x) => p.values[x.key] ?? 0))));
  const yMax = Math.max(1, ...totals);
  const x = (t) => pad.l + ((t - t0) / (t1 - t0)) * (width - pad.l - pad.r);
  const y = (v) => height - pad.b - (v / yMax) * (height - pad.t - pad.b);
  const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': opts.label ?? 'chart', class: 'chart-svg' });

  // Axes: zero, max, first and last time.
  svg.append(s('line', { x1: pad.l, y1: y(0), x2: width - pad.r, y2: y(0), class: 'axis' }));
  svg.append(s('text', { x: pad.l - 6, y: y(0) + 4, 'text-anchor': 'end', class: 'tick' }, '0'));
  svg.append(s('text', { x: pad.l - 6, y: y(yMax) + 4, 'text-anchor': 'end', class: 'tick' }, String(yMax)));
  const day = (t) => new Date(t).toISOString().slice(0, 16).replace('T', ' ');
  svg.append(s('text', { x: pad.l, y: height - 6, class: 'tick' }, day(t0)));
  svg.append(s('text', { x: width - pad.r, y: height - 6, 'text-anchor': 'end', class: 'tick' }, `${day(last)} (now)`));

  // Each point holds until the next one (the last until the right edge).
  const stepPath = (vals) => {
    let d = '';
    vals.forEach((v, i) => {
      const xa = x(times[i]);
      const xb = i + 1 < vals.length ? x(times[i + 1]) : x(t1);
      d += `${i === 0 ? 'M' : 'L'}${xa.toFixed(1)},${y(v).toFixed(1)}L${xb.toFixed(1)},${y(v).toFixed(1)}`;
    });
    return d;
  };
  const base = points.map(() => 0);
  for (const ser of series) {
    const vals = points.map((p) => p.values[ser.key] ?? 0);
    if (opts.stacked) {
      const top = vals.map((v, i) => base[i] + v);
      const upper = stepPath(top);
      const lower = stepPath(base.slice())
        .split(/(?=[ML])/)
        .reverse()
        .map((seg) => `L${seg.slice(1)}`)
        .join('');
      svg.append(
        s('path', { d: `${upper}${lower}Z`, fill: ser.color, 'fill-opacity': 0.55, stroke: ser.color, 'stroke-width': 1, 'data-series': ser.key }, s('title', {}, ser.label)),
      );
      top.forEach((v, i) => (base[i] = v));
    } else {
      svg.append(s('path', { d: stepPath(vals), fill: 'none', stroke: ser.color, 'stroke-width': 2, 'data-series': ser.key }, s('title', {}, ser.label)));
    }
  }
  wrap.append(svg);
  const legend = document.createElement('figcaption');
  legend.className = 'legend';
  for (const ser of series) {
    const item = document.createElement('span');
    const sw = document.createElement('i');
    sw.style.background = ser.color;
    const last = points[points.length - 1].values[ser.key] ?? 0;
    item.append(sw, document.createTextNode(`${ser.label} ${last}`));
    legend.append(item);
  }
  wrap.append(legend);
  return wrap;
}
