// Data health: every record of one CRM object, per mapped property how many are filled, how many
// crm-enrich could fill and at what credit cost, the trend of past scans, and a button that runs a scan
// (its progress shown while it reads, its date once it is done).
import { $, api, count, crmName, enc, h, run, table, when } from './core.js';

const POLL_MS = 1000;
let polling;

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
      ['Property', 'Filled', 'Fillable', 'Credits'],
      report.properties.map((p) => [p.property, count(p.filled), count(p.fillable), count(p.credits)]),
    ),
    table(
      'Records',
      ['', 'Count'],
      facts.map(([label, n]) => [label, count(n)]),
    ),
    table(
      'Trend: filled per property at the end of each scan',
      ['Scan finished', 'Records', ...properties],
      report.trend.map((t) => [when(t.finishedAt), count(t.records), ...properties.map((p) => count(t.filled[p]))]),
    ),
  );
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
