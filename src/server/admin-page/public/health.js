// Data health: every record of one CRM object, per mapped property how many are filled, how many
// crm-enrich could fill and at what credit cost, the trend of past scans (a chart and its table), and a
// button that runs a scan (its progress shown while it reads, its date once it is done). Each property
// with a gap has a Fill action: the cost preview of a backfill of the records missing it, then the backfill.
import { $, api, count, crmName, enc, h, run, table, when } from './core.js';
import { trendChart } from './trend-chart.js';

const POLL_MS = 1000;
let polling;
let filling;

const path = () => {
  const [connection, object] = $('health-object').value.split('/');
  return `data-health/${enc(connection)}/${enc(object)}`;
};

function show(report) {
  $('health-last-run').textContent = `Last scan: ${when(report.scannedAt)}, ${count(report.records)} records`;
  const facts = [
    ['Records', report.records],
    ['At most this many credits to fill every gap', report.credits],
    ['Never enriched', report.neverEnriched],
    ['Stale (older than the refresh interval)', report.stale],
    ['Without a match key', report.noMatchKey],
    ['At a free-mail address', report.freeMail],
    ...(report.noCompany === null ? [] : [['Without a company', report.noCompany]]),
    ...(report.duplicateDomains === null ? [] : [['Sharing a domain with another company', report.duplicateDomains]]),
  ];
  const properties = report.properties.map((p) => p.property);
  $('health-result').replaceChildren(
    table(
      `${crmName(report.connection)} ${report.object}`,
      ['Property', 'Filled', 'Fillable', 'Credits', 'Fill'],
      report.properties.map((p) => [
        p.property,
        count(p.filled),
        count(p.fillable),
        count(p.credits),
        p.fillable > 0
          ? h(
              'button',
              {
                type: 'button',
                class: 'fill',
                'aria-label': `Fill ${p.property}`,
                onclick: () => openFill(report.connection, report.object, p.property),
              },
              'Fill',
            )
          : '',
      ]),
    ),
    table(
      'Records',
      ['', 'Count'],
      facts.map(([label, n]) => [label, count(n)]),
    ),
    trendChart(report.trend, properties),
    table(
      'Trend: filled per property at the end of each scan',
      ['Scan finished', 'Records', ...properties],
      report.trend.map((t) => [when(t.finishedAt), count(t.records), ...properties.map((p) => count(t.filled[p]))]),
    ),
  );
}

/** The Fill panel of one property: its cost preview (optionally narrowed by conditions), then the backfill. */
function openFill(connection, object, property) {
  clearTimeout(filling);
  const panel = $('health-fill');
  panel.hidden = false;
  const where = h('textarea', { id: 'health-fill-where', rows: 2, placeholder: 'numberofemployees>=50' });
  const status = h('div', { id: 'health-fill-status', class: 'message', 'aria-live': 'polite' });
  const body = () => ({
    connection,
    object,
    missing: property,
    where: where.value
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean),
  });
  const watch = async () => {
    const p = await api('GET', `backfills/${enc(connection)}/${enc(object)}`);
    const text = p.done
      ? `Done: ${count(p.enqueued)} records asked about, of ${count(p.listed)} listed.`
      : `Filling ${property}: ${count(p.listed)} records listed, ${count(p.enqueued)} enqueued, ` +
        `${count(p.pending)} waiting.`;
    status.replaceChildren(h('p', { class: p.done ? 'ok' : 'busy', role: 'status' }, text));
    if (!p.done) filling = setTimeout(() => watch().catch(() => undefined), POLL_MS);
  };
  const start = () =>
    run(status, async () => {
      await api('POST', 'backfills', body());
      await watch();
      return status.firstChild;
    });
  const preview = () =>
    run(status, async () => {
      const r = await api('POST', 'backfills/dry-run', body());
      return [
        h(
          'p',
          { class: 'preview' },
          `${count(r.wouldEnrich)} records would be asked about (of ${count(r.listed)} listed): ` +
            `at most ${count(r.credits)} credits.`,
        ),
        r.wouldEnrich > 0
          ? h('div', { class: 'actions' }, h('button', { type: 'button', onclick: start }, 'Start filling'))
          : null,
      ];
    });
  panel.replaceChildren(
    h('h3', {}, `Fill ${property} in ${crmName(connection)} ${object}`),
    h(
      'p',
      { class: 'hint' },
      `Only records with ${property} empty and a match key, whose lookup could fill it: the records the ` +
        "report's credits count. Conditions on the records' own properties narrow them further.",
    ),
    h('label', { for: 'health-fill-where' }, 'Only records where (optional, one condition a line)'),
    where,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', onclick: preview }, 'Preview the cost'),
      h(
        'button',
        {
          type: 'button',
          onclick: () => {
            clearTimeout(filling);
            panel.hidden = true;
          },
        },
        'Close',
      ),
    ),
    status,
  );
  return preview();
}

async function progress() {
  clearTimeout(polling);
  const { running, lastScanAt } = await api('GET', `${path()}/runs/current`);
  if (running) {
    $('health-progress').textContent = `Scanning: ${count(running.records)} records read`;
    polling = setTimeout(() => run($('health-message'), progress), POLL_MS);
    return;
  }
  $('health-progress').textContent = '';
  if (lastScanAt) show(await api('GET', path()));
  else {
    $('health-last-run').textContent = 'No scan has finished yet: run one.';
    $('health-result').replaceChildren();
  }
}

export function loadHealth() {
  return run($('health-message'), async () => {
    if ($('health-object').options.length === 0) {
      const { mappings } = await api('GET', 'mappings');
      $('health-object').replaceChildren(
        ...mappings.map((m) => h('option', { value: `${m.crm}/${m.object}` }, `${crmName(m.crm)} ${m.object}`)),
      );
    }
    await progress();
  });
}

export function wireHealth() {
  $('health-object').addEventListener('change', () => run($('health-message'), progress));
  $('health-run').addEventListener('click', () =>
    run($('health-message'), async () => {
      await api('POST', `${path()}/runs`);
      await progress();
    }),
  );
}
