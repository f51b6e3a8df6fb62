// The admin page: signs in with the admin token (kept in this tab's sessionStorage) and drives the
// admin API. Everything shown is built with DOM nodes and text, never parsed as HTML, because mapping
// comments, record values and error messages come from people and partners we do not control.

const API = new URL('../api/', import.meta.url);
const TOKEN_KEY = 'crm-enrich.admin-token';
const $ = (id) => document.getElementById(id);
const enc = encodeURIComponent;

class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') node.addEventListener(name.replace(/^on/, ''), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  node.append(...children.flat(Infinity).filter((c) => c !== undefined && c !== null).map((c) => (c instanceof Node ? c : String(c))));
  return node;
}

const when = (value) => (value ? new Date(value).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }) : '');
const shown = (value) => (value === null || value === undefined || value === '' ? h('span', { class: 'empty' }, '(empty)') : String(value));
const table = (caption, headers, rows, empty = 'Nothing to show.') =>
  h('table', {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, headers.map((title) => h('th', { scope: 'col' }, title)))),
    h('tbody', {}, rows.length ? rows.map((cells) => h('tr', {}, cells.map((cell) => h('td', {}, cell)))) : h('tr', {}, h('td', { colspan: headers.length }, empty))));
const definitions = (pairs) => h('dl', {}, pairs.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]));

async function api(method, path, body) {
  const headers = { authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) ?? ''}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(new URL(path, API), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    throw new ApiError(0, 'unreachable', `the service did not answer (${error.message}); check that it is running`);
  }
  const payload = await res.json().catch(() => null);
  if (res.ok) return payload;
  const error = payload?.error ?? { code: `http_${res.status}`, message: `the service answered ${res.status} ${res.statusText}` };
  const failure = new ApiError(res.status, error.code, error.message, error.details);
  if (res.status === 401) signOut(failure);
  throw failure;
}

function errorView(error) {
  const details = error.details ?? {};
  const problems = details.problems ?? details.issues ?? [];
  return h('div', { class: 'error', role: 'alert' },
    h('p', {}, h('strong', {}, error.status ? `Error ${error.status} (${error.code ?? 'error'}): ` : 'Error: '), error.message),
    details.field && !problems.length ? h('p', {}, 'Field: ', h('code', {}, details.field)) : null,
    problems.length
      ? table(`${problems.length} problem${problems.length === 1 ? '' : 's'}`, ['Field', 'Code', 'Message'], problems.map((p) => [h('code', {}, p.field || '(document)'), p.code ?? '', p.message]))
      : null);
}

const ok = (text) => h('p', { class: 'ok' }, text);

/** Runs an action and shows its outcome (or its error) in `target`. */
async function run(target, action) {
  target.replaceChildren(h('p', { class: 'busy' }, 'Working…'));
  try {
    const view = await action();
    target.replaceChildren(...(view ? [view].flat() : []));
  } catch (error) {
    target.replaceChildren(errorView(error));
  }
}

// Sign-in and navigation

const panels = ['mappings', 'records', 'dead-letters', 'stats'];
const loaders = { mappings: () => loadMappings(), records: () => undefined, 'dead-letters': () => loadDeadLetters(), stats: () => loadStats() };

function showTab(name) {
  for (const panel of panels) $(panel).hidden = panel !== name;
  for (const button of document.querySelectorAll('#tabs [data-tab]')) button.setAttribute('aria-pressed', String(button.dataset.tab === name));
  return loaders[name]();
}

function signOut(reason) {
  sessionStorage.removeItem(TOKEN_KEY);
  for (const panel of panels) $(panel).hidden = true;
  $('tabs').hidden = true;
  $('sign-in').hidden = false;
  $('sign-in-message').replaceChildren(...(reason ? [h('p', {}, 'The admin token was refused.'), errorView(reason)] : []));
  $('token').focus();
}

async function enter() {
  try {
    await api('GET', 'mappings');
  } catch (error) {
    if (error.status !== 401) $('sign-in-message').replaceChildren(errorView(error));
    return;
  }
  $('sign-in').hidden = true;
  $('sign-in-message').replaceChildren();
  $('tabs').hidden = false;
  await showTab('mappings');
}

// Mappings

let current;

/** The first version of each mapping is seeded from its file; say so instead of showing a path. */
const authorName = (author) => (String(author).startsWith('file:') ? 'Shipped with the service' : author);

async function loadMappings() {
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

const CRM_NAMES = { hubspot: 'HubSpot', salesforce: 'Salesforce' };
const crmName = (crm) => CRM_NAMES[crm] ?? crm;
const objectName = (object) => object.charAt(0).toUpperCase() + object.slice(1);

/** Records can be looked up in the objects that have a mapping: offer exactly those, as the CRM spells them. */
function fillRecordPickers(mappings) {
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

// Records

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

// Dead letters

const reasonOf = (error) => {
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object' && 'message' in error) return error.code ? `${error.code}: ${error.message}` : String(error.message);
  return JSON.stringify(error);
};

function loadDeadLetters() {
  return run($('dead-letters-message'), async () => {
    const { deadLetters } = await api('GET', 'dead-letters');
    // Nothing to replay: offering the button would only promise work that does not exist.
    $('replay-all').disabled = deadLetters.length === 0;
    $('dead-letter-list').tBodies[0].replaceChildren(...(deadLetters.length
      ? deadLetters.map((d) => {
          const record = `${d.data.connection} ${d.data.objectType} ${d.data.recordId}`;
          return h('tr', {},
            h('th', { scope: 'row' }, record), h('td', {}, d.queue), h('td', {}, d.attempts), h('td', {}, when(d.deadAt)), h('td', {}, reasonOf(d.error)),
            h('td', {}, h('button', { type: 'button', 'aria-label': `Replay ${record}`, onclick: () => replay([d.id]) }, 'Replay')));
        })
      : [h('tr', {}, h('td', { colspan: 6 }, 'No dead letters: every job finished or is still being tried.'))]));
  });
}

function replay(ids) {
  const what = ids ? `${ids.length} dead letter${ids.length === 1 ? '' : 's'}` : 'every dead letter';
  // Replaying sends the jobs to the partner and the CRM again; a stray click should not do that.
  if (!window.confirm(`Replay ${what}? The jobs run again against the partner and the CRM.`)) return undefined;
  return run($('dead-letters-message'), async () => {
    const { replayed } = await api('POST', 'dead-letters/replay', ids ? { ids } : {});
    await loadDeadLetters();
    return ok(`Replayed ${replayed} job${replayed === 1 ? '' : 's'}; they run again shortly.`);
  });
}

// Stats

const count = (n) => (typeof n === 'number' ? n.toLocaleString('en') : String(n ?? ''));

const STATUS_NAMES = { enriched: 'Enriched', no_match: 'No match', pending: 'Waiting', failed: 'Failed', skipped: 'Skipped' };
const humanize = (name) => String(name).replace(/[._]+/g, ' ').replace(/^./, (c) => c.toUpperCase());

/** `enrich.hubspot.contact` reads as "HubSpot contacts"; other names lose their dots and underscores. */
function queueName(queue) {
  if (queue === 'dead_letter') return 'Dead letters';
  const [, crm, object] = String(queue).split('.');
  return CRM_NAMES[crm] && object ? `${CRM_NAMES[crm]} ${object.toLowerCase()}s` : humanize(queue);
}

function loadStats() {
  return run($('stats-message'), async () => {
    const s = await api('GET', 'stats');
    const entries = (record) => Object.entries(record ?? {}).sort(([a], [b]) => a.localeCompare(b));
    const matched = s.records?.enriched ?? 0;
    const tried = matched + (s.records?.no_match ?? 0);
    // A refresh replaces the content; keep the reader where they were.
    const scroll = window.scrollY;
    $('stats-result').replaceChildren(
      h('p', { class: 'as-of' }, 'As of ', h('time', { datetime: new Date().toISOString() }, when(new Date())), '; refreshed every 30 seconds while this tab is open.'),
      definitions([
        ['Queue depth', count(s.queueDepth)],
        ['Dead letters', count(s.deadLetters)],
        ['Match rate', s.matchRate === null ? 'no record tried yet' : `${(s.matchRate * 100).toFixed(1)} % (${count(matched)} of ${count(tried)} records)`],
        ['Partner lookups today', count(s.today.partnerLookups)],
        ['Cache hits today', count(s.today.cacheHits)],
        ['Budget left today', `${count(s.today.budgetLeft)} of ${count(s.today.budget)}`],
        ['Hard cap', count(s.today.hardCap)],
        ['Bulk work', s.today.bulkPaused ? 'paused: the budget is spent' : 'running'],
      ]),
      table('Jobs by outcome since the service started', ['Outcome', 'Jobs'], entries(s.jobsByOutcome).map(([k, v]) => [humanize(k), count(v)])),
      table('Records by status', ['Status', 'Records'], entries(s.records).map(([k, v]) => [STATUS_NAMES[k] ?? humanize(k), count(v)])),
      table('Queues', ['Queue', 'Waiting', 'Active', 'Completed', 'Failed'], s.queues.map((q) => [queueName(q.queue), count(q.waiting), count(q.active), count(q.completed), count(q.failed)])),
      table('CRM calls', ['CRM', 'Calls', 'By operation'], entries(s.crmCalls).map(([connection, c]) => [
        crmName(connection), count(c.calls), entries(c.byOperation).map(([op, n]) => `${op}: ${count(n)}`).join(', '),
      ])),
    );
    window.scrollTo(window.scrollX, scroll);
  });
}

// Stats refresh themselves while their tab is shown; a hidden tab or a signed-out page asks nothing.
setInterval(() => {
  if (!$('stats').hidden && !document.hidden) loadStats();
}, 30_000);

// Wiring

$('sign-in-form').addEventListener('submit', (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $('token').value.trim());
  $('token').value = '';
  enter();
});
$('sign-out').addEventListener('click', () => signOut());
for (const button of document.querySelectorAll('#tabs [data-tab]')) button.addEventListener('click', () => showTab(button.dataset.tab));
$('validate').addEventListener('click', validate);
$('preview-form').addEventListener('submit', preview);
$('save-form').addEventListener('submit', save);
$('record-form').addEventListener('submit', lookUp);
$('enrich-now').addEventListener('click', enrichNow);
$('dead-letters-reload').addEventListener('click', loadDeadLetters);
$('replay-all').addEventListener('click', () => replay());
$('stats-reload').addEventListener('click', loadStats);

if (sessionStorage.getItem(TOKEN_KEY)) enter();
else signOut();
