// Records: one record's enrichment state and audit trail, and enrich-now.
import { $, api, crmName, definitions, enc, h, objectName, ok, run, shown, table, when } from './core.js';

function recordPath() {
  const form = $('record-form');
  if (!form.reportValidity()) return undefined;
  return [form.elements.connection, form.elements.object, form.elements.id].map((input) => enc(input.value.trim())).join('/');
}

function lookUp(event) {
  event?.preventDefault();
  const path = recordPath();
  if (!path) return undefined;
  $('records-message').replaceChildren();
  return run($('record-result'), async () => {
    const { state, audit } = await api('GET', `records/${path}`);
    return [
      h('h3', {}, 'State'),
      state
        ? definitions([
            ['Status', state.status], ['Matched by', shown(state.matchKey)], ['Partner id', shown(state.partnerId)], ['Market', shown(state.market)],
            ['Last enriched', shown(when(state.lastEnrichedAt))], ['Next refresh', shown(when(state.nextRefreshAt))], ['Last error', shown(state.lastError)],
            ['Updated', when(state.updatedAt)],
          ])
        : h('p', {}, 'No enrichment state is stored for this record.'),
      table('Audit trail, newest first', ['At', 'Property', 'Old value', 'New value', 'Rule', 'Outcome', 'Reason'],
        audit.map((a) => [when(a.at), a.property ? h('code', {}, a.property) : '', shown(a.oldValue), shown(a.newValue), a.rule ?? '', a.outcome ?? '', a.reason ?? '']),
        'No audit rows for this record.'),
    ];
  });
}

function enrichNow() {
  const path = recordPath();
  if (!path) return undefined;
  return run($('records-message'), async () => {
    const { queued } = await api('POST', `records/${path}/enrich`);
    return ok(queued ? 'Queued ahead of bulk work; look the record up again in a few seconds.' : 'The record is already queued.');
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
  $('record-form').addEventListener('submit', lookUp);
  $('enrich-now').addEventListener('click', enrichNow);
}
