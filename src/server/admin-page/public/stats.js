// Stats: charts over a chosen period (GET stats/series) above today's numbers (GET stats), refreshed
// every 30 seconds while the tab is shown. A refresh updates each chart and its table in place, so the
// reader keeps their scroll position and any "Show data" they opened.
import {
  $,
  api,
  count,
  crmName,
  definitions,
  errorView,
  h,
  humanize,
  plural,
  queueName,
  run,
  table,
  when,
} from './core.js';

const STATUS_NAMES = {
  enriched: 'Enriched',
  no_match: 'No match',
  pending: 'Waiting',
  failed: 'Failed',
  skipped: 'Skipped',
};
const RANGE_TEXT = {
  '1h': 'the last hour',
  '24h': 'the last 24 hours',
  '7d': 'the last 7 days',
  '30d': 'the last 30 days',
};
// Each at least 4.5:1 against white, so a line or bar reads as well as text would.
const INK = '#1c2430';
const COLOURS = {
  blue: '#1f5fbf',
  grey: '#5b6675',
  orange: '#a84f00',
  red: '#a4262c',
  green: '#1e6b35',
  purple: '#6a3d9a',
};
const OUTCOMES = [
  ['written', 'Written', COLOURS.blue],
  ['unchanged', 'Unchanged', COLOURS.grey],
  ['no_match', 'No match', COLOURS.orange],
  ['failed', 'Failed', COLOURS.red],
];

// Chart.js is served by the service (admin/assets/vendor) and loaded once, on the first view that draws a chart.
let library;
export function chartLibrary() {
  library ??= new Promise((resolve, reject) => {
    if (window.Chart) return resolve(window.Chart);
    const script = h('script', { src: new URL('vendor/chart.umd.min.js', import.meta.url).href });
    script.addEventListener('load', () => resolve(window.Chart));
    script.addEventListener('error', () => {
      library = undefined;
      script.remove();
      reject(new Error('the chart library did not load; the tables under "Show data" still have the numbers'));
    });
    document.head.append(script);
  });
  return library;
}

const percent = (share) => (share === null || share === undefined ? 'none looked up' : `${(share * 100).toFixed(1)} %`);
const sum = (values) => values.reduce((n, v) => n + (v ?? 0), 0);
const peak = (values) => values.reduce((m, v) => (v === null || v === undefined ? m : Math.max(m ?? 0, v)), null);
const lastOf = (values) => [...values].reverse().find((v) => v !== null && v !== undefined) ?? null;
const age = (seconds) => {
  if (seconds === null || seconds === undefined) return 'no sample';
  if (seconds < 120) return `${count(Math.round(seconds))} s`;
  if (seconds < 7200) return `${count(Math.round(seconds / 60))} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
};
const unit = (n, one) => (n === 1 ? one : `${count(n)} ${one}s`);
const stepText = (seconds) => (seconds < 3600 ? unit(seconds / 60, 'minute') : unit(seconds / 3600, 'hour'));
const timeCell = (iso) =>
  h('time', { datetime: iso }, new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }));
function axisLabel(iso, range) {
  const at = new Date(iso);
  return range === '1h' || range === '24h'
    ? at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
    : at.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit' });
}

/** The figure of every chart by its key, kept across refreshes. */
const figures = new Map();

function figureFor(key) {
  let f = figures.get(key);
  if (f) return f;
  const canvas = h('canvas', { role: 'img' }, 'The table under "Show data" has the numbers of this chart.');
  const caption = h('figcaption', {});
  const box = h('div', { class: 'chart-box' }, canvas);
  const details = h('details', {}, h('summary', {}, 'Show data'));
  f = {
    key,
    canvas,
    caption,
    box,
    details,
    figure: h('figure', { class: 'chart', 'data-chart': key }, caption, box, details),
    chart: undefined,
  };
  figures.set(key, f);
  return f;
}

function options(extra = {}) {
  return {
    responsive: true,
    maintainAspectRatio: false,
    // No animation: a refresh every 30 seconds should not move what the reader is looking at.
    animation: false,
    interaction: { mode: 'index', intersect: false },
    plugins: { legend: { labels: { color: INK, boxWidth: 12 } } },
    ...extra,
    scales: {
      x: {
        ticks: { color: INK, maxRotation: 0, autoSkip: true, maxTicksLimit: window.innerWidth < 640 ? 4 : 6 },
        grid: { display: false },
        ...extra.scales?.x,
      },
      y: { beginAtZero: true, ticks: { color: INK, precision: 0 }, ...extra.scales?.y },
      ...(extra.scales?.y2 ? { y2: extra.scales.y2 } : {}),
    },
  };
}

/** Draws (or redraws in place) one chart with its accessible name and its table of the same numbers. */
function draw(Chart, spec) {
  const f = figureFor(spec.key);
  f.caption.textContent = spec.title;
  f.canvas.setAttribute('aria-label', spec.label);
  if (spec.height) f.box.style.height = spec.height;
  const numbers = table(
    spec.table.caption,
    spec.table.headers,
    spec.table.rows,
    spec.table.empty ?? 'Nothing in this period.',
  );
  const old = f.details.querySelector('table');
  if (old) old.replaceWith(numbers);
  else f.details.append(numbers);
  f.spec = spec;
  return f;
}

function render(Chart, f) {
  const { type, data, options: opts } = f.spec.chart;
  if (f.chart) {
    f.chart.data = data;
    f.chart.options = opts;
    f.chart.update('none');
  } else {
    f.chart = new Chart(f.canvas, { type, data, options: opts });
  }
}

function specs(d) {
  const { range, steps, stepSeconds, series } = d;
  const labels = steps.map((s) => axisLabel(s, range));
  const period = RANGE_TEXT[range] ?? range;
  const per = `per ${stepText(stepSeconds)}`;
  const out = [];

  const e = series.enrichments;
  const byOutcome = OUTCOMES.map(([k, name]) => `${count(sum(e[k]))} ${name.toLowerCase()}`).join(', ');
  out.push({
    key: 'enrichments',
    title: `Enrichments by outcome, ${per}`,
    label: `Enrichments by outcome over ${period}: ${byOutcome}.`,
    chart: {
      type: 'bar',
      data: {
        labels,
        datasets: OUTCOMES.map(([k, name, colour]) => ({
          label: name,
          data: e[k],
          backgroundColor: colour,
          stack: 'outcomes',
        })),
      },
      options: options({ scales: { x: { stacked: true }, y: { stacked: true } } }),
    },
    table: {
      caption: `Enrichments by outcome, ${per}`,
      headers: ['Time', ...OUTCOMES.map(([, name]) => name)],
      rows: steps.map((s, i) => [timeCell(s), ...OUTCOMES.map(([k]) => count(e[k][i]))]),
    },
  });

  const credits = series.creditsPerDay;
  const today = credits.at(-1);
  const budget = today?.budget ?? 0;
  // Against a budget far above what is spent, the bars would lie flat under the budget's line: the axis
  // then fits the credits used and the budget is said in words; the line is drawn once it is within reach.
  const mostUsed = peak(credits.map((c) => c.used)) ?? 0;
  const budgetDrawn = budget > 0 && mostUsed * 4 >= budget;
  const usedShare = budget ? ` (${percent((today?.used ?? 0) / budget)})` : '';
  const usedToday = `${count(today?.used ?? 0)} of a budget of ${count(budget)} used today (UTC)${usedShare}`;
  out.push({
    key: 'credits',
    title: budgetDrawn
      ? 'Partner credits per day against the budget'
      : `Partner credits per day (the budget, ${count(budget)} a day, is far above)`,
    label: `Partner credits per day over ${period}: ${usedToday}.`,
    chart: {
      type: 'bar',
      data: {
        labels: credits.map((c) => c.day),
        datasets: [
          { label: 'Credits used', data: credits.map((c) => c.used), backgroundColor: COLOURS.blue, order: 2 },
          ...(budgetDrawn
            ? [
                {
                  label: 'Daily budget',
                  type: 'line',
                  data: credits.map((c) => c.budget),
                  borderColor: COLOURS.red,
                  backgroundColor: COLOURS.red,
                  borderDash: [6, 4],
                  pointRadius: 3,
                  order: 1,
                },
              ]
            : []),
        ],
      },
      options: options(),
    },
    table: {
      caption: 'Partner credits per day (UTC)',
      headers: ['Day', 'Used', 'Budget', 'Left'],
      rows: credits.map((c) => [
        h('time', { datetime: c.day }, c.day),
        count(c.used),
        count(c.budget),
        count(Math.max(0, c.budget - c.used)),
      ]),
    },
  });

  for (const [connection, c] of Object.entries(series.crmCalls).sort(([a], [b]) => a.localeCompare(b))) {
    const name = crmName(c.crm ?? connection);
    const limit = c.limitPerStep;
    const limitClause = limit === null ? '; its limit is not known yet' : ` of ${count(limit)} allowed`;
    const callCounts = `${count(sum(c.calls))} in all, at most ${count(peak(c.calls) ?? 0)} in one step`;
    out.push({
      key: `crm-${connection}`,
      title: `${name} calls ${per}${limit === null ? '' : ' against its limit'}`,
      label: `${name} calls over ${period}: ${callCounts}${limitClause}.`,
      chart: {
        type: 'bar',
        data: {
          labels,
          datasets: [
            { label: 'Calls', data: c.calls, backgroundColor: COLOURS.blue, order: 2 },
            ...(limit === null
              ? []
              : [
                  {
                    label: 'Limit',
                    type: 'line',
                    data: steps.map(() => limit),
                    borderColor: COLOURS.red,
                    borderDash: [6, 4],
                    pointRadius: 0,
                    order: 1,
                  },
                ]),
          ],
        },
        options: options(),
      },
      table: {
        caption: `${name} calls ${per}`,
        headers: ['Time', 'Calls', 'Allowed'],
        rows: steps.map((s, i) => [timeCell(s), count(c.calls[i]), limit === null ? 'not known' : count(limit)]),
      },
    });
  }

  const matched = sum(e.written) + sum(e.unchanged);
  const tried = matched + sum(e.no_match);
  const matchRate = tried
    ? `${percent(matched / tried)} (${count(matched)} of ${count(tried)} records matched)`
    : 'no record looked up';
  out.push({
    key: 'match-rate',
    title: `Match rate, ${per}`,
    label: `Match rate over ${period}: ${matchRate}.`,
    chart: {
      type: 'line',
      data: {
        labels,
        datasets: [
          {
            label: 'Matched records (%)',
            data: series.matchRate.map((r) => (r === null ? null : Math.round(r * 1000) / 10)),
            borderColor: COLOURS.green,
            backgroundColor: COLOURS.green,
            pointRadius: 3,
            spanGaps: false,
          },
        ],
      },
      options: options({
        scales: { y: { beginAtZero: true, max: 100, ticks: { color: INK, callback: (v) => `${v} %` } } },
      }),
    },
    table: {
      caption: `Match rate, ${per}`,
      headers: ['Time', 'Match rate'],
      rows: steps.map((s, i) => [timeCell(s), percent(series.matchRate[i])]),
    },
  });

  const { hits, misses } = series.cache;
  const lookups = sum(hits) + sum(misses);
  const hitShare = lookups ? ` (${percent(sum(hits) / lookups)})` : '';
  const answered = `${count(sum(hits))} of ${count(lookups)} lookups answered from the cache${hitShare}`;
  out.push({
    key: 'cache',
    title: `Cache hits, ${per}`,
    label: `Cache hits over ${period}: ${answered}.`,
    chart: {
      type: 'bar',
      data: {
        labels,
        datasets: [
          { label: 'From the cache', data: hits, backgroundColor: COLOURS.green, stack: 'l' },
          { label: 'From the partner', data: misses, backgroundColor: COLOURS.grey, stack: 'l' },
        ],
      },
      options: options({ scales: { x: { stacked: true }, y: { stacked: true } } }),
    },
    table: {
      caption: `Lookups, ${per}`,
      headers: ['Time', 'Cache hits', 'From the partner'],
      rows: steps.map((s, i) => [timeCell(s), count(hits[i]), count(misses[i])]),
    },
  });

  const q = series.queue;
  const depth =
    lastOf(q.depth) === null
      ? 'no sample yet'
      : `${count(lastOf(q.depth))} jobs waiting or running at the last sample, at most ${count(peak(q.depth))}`;
  const oldest =
    peak(q.oldestAgeSeconds) === null
      ? 'no job was waiting at any sample'
      : `the oldest waiting job waited up to ${age(peak(q.oldestAgeSeconds))}`;
  out.push({
    key: 'queue',
    title: 'Queue depth and the oldest waiting job',
    label: `Queue over ${period}: ${depth}; ${oldest}.`,
    chart: {
      type: 'line',
      data: {
        labels,
        datasets: [
          {
            label: 'Jobs waiting or running',
            data: q.depth,
            borderColor: COLOURS.blue,
            backgroundColor: COLOURS.blue,
            pointRadius: 2,
            yAxisID: 'y',
          },
          {
            label: 'Oldest waiting job (minutes)',
            data: q.oldestAgeSeconds.map((s) => (s === null ? null : Math.round(s / 6) / 10)),
            borderColor: COLOURS.purple,
            backgroundColor: COLOURS.purple,
            borderDash: [6, 4],
            pointRadius: 2,
            yAxisID: 'y2',
          },
        ],
      },
      options: options({
        scales: {
          y2: {
            position: 'right',
            beginAtZero: true,
            grid: { display: false },
            ticks: { color: INK },
            title: { display: true, text: 'minutes', color: INK },
          },
        },
      }),
    },
    table: {
      caption: 'Queue samples (the highest of each step)',
      headers: ['Time', 'Jobs', 'Oldest waiting'],
      rows: steps.map((s, i) => [
        timeCell(s),
        q.depth[i] === null ? 'no sample' : count(q.depth[i]),
        q.depth[i] === null ? '' : q.oldestAgeSeconds[i] === null ? 'none waiting' : age(q.oldestAgeSeconds[i]),
      ]),
    },
  });

  // One coverage chart per mapped object crm-enrich has worked on: a bar pair per property stays readable.
  const share = (part, of) => (of ? Math.round((part / of) * 1000) / 10 : 0);
  const objects = new Map();
  for (const c of d.fieldCoverage) {
    const key = `coverage-${c.crm}-${c.object}`;
    if (!objects.has(key)) objects.set(key, []);
    objects.get(key).push(c);
  }
  const worked = [...objects].filter(([, rows]) => rows.some((c) => c.records > 0));
  for (const [key, rows] of worked) {
    const what = `${crmName(rows[0].crm)} ${plural(rows[0].object)}`;
    const records = Math.max(...rows.map((c) => c.records));
    const filled = rows
      .map((c) => `${c.property} ${share(c.before, c.records)} % before, ${share(c.after, c.records)} % after`)
      .join('; ');
    out.push({
      key,
      title: `Field coverage of ${what}, before and after enrichment`,
      label: `Share of ${count(records)} ${what} with each mapped property filled: ${filled}.`,
      height: `${Math.max(12, rows.length * 1.9 + 5)}rem`,
      chart: {
        type: 'bar',
        data: {
          labels: rows.map((c) => c.property),
          datasets: [
            { label: 'Before (%)', data: rows.map((c) => share(c.before, c.records)), backgroundColor: COLOURS.grey },
            { label: 'After (%)', data: rows.map((c) => share(c.after, c.records)), backgroundColor: COLOURS.blue },
          ],
        },
        options: options({
          indexAxis: 'y',
          scales: {
            x: {
              beginAtZero: true,
              max: 100,
              grid: { display: true },
              ticks: { color: INK, callback: (v) => `${v} %` },
            },
            y: { ticks: { color: INK, autoSkip: false } },
          },
        }),
      },
      table: {
        caption: `${what[0].toUpperCase()}${what.slice(1)} with each mapped property filled`,
        headers: ['Property', 'Records', 'Before', 'After'],
        rows: rows.map((c) => [
          h('code', {}, c.property),
          count(c.records),
          `${count(c.before)} (${share(c.before, c.records)} %)`,
          `${count(c.after)} (${share(c.after, c.records)} %)`,
        ]),
      },
    });
  }
  if (worked.length === 0) {
    out.push({
      key: 'coverage',
      title: 'Field coverage before and after enrichment',
      label: 'Field coverage: no record of a mapped object has been worked on yet.',
      chart: { type: 'bar', data: { labels: [], datasets: [] }, options: options() },
      table: {
        caption: 'Records with each mapped property filled',
        headers: ['Property', 'Records', 'Before', 'After'],
        rows: [],
        empty: 'No record worked on yet.',
      },
    });
  }
  return out;
}

/** The time of the first step of a series answer that holds anything, or null. */
function firstData(d) {
  const { series } = d;
  const lists = [
    ...Object.values(series.enrichments),
    series.cache.hits,
    series.cache.misses,
    series.partnerRequests ?? [],
    series.queue.depth,
    ...Object.values(series.crmCalls).map((c) => c.calls),
  ];
  const first = d.steps.findIndex((_, i) => lists.some((l) => l[i] !== null && l[i] !== undefined && l[i] !== 0));
  return first < 0 ? null : new Date(d.steps[first]).getTime();
}

let chartLoads = 0;
/** Whether the period is the reader's choice; until then the page picks one that fits the data. */
let rangeChosen = false;
async function loadCharts() {
  const ticket = ++chartLoads;
  const range = $('stats-range').value;
  try {
    let [Chart, d] = await Promise.all([chartLibrary(), api('GET', `stats/series?range=${encodeURIComponent(range)}`)]);
    // A period changed while this answer was on its way: the newer load draws.
    if (ticket !== chartLoads) return;
    // A service up for less than an hour would be a sliver at the right edge of a day: show the hour.
    const since = firstData(d);
    if (!rangeChosen && range !== '1h' && (since === null || new Date(d.to).getTime() - since <= 3_600_000)) {
      $('stats-range').value = '1h';
      d = await api('GET', 'stats/series?range=1h');
      if (ticket !== chartLoads) return;
    }
    Chart.defaults.color = INK;
    Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
    const drawn = specs(d).map((spec) => draw(Chart, spec));
    const container = $('stats-charts');
    for (const [key, f] of figures) {
      if (drawn.includes(f)) continue;
      f.chart?.destroy();
      figures.delete(key);
    }
    // Only a new or gone chart re-orders the figures; a refresh leaves the nodes where they are.
    if (drawn.some((f, i) => container.children[i] !== f.figure) || container.children.length !== drawn.length)
      container.replaceChildren(...drawn.map((f) => f.figure));
    for (const f of drawn) render(Chart, f);
    container.dataset.range = d.range;
    container.dataset.to = d.to;
    $('stats-charts-message').replaceChildren();
  } catch (error) {
    if (ticket === chartLoads) $('stats-charts-message').replaceChildren(errorView(error));
  }
}

function numbers(s) {
  const entries = (record) => Object.entries(record ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const matched = s.records?.enriched ?? 0;
  const tried = matched + (s.records?.no_match ?? 0);
  return [
    h(
      'p',
      { class: 'as-of' },
      'As of ',
      h('time', { datetime: new Date().toISOString() }, when(new Date())),
      '; refreshed every 30 seconds while this tab is open.',
    ),
    definitions([
      ['Queue depth', count(s.queueDepth)],
      ['Dead letters', count(s.deadLetters)],
      [
        'Match rate',
        s.matchRate === null
          ? 'no record tried yet'
          : `${(s.matchRate * 100).toFixed(1)} % (${count(matched)} of ${count(tried)} records)`,
      ],
      ['Partner lookups today', count(s.today.partnerLookups)],
      ['Cache hits today', count(s.today.cacheHits)],
      ['Budget left today', `${count(s.today.budgetLeft)} of ${count(s.today.budget)}`],
      ['Hard cap', count(s.today.hardCap)],
      ['Bulk work', s.today.bulkPaused ? 'paused: the budget is spent' : 'running'],
      ["Changes made with crm-enrich's token by something else today", count(s.today.foreignTokenChanges)],
    ]),
    table(
      'Jobs by outcome since the service started',
      ['Outcome', 'Jobs'],
      entries(s.jobsByOutcome).map(([k, v]) => [humanize(k), count(v)]),
    ),
    table(
      'Records by status',
      ['Status', 'Records'],
      entries(s.records).map(([k, v]) => [STATUS_NAMES[k] ?? humanize(k), count(v)]),
    ),
    table(
      'Queues',
      ['Queue', 'Waiting', 'Active', 'Completed', 'Failed'],
      s.queues.map((q) => [queueName(q.queue), count(q.waiting), count(q.active), count(q.completed), count(q.failed)]),
    ),
    table(
      'CRM calls',
      ['CRM', 'Calls', 'By operation'],
      entries(s.crmCalls).map(([connection, c]) => [
        crmName(connection),
        count(c.calls),
        entries(c.byOperation)
          .map(([op, n]) => `${op}: ${count(n)}`)
          .join(', '),
      ]),
    ),
  ];
}

/** Loads both halves; `quiet` (the timer) swaps the numbers in without a "Working…" in between. */
export async function loadStats({ quiet = false } = {}) {
  const scroll = window.scrollY;
  const result = $('stats-result');
  const loadNumbers = quiet
    ? api('GET', 'stats').then(
        (s) => {
          result.replaceChildren(...numbers(s));
          $('stats-message').replaceChildren();
        },
        (error) => $('stats-message').replaceChildren(errorView(error)),
      )
    : run($('stats-message'), async () => {
        result.replaceChildren(...numbers(await api('GET', 'stats')));
      });
  await Promise.all([loadNumbers, loadCharts()]);
  // The numbers' nodes were replaced; keep the reader where they were.
  window.scrollTo(window.scrollX, scroll);
}

// Stats refresh themselves while their tab is shown; a hidden tab or a signed-out page asks nothing.
setInterval(() => {
  if (!$('stats').hidden && !document.hidden) loadStats({ quiet: true });
}, 30_000);

export function wireStats() {
  $('stats-reload').addEventListener('click', () => loadStats());
  $('stats-range').addEventListener('change', () => {
    rangeChosen = true;
    return loadCharts();
  });
}
