// Records: find a record by id, e-mail or name; its enrichment state, links to it and its company in
// the CRM, its audit history grouped by run, and enrich-now.
import { $, api, crmName, definitions, enc, h, objectName, ok, run, shown, table, when } from './core.js';

export const STATUS_NAMES = {
  enriched: 'Enriched',
  no_match: 'No match',
  pending: 'Waiting',
  failed: 'Failed',
  skipped: 'Skipped',
};
const statusName = (status) => (status ? (STATUS_NAMES[status] ?? status) : 'Not enriched yet');

/** Audit outcomes as a person reads them; the code stays in the title for whoever searches the logs. */
const OUTCOME_NAMES = {
  write: 'Written',
  unchanged: 'Unchanged',
  kept_person_edit: "Kept a person's edit",
  filled_already: 'Already filled',
  never: 'Never written by this rule',
  no_value: 'No value from the partner',
  too_long: 'Too long for the property',
  no_match: 'No match',
  skipped: 'Skipped',
  linked_primary: 'Linked as primary company',
  already_linked: 'Already linked',
  not_linked: 'Not linked',
  link_failed: 'Link failed',
};
/** What started a run's job, as the record view's `trigger` names it. */
const TRIGGER_NAMES = {
  created: 'a new record (webhook)',
  changed: 'a change (webhook)',
  refresh: 'the scheduled refresh',
  catchup: 'the catch-up sweep',
  backfill: 'a backfill',
  manual: '"Enrich now" on this page',
  company: "a person's employer",
  merged: 'a merge',
  deleted: 'a deletion',
  privacy_deletion: 'a privacy deletion',
  rejected: 'an unreadable delivery',
  workflow: 'a HubSpot workflow',
  card: 'the HubSpot record card',
  flow: 'a Salesforce flow',
};
const triggerName = (trigger) => TRIGGER_NAMES[trigger] ?? trigger;
const outcomeName = (outcome) =>
  outcome ? h('span', { class: `outcome ${outcome}`, title: outcome }, OUTCOME_NAMES[outcome] ?? outcome) : '';

let selected;

function target() {
  const form = $('record-form');
  return { connection: form.elements.connection.value, object: form.elements.object.value };
}

const crmLink = (url, text) => (url ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, text) : null);

function search(event) {
  event?.preventDefault();
  const form = $('record-form');
  if (!form.reportValidity()) return undefined;
  const { connection, object } = target();
  const q = form.elements.q.value.trim();
  $('records-message').replaceChildren();
  $('record-result').replaceChildren();
  return run($('record-results'), async () => {
    const { results } = await api('GET', `records/${enc(connection)}/${enc(object)}?q=${enc(q)}`);
    // One match is what the admin looked for: open it at once.
    if (results.length === 1) await open(connection, object, results[0]);
    const found = `${objectName(object).toLowerCase()}${results.length === 1 ? '' : 's'}`;
    return table(
      `${results.length} ${found} found in ${crmName(connection)}`,
      ['Name', 'E-mail or website', 'Id', 'Status', 'Open'],
      results.map((r) => [
        shown(r.name),
        shown(r.detail),
        r.id,
        statusName(r.status),
        h(
          'button',
          {
            type: 'button',
            'aria-label': `Open ${r.name ?? r.detail ?? r.id}`,
            onclick: () => open(connection, object, r),
          },
          'Open',
        ),
      ]),
      `No ${objectName(object).toLowerCase()} in ${crmName(connection)} matches “${q}”.`,
    );
  });
}

/**
 * One run's rows as a table: what each property was, what it became, the rule and why. Runs come newest
 * first and are numbered from the oldest, so a new run gets the next number; when the history was cut
 * short, older runs are missing and the runs are told apart by their time alone.
 */
function runView(run, index, runs, complete) {
  const written = run.rows.filter((r) => r.outcome === 'write').length;
  const noted = run.rows.filter((r) => !r.property);
  const name = complete ? `Run ${runs.length - index}` : index === 0 ? 'Newest run' : 'Run';
  const summary = [
    `${name}${index === 0 && complete && runs.length > 1 ? ' (newest)' : ''}: ${when(run.at)}`,
    run.actor ? `, by ${run.actor}` : '',
    run.trigger ? `, started by ${triggerName(run.trigger)}` : '',
    ` — ${written} propert${written === 1 ? 'y' : 'ies'} written`,
    noted.length
      ? `; ${noted
          .map((r) => r.reason)
          .filter(Boolean)
          .join('; ')}`
      : '',
  ].join('');
  const rows = run.rows.filter((r) => r.property);
  return h(
    'details',
    { class: 'run', open: index === 0 ? true : undefined },
    h('summary', {}, summary),
    rows.length
      ? table(
          `${name === 'Run' ? `Run of ${when(run.at)}` : name}, property by property`,
          ['Property', 'Old value', 'New value', 'Rule', 'Outcome', 'Reason'],
          rows.map((a) => [
            h('code', {}, a.property),
            shown(a.oldValue),
            shown(a.newValue),
            a.rule ?? '',
            outcomeName(a.outcome),
            a.reason ?? '',
          ]),
        )
      : null,
  );
}

function open(connection, object, found) {
  selected = { connection, object, id: found.id, found };
  return run($('record-result'), async () => {
    let view;
    try {
      view = await api('GET', `records/${enc(connection)}/${enc(object)}/${enc(found.id)}`);
    } catch (error) {
      if (error.status !== 404) throw error;
      view = { state: null, runs: [], crmUrl: found.url ?? null, company: null };
    }
    const { state, runs, crmUrl, company, complete = true } = view;
    const title = found.name ?? found.detail ?? `${objectName(object)} ${found.id}`;
    return [
      h('h3', {}, title),
      h(
        'div',
        { class: 'actions' },
        crmLink(crmUrl, `Open in ${crmName(connection)}`),
        h('button', { type: 'button', id: 'enrich-now', onclick: enrichNow }, 'Enrich now'),
      ),
      state
        ? definitions([
            ['Status', statusName(state.status)],
            ['Record id', found.id],
            ['Matched by', shown(state.matchKey)],
            ['Partner id', shown(state.partnerId)],
            ['Market', shown(state.market)],
            ['Last enriched', shown(when(state.lastEnrichedAt))],
            ['Next refresh', shown(when(state.nextRefreshAt))],
            [
              'Company',
              company
                ? [
                    crmLink(company.url, `${company.objectType ?? 'Company'} ${company.id}`) ?? company.id,
                    company.reason ? ` (${company.reason})` : '',
                  ]
                : shown(null),
            ],
            ['Last error', shown(state.lastError)],
            ['Updated', when(state.updatedAt)],
          ])
        : h('p', {}, 'crm-enrich has not enriched this record yet. "Enrich now" queues it ahead of bulk work.'),
      h(
        'h4',
        {},
        `History: ${complete ? '' : 'the last '}${runs.length} run${runs.length === 1 ? '' : 's'}, newest first`,
      ),
      runs.length ? runs.map((r, i) => runView(r, i, runs, complete)) : h('p', {}, 'No audit rows for this record.'),
    ];
  });
}

function enrichNow() {
  if (!selected) return undefined;
  const { connection, object, id } = selected;
  return run($('records-message'), async () => {
    const { queued } = await api('POST', `records/${enc(connection)}/${enc(object)}/${enc(id)}/enrich`);
    return ok(
      queued
        ? 'Queued ahead of bulk work; the history below updates when it has run.'
        : 'The record is already queued.',
    );
  });
}

/** Records can be looked up in the objects that have a mapping: offer exactly those, as the CRM spells them. */
export function fillRecordPickers(mappings) {
  const connection = $('record-connection');
  const object = $('record-object');
  const chosen = connection.value;
  const crms = [...new Set(mappings.map((m) => m.crm))];
  if (!crms.length) return;
  connection.replaceChildren(...crms.map((crm) => h('option', { value: crm }, crmName(crm))));
  connection.value = crms.includes(chosen) ? chosen : crms[0];
  const fillObjects = () => {
    const wanted = object.value.toLowerCase();
    const objects = mappings.filter((m) => m.crm === connection.value).map((m) => m.object);
    object.replaceChildren(...objects.map((o) => h('option', { value: o }, objectName(o))));
    const same = objects.find((o) => o.toLowerCase() === wanted);
    if (same) object.value = same;
  };
  connection.onchange = fillObjects;
  fillObjects();
}

export function wireRecords() {
  $('record-form').addEventListener('submit', search);
}
