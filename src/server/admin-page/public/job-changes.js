// Job changes: the people crm-enrich saw move to a new employer (or a new role) since a time, with
// what the actions did, and a weekly chart of how many moved; the chart's numbers are in a table too.
import { $, api, count, crmName, h, run, table, when } from './core.js';
import { chartLibrary } from './stats.js';

const RANGE_DAYS = { '4w': 28, '12w': 84, '52w': 364 };
const BLUE = '#1f5fbf';
let chart;

const employer = (e) => e.name ?? e.domain ?? e.companyId ?? '(unknown)';
const actionsText = (actions) =>
  Object.entries(actions)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, outcome]) => `${name}: ${outcome}`)
    .join(', ') || 'none';

async function drawWeekly(weekly) {
  const canvas = h(
    'canvas',
    { role: 'img', 'aria-label': 'Job changes per week' },
    'The table under "Show data" has the numbers of this chart.',
  );
  const data = table(
    'Job changes per week',
    ['Week starting', 'Job changes'],
    weekly.map((w) => [w.week, count(w.count)]),
    'No job changes in this period.',
  );
  $('job-changes-chart').replaceChildren(
    h(
      'figure',
      {},
      h('div', { class: 'chart-box' }, canvas),
      h('figcaption', {}, 'Job changes per week (weeks start on Monday, UTC)'),
      h('details', {}, h('summary', {}, 'Show data'), data),
    ),
  );
  const Chart = await chartLibrary();
  chart?.destroy();
  chart = new Chart(canvas, {
    type: 'bar',
    data: {
      labels: weekly.map((w) => w.week),
      datasets: [{ label: 'Job changes', data: weekly.map((w) => w.count), backgroundColor: BLUE }],
    },
    options: {
      animation: false,
      maintainAspectRatio: false,
      scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
    },
  });
}

export function loadJobChanges() {
  return run($('job-changes-message'), async () => {
    const days = RANGE_DAYS[$('job-changes-range').value] ?? 28;
    const since = new Date(Date.now() - days * 86_400_000).toISOString();
    const { jobChanges, weekly } = await api('GET', `job-changes?since=${encodeURIComponent(since)}&limit=1000`);
    $('job-changes-list').replaceChildren(
      table(
        `Job changes (${count(jobChanges.length)}${jobChanges.length >= 1000 ? '+' : ''})`,
        ['Record', 'Person', 'From', 'To', 'Title', 'Detected', 'Actions'],
        jobChanges.map((j) => [
          `${crmName(j.connection)} ${j.objectType} ${j.recordId}`,
          j.personId ?? '',
          employer(j.from),
          employer(j.to),
          [j.oldTitle, j.newTitle].filter(Boolean).join(' → '),
          when(j.detectedAt),
          actionsText(j.actions),
        ]),
        'No job changes in this period. A sweep (crm-enrich job-changes sweep) or the scheduled refresh finds them.',
      ),
    );
    await drawWeekly(weekly);
  });
}

export function wireJobChanges() {
  $('job-changes-reload').addEventListener('click', loadJobChanges);
  $('job-changes-range').addEventListener('change', loadJobChanges);
}
