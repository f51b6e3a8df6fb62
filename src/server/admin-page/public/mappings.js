// Mappings: the active mapping of each CRM object, its versions, validation, preview, save and rollback.
import { $, api, enc, h, ok, run, shown, table, when } from './core.js';
import { fillRecordPickers } from './records.js';

let current;

/** The first version of each mapping is seeded from its file; say so instead of showing a path. */
const authorName = (author) => (String(author).startsWith('file:') ? 'Shipped with the service' : author);

export async function loadMappings() {
  await run($('mappings-message'), async () => {
    const { mappings } = await api('GET', 'mappings');
    $('mapping-list').tBodies[0].replaceChildren(...mappings.map((m) => {
      const name = `${m.crm}/${m.object}`;
      return h('tr', {},
        h('th', { scope: 'row' }, name), h('td', {}, m.version), h('td', {}, authorName(m.author)), h('td', {}, m.comment), h('td', {}, when(m.createdAt)),
        h('td', {}, h('button', { type: 'button', 'aria-label': `Open ${name}`, onclick: () => openMapping(m.crm, m.object) }, 'Open')));
    }));
    fillRecordPickers(mappings);
  });
}

async function openMapping(crm, object) {
  await run($('mappings-message'), async () => {
    const { active, versions } = await api('GET', `mappings/${enc(crm)}/${enc(object)}`);
    current = { crm: active.crm, object: active.objectType };
    $('mapping-detail-title').textContent = `${active.crm}/${active.objectType}: version ${active.version} is active`;
    $('mapping-document').value = active.document;
    for (const id of ['validate-result', 'preview-result', 'save-result', 'versions-result']) $(id).replaceChildren();
    $('mapping-versions').tBodies[0].replaceChildren(...versions.map((v) =>
      h('tr', { class: v.active ? 'active' : null },
        h('th', { scope: 'row' }, v.version), h('td', {}, authorName(v.author)), h('td', {}, v.comment), h('td', {}, when(v.createdAt)),
        h('td', {}, v.active ? 'Active' : h('button', { type: 'button', onclick: () => rollBack(v.version) }, `Roll back to version ${v.version}`)))));
    $('mapping-detail').hidden = false;
  });
}

function validate() {
  return run($('validate-result'), async () => {
    const result = await api('POST', 'mappings/validate', { document: $('mapping-document').value });
    return ok(`OK: a valid mapping for ${result.crm}/${result.object}.`);
  });
}

function preview(event) {
  event.preventDefault();
  return run($('preview-result'), async () => {
    const recordId = $('preview-record').value.trim();
    const result = await api('POST', 'mappings/preview', { document: $('mapping-document').value, crm: current.crm, object: current.object, recordId });
    const writes = Object.keys(result.wouldWrite).length;
    return [
      h('p', {}, `Record ${result.record.id}: `, result.match ? `the partner matched it by ${result.match.by}` : 'the partner has no match for it',
        `; saving this document would write ${writes} propert${writes === 1 ? 'y' : 'ies'}. Nothing was written.`),
      table(`Preview of ${current.crm}/${current.object} ${result.record.id}`, ['Property', 'Current', 'New', 'Rule', 'Outcome', 'Reason'],
        result.rows.map((r) => [h('code', {}, r.property), shown(r.current), shown(r.new), r.rule, h('span', { class: `outcome ${r.outcome}` }, r.outcome), r.reason ?? ''])),
    ];
  });
}

function save(event) {
  event.preventDefault();
  return run($('save-result'), async () => {
    const { crm, object } = current;
    const { active } = await api('POST', `mappings/${enc(crm)}/${enc(object)}/versions`, {
      document: $('mapping-document').value,
      author: $('save-author').value,
      comment: $('save-comment').value,
    });
    await openMapping(crm, object);
    await loadMappings();
    $('save-comment').value = '';
    return ok(`Saved version ${active.version} of ${crm}/${object}; it is active now.`);
  });
}

function rollBack(version) {
  return run($('versions-result'), async () => {
    const { crm, object } = current;
    const { active } = await api('POST', `mappings/${enc(crm)}/${enc(object)}/rollback`, { version });
    await openMapping(crm, object);
    await loadMappings();
    return ok(`Rolled back: version ${active.version} of ${crm}/${object} is active now.`);
  });
}


export function wireMappings() {
  $('validate').addEventListener('click', validate);
  $('preview-form').addEventListener('submit', preview);
  $('save-form').addEventListener('submit', save);
}
