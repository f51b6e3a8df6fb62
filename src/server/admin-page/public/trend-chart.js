// The data-health trend as a line chart in inline SVG: per mapped property, the share of records that
// had it filled at the end of each scan. Built with DOM nodes (no markup parsed, nothing loaded), so it
// runs under the page's CSP; the same numbers are in the trend table under it.
import { count, h, when } from './core.js';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 640;
const HEIGHT = 240;
const PAD = { left: 44, right: 12, top: 12, bottom: 28 };
// Eight hues that stay apart for the common forms of colour blindness (Okabe and Ito's palette).
const COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'];

function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  node.append(...children.flat().filter((c) => c !== undefined && c !== null));
  return node;
}

const share = (filled, records) => (records > 0 ? (100 * (filled ?? 0)) / records : 0);

/** A figure with the chart and its legend; `trend` oldest first, as the report gives it. */
export function trendChart(trend, properties) {
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const x = (i) => PAD.left + (trend.length > 1 ? (i * plotW) / (trend.length - 1) : plotW / 2);
  const y = (percent) => PAD.top + plotH - (percent * plotH) / 100;
  const grid = [0, 25, 50, 75, 100].map((p) => [
    s('line', { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(p), y2: y(p), class: 'grid' }),
    s('text', { x: PAD.left - 6, y: y(p) + 4, 'text-anchor': 'end' }, `${p}%`),
  ]);
  const ends = trend.length > 1 ? [0, trend.length - 1] : [0];
  const dates = ends.map((i) =>
    s(
      'text',
      { x: x(i), y: HEIGHT - 8, 'text-anchor': trend.length > 1 ? (i === 0 ? 'start' : 'end') : 'middle' },
      when(trend[i].finishedAt),
    ),
  );
  const series = properties.map((property, k) => {
    const colour = COLOURS[k % COLOURS.length];
    const points = trend.map((t, i) => [x(i), y(share(t.filled[property], t.records))]);
    return s(
      'g',
      { class: 'series', 'data-property': property, stroke: colour, fill: colour },
      points.length > 1
        ? s('polyline', {
            points: points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' '),
            fill: 'none',
          })
        : null,
      points.map(([px, py], i) =>
        s(
          'circle',
          { cx: px.toFixed(1), cy: py.toFixed(1), r: 3 },
          s(
            'title',
            {},
            `${property}: ${share(trend[i].filled[property], trend[i].records).toFixed(1)}% filled ` +
              `(${count(trend[i].filled[property] ?? 0)} of ${count(trend[i].records)}), ${when(trend[i].finishedAt)}`,
          ),
        ),
      ),
    );
  });
  const svg = s(
    'svg',
    {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: 'img',
      'aria-labelledby': 'health-trend-title',
      class: 'trend-chart',
    },
    s('title', { id: 'health-trend-title' }, 'Share of records with each property filled, scan by scan'),
    grid,
    dates,
    series,
  );
  return h(
    'figure',
    { class: 'chart health-trend' },
    h('figcaption', {}, 'Trend: share of records with each property filled, scan by scan'),
    svg,
    h(
      'ul',
      { class: 'legend' },
      properties.map((property, k) =>
        h(
          'li',
          {},
          // A presentation attribute, not a style: the page's CSP allows no inline styles.
          s(
            'svg',
            { viewBox: '0 0 10 10', class: 'swatch', 'aria-hidden': 'true' },
            s('rect', { width: 10, height: 10, fill: COLOURS[k % COLOURS.length] }),
          ),
          property,
        ),
      ),
    ),
  );
}
