// Discovery: saved personas (picked from the partner's seniority and department catalogue), a preview
// of the people a persona finds at one company and what would happen to each, and the run.
import { $, api, count, crmName, enc, h, ok, run, shown, table } from './core.js';

const ACTION_NAMES = { create: 'Create', link: 'Link', skip: 'Skip' };
let catalogue = new Map();
let personas = [];
let lastPreview;

/** The partner's labels for the coded filters: identifier -> code -> label. */
async function loadCatalogue() {
  if (catalogue.size) return;
  const { filters } = await api('GET', 'filter-options?identifiers=seniority,department');
  catalogue = new Map(filters.map((f) => [f.identifier, new Map((f.values ?? []).map((v) => [v.code, v.label]))]));
  for (const id of ['seniority', 'department']) {
    const box = $(`persona-${id}`);
    const legend = box.querySelector('legend');
    box.replaceChildren(
      legend,
      ...[...(catalogue.get(id) ?? new Map())].map(([code, label]) =>
        h('label', { class: 'check' }, h('input', { type: 'checkbox', name: id, value: code }), ` ${label}`),
      ),
    );
  }
}

const labelsOf = (id, codes) => (codes ?? []).map((c) => catalogue.get(id)?.get(c) ?? c).join(', ');
// The search results carry no seniority or department: the value is the one the search asked for, and
// a persona that leaves it open found the person whatever it is.
const searched = (id, value) => (value ? labelsOf(id, [value]) : 'Any (not in the persona)');
/** Who a person is before their profile is looked up (the search gives no name): their profile handle. */
const personLabel = (o, candidates) =>
  o.name ?? candidates.find((c) => c.personId === o.personId)?.profile ?? o.personId;
const describe = (filters) =>
  [
    filters.seniority?.length ? `Seniority: ${labelsOf('seniority', filters.seniority)}` : '',
    filters.department?.length ? `Department: ${labelsOf('department', filters.department)}` : '',
    filters.position?.length ? `Titles containing: ${filters.position.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');

async function loadPersonas() {
  ({ personas } = await api('GET', 'personas'));
  $('persona-list').replaceChildren(
    table(
      'Saved personas',
      ['Name', 'Who', 'Description', 'Edit', 'Delete'],
      personas.map((p) => [
        p.name,
        describe(p.filters),
        shown(p.description),
        h('button', { type: 'button', 'aria-label': `Edit persona ${p.name}`, onclick: () => editPersona(p) }, 'Edit'),
        h(
          'button',
          { type: 'button', 'aria-label': `Delete persona ${p.name}`, onclick: () => deletePersona(p.name) },
          'Delete',
        ),
      ]),
      'No persona is saved yet: save one below.',
    ),
  );
  const select = $('discovery-persona');
  const chosen = select.value;
  select.replaceChildren(...personas.map((p) => h('option', { value: p.name }, p.name)));
  if (personas.some((p) => p.name === chosen)) select.value = chosen;
}

function editPersona(p) {
  const form = $('persona-form');
  form.elements.name.value = p.name;
  form.elements.description.value = p.description ?? '';
  for (const box of form.querySelectorAll('input[type=checkbox]'))
    box.checked = (p.filters[box.name] ?? []).includes(box.value);
  form.elements.position.value = (p.filters.position ?? []).join('\n');
  form.elements.name.focus();
}

function savePersona(event) {
  event.preventDefault();
  const form = $('persona-form');
  if (!form.reportValidity()) return undefined;
  const picked = (id) => [...form.querySelectorAll(`input[name=${id}]:checked`)].map((b) => b.value);
  const filters = {
    seniority: picked('seniority'),
    department: picked('department'),
    position: form.elements.position.value
      .split('\n')
      .map((t) => t.trim())
      .filter(Boolean),
  };
  for (const key of Object.keys(filters)) if (!filters[key].length) delete filters[key];
  const name = form.elements.name.value.trim();
  return run($('persona-result'), async () => {
    await api('PUT', `personas/${enc(name)}`, { filters, description: form.elements.description.value.trim() || null });
    await loadPersonas();
    $('discovery-persona').value = name;
    return ok(`Saved persona “${name}”.`);
  });
}

function deletePersona(name) {
  if (!window.confirm(`Delete persona “${name}”? Companies scheduled with it are no longer visited.`)) return undefined;
  return run($('persona-result'), async () => {
    await api('DELETE', `personas/${enc(name)}`);
    await loadPersonas();
    return ok(`Deleted persona “${name}”.`);
  });
}

function request() {
  const form = $('discovery-form');
  return {
    crm: form.elements.crm.value,
    companyId: form.elements.companyId.value.trim(),
    persona: form.elements.persona.value,
    limit: Number(form.elements.limit.value),
    skipDoNotDisturb: form.elements.skipDoNotDisturb.checked,
  };
}

function preview(event) {
  event.preventDefault();
  const form = $('discovery-form');
  if (!form.reportValidity()) return undefined;
  const body = request();
  $('discovery-run-result').replaceChildren();
  return run($('discovery-preview'), async () => {
    const p = await api('POST', 'discovery/preview', body);
    lastPreview = { body, preview: p };
    const acting = p.counts.create + p.counts.link;
    const company = p.company.name ?? `Company ${p.company.id}`;
    const credits = p.credits === 1 ? '' : 's';
    return [
      h(
        'p',
        {},
        `${company} (${crmName(p.crm)}), market ${p.company.market}: ${p.description}. `,
        `${count(p.candidates.length + p.beyondLimit)} people found: ${count(p.counts.create)} to create, ` +
          `${count(p.counts.link)} to link, ${count(p.counts.skip)} to skip` +
          `${p.beyondLimit ? `, ${count(p.beyondLimit)} past the limit of ${count(p.limit)} (not listed)` : ''}; `,
        `${count(p.credits)} credit${credits} to spend. ` +
          `Discovery may create ${count(p.dailyRemaining)} more records today.`,
      ),
      table(
        `People the persona finds at ${p.company.name ?? p.company.id}`,
        ['Profile', 'Position', 'Seniority', 'Department', 'E-mail known', 'Action', 'Why', 'Credit'],
        p.candidates.map((c) => [
          shown(c.profile),
          shown(c.position),
          searched('seniority', c.seniority),
          searched('department', c.department),
          c.hasEmail ? 'Yes' : 'No',
          h('span', { class: `action ${c.action}` }, ACTION_NAMES[c.action] ?? c.action),
          c.reason,
          c.credit ? 'Yes' : 'No',
        ]),
        'Nobody at this company fits the persona.',
      ),
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          { type: 'button', id: 'discovery-run', disabled: acting === 0 ? true : undefined, onclick: runDiscovery },
          acting ? `Add ${count(acting)} ${acting === 1 ? 'person' : 'people'} to ${crmName(p.crm)}` : 'Nothing to add',
        ),
      ),
    ];
  });
}

function runDiscovery() {
  if (!lastPreview) return undefined;
  const { body, preview: p } = lastPreview;
  const people = p.counts.create + p.counts.link === 1 ? 'person' : 'people';
  const credits = p.credits === 1 ? '' : 's';
  const question =
    `Create ${p.counts.create} and link ${p.counts.link} ${people} in ${crmName(p.crm)}, ` +
    `spending up to ${p.credits} partner credit${credits}?`;
  if (!window.confirm(question)) return undefined;
  $('discovery-run').disabled = true;
  return run($('discovery-run-result'), async () => {
    const result = await api('POST', 'discovery/run', body);
    const spent = `${count(result.credits)} credit${result.credits === 1 ? '' : 's'} spent`;
    return [
      ok(
        `Done: ${count(result.created)} created, ${count(result.linked)} linked, ` +
          `${count(result.skipped)} skipped, ${spent}.`,
      ),
      result.stopped ? h('p', {}, `Stopped early: ${result.stopped.message}`) : null,
      table(
        'What happened to each person',
        ['Person', 'Outcome', 'Why', 'CRM record'],
        result.people.map((o) => [personLabel(o, p.candidates), o.action, o.reason, shown(o.recordId)]),
      ),
    ];
  });
}

export function loadDiscovery() {
  return run($('discovery-message'), async () => {
    const { mappings } = await api('GET', 'mappings');
    const crms = [...new Set(mappings.map((m) => m.crm))];
    const select = $('discovery-crm');
    const chosen = select.value;
    select.replaceChildren(...crms.map((crm) => h('option', { value: crm }, crmName(crm))));
    if (crms.includes(chosen)) select.value = chosen;
    await loadCatalogue();
    await loadPersonas();
  });
}

export function wireDiscovery() {
  $('persona-form').addEventListener('submit', savePersona);
  $('discovery-form').addEventListener('submit', preview);
}
