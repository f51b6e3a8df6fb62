// Mappings: the active mapping of each CRM object, edited with pickers (or as YAML), checked as it is
// edited, previewed on a real record, saved with a comment after a diff, compared and rolled back.
import { $, api, enc, errorView, h, ok, run, shown, table, when } from './core.js';
import { diffView } from './line-diff.js';
import { getRows, setPickers, setRows, setRowsEnabled, showRowProblems, wireFieldEditor } from './mapping-editor.js';
import { fillRecordPickers } from './records.js';

/** The open mapping: `{ crm, object, active }` with the active version's document. */
let current;

/** The first version of each mapping is seeded from its file; say so instead of showing a path. */
const authorName = (author) => (String(author).startsWith('file:') ? 'Shipped with the service' : author);

/** On a phone each table row becomes a card; every cell carries its column's name to show there. */
function labelCells(tableNode) {
  // A column whose name is only for screen readers (Open) shows none on the card either: its button says it.
  const names = [...tableNode.querySelectorAll('thead th')].map((th) =>
    th.querySelector('.visually-hidden') ? '' : th.textContent.trim(),
  );
  for (const row of tableNode.querySelectorAll('tbody tr')) {
    [...row.children].forEach((cell, i) => {
      if (names[i] && cell.colSpan === 1) cell.dataset.label = names[i];
    });
  }
  tableNode.classList.add('stacked');
  return tableNode;
}

export async function loadMappings() {
  await run($('mappings-message'), async () => {
    const { mappings } = await api('GET', 'mappings');
    $('mapping-list').tBodies[0].replaceChildren(
      ...mappings.map((m) => {
        const name = `${m.crm}/${m.object}`;
        return h(
          'tr',
          {},
          h('th', { scope: 'row' }, name),
          h('td', {}, m.version),
          h('td', {}, authorName(m.author)),
          h('td', {}, m.comment),
          h('td', {}, when(m.createdAt)),
          h(
            'td',
            {},
            h(
              'button',
              {
                type: 'button',
                'aria-label': `Open ${name}`,
                onclick: () => leaveDraft() && openMapping(m.crm, m.object),
              },
              'Open',
            ),
          ),
        );
      }),
    );
    labelCells($('mapping-list'));
    fillRecordPickers(mappings);
  });
}

// The draft: every edit (a picker or the YAML) goes to POST mappings/render after a short pause; the
// answer is the document with the rows written in, its rows, and its problems. The latest edit wins.
let timer;
let pending;
let inFlight = Promise.resolve();
let sequence = 0;

function schedule(withRows) {
  clearTimeout(timer);
  pending = withRows;
  sequence++;
  $('mapping-editor').dataset.state = 'editing';
  timer = setTimeout(flushDraft, 350);
  updateSave();
}

/** Sends the pending edit now (before a preview or a save) and waits for its answer. */
async function flushDraft() {
  clearTimeout(timer);
  if (pending !== undefined) {
    const withRows = pending;
    pending = undefined;
    inFlight = sync(withRows, sequence);
  }
  await inFlight;
}

async function sync(withRows, mine) {
  const editor = $('mapping-editor');
  editor.dataset.state = 'checking';
  $('draft-status').setAttribute('aria-busy', 'true');
  try {
    const body = { document: $('mapping-document').value, ...(withRows ? { fields: getRows() } : {}) };
    const result = await api('POST', 'mappings/render', body);
    if (mine !== sequence) return;
    if (withRows) $('mapping-document').value = result.document;
    else if (result.fields) setRows(result.fields);
    setRowsEnabled(withRows || result.fields !== null);
    showProblems(result.problems);
    if (!withRows && result.fields === null)
      $('draft-status').append(h('p', {}, 'The pickers are off until the YAML parses again.'));
  } catch (error) {
    if (mine !== sequence) return;
    editor.dataset.state = 'problems';
    $('draft-status').replaceChildren(errorView(error));
  }
  $('draft-status').removeAttribute('aria-busy');
  updateSave();
}

function showProblems(problems) {
  const elsewhere = showRowProblems(problems);
  $('mapping-editor').dataset.state = problems.length ? 'problems' : 'valid';
  const n = problems.length;
  $('draft-status').replaceChildren(
    n === 0
      ? ok('No problems: this mapping passes the same checks as crm-enrich mappings check.')
      : h(
          'div',
          { class: 'error' },
          h(
            'p',
            {},
            h('strong', {}, `${n} problem${n === 1 ? '' : 's'}`),
            elsewhere.length < n ? ' (each shown under its row)' : '',
          ),
          elsewhere.length
            ? h(
                'ul',
                {},
                elsewhere.map((p) => h('li', {}, h('code', {}, p.field || '(document)'), ': ', p.message)),
              )
            : null,
        ),
  );
}

/** Whether the open mapping has edits that are not saved. */
const unsaved = () => Boolean(current) && !$('save').disabled;

/** Opening another mapping replaces the draft: ask first when it holds edits. */
function leaveDraft() {
  return !unsaved() || window.confirm(`Discard your unsaved changes to ${current.crm}/${current.object}?`);
}

// Closing or reloading the tab would lose the draft too; the browser asks in its own words.
window.addEventListener('beforeunload', (event) => {
  if (unsaved()) event.preventDefault();
});

function updateSave() {
  const changed = Boolean(current) && ($('mapping-document').value !== current.active.document || pending === true);
  $('save').disabled = !changed;
  $('save-hint').textContent = changed ? `Changed from version ${current.active.version}.` : 'Nothing changed yet.';
}

async function openMapping(crm, object) {
  await run($('mappings-message'), async () => {
    const { active, versions } = await api('GET', `mappings/${enc(crm)}/${enc(object)}`);
    current = { crm: active.crm, object: active.objectType, active };
    sequence++;
    pending = undefined;
    clearTimeout(timer);
    $('mapping-detail-title').textContent = `${active.crm}/${active.objectType}: version ${active.version} is active`;
    $('mapping-document').value = active.document;
    for (const id of [
      'validate-result',
      'preview-result',
      'save-result',
      'versions-result',
      'version-diff',
      'draft-status',
    ])
      $(id).replaceChildren();
    $('mapping-versions').tBodies[0].replaceChildren(
      ...versions.map((v) =>
        h(
          'tr',
          { class: v.active ? 'active' : null },
          h('th', { scope: 'row' }, v.version),
          h('td', {}, authorName(v.author)),
          h('td', {}, v.comment),
          h('td', {}, when(v.createdAt)),
          h(
            'td',
            {},
            v.active
              ? 'Active'
              : h(
                  'button',
                  { type: 'button', onclick: () => rollBack(v.version) },
                  `Roll back to version ${v.version}`,
                ),
          ),
          h(
            'td',
            {},
            v.active
              ? ''
              : h(
                  'button',
                  {
                    type: 'button',
                    'aria-label': `Compare version ${v.version} with the active version`,
                    onclick: () => compare(v.version),
                  },
                  'Compare',
                ),
          ),
        ),
      ),
    );
    labelCells($('mapping-versions'));
    $('mapping-detail').hidden = false;
    updateSave();
    const [lists, draft] = await Promise.all([
      api('GET', `mappings/${enc(current.crm)}/${enc(current.object)}/fields`).catch((error) => ({ error })),
      api('POST', 'mappings/render', { document: active.document }),
    ]);
    if (lists.error) {
      // Without the CRM's schema there is nothing to pick from; the YAML view still works.
      $('yaml-view').open = true;
      $('draft-status').replaceChildren(
        h('p', {}, 'The pickers need the CRM schema, which could not be read; edit as YAML instead.'),
        errorView(lists.error),
      );
      return null;
    }
    setPickers(lists);
    setRows(draft.fields ?? []);
    setRowsEnabled(draft.fields !== null);
    showProblems(draft.problems);
    return null;
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
    await flushDraft();
    const recordId = $('preview-record').value.trim();
    const result = await api('POST', 'mappings/preview', {
      document: $('mapping-document').value,
      crm: current.crm,
      object: current.object,
      recordId,
    });
    const writes = Object.keys(result.wouldWrite).length;
    return [
      h(
        'p',
        {},
        `Record ${result.record.id}: `,
        result.match ? `the partner matched it by ${result.match.by}` : 'the partner has no match for it',
        `; saving this document would write ${writes} propert${writes === 1 ? 'y' : 'ies'}. Nothing was written.`,
      ),
      labelCells(
        table(
          `Preview of ${current.crm}/${current.object} ${result.record.id}`,
          ['Property', 'Current', 'New', 'Rule', 'Outcome', 'Reason'],
          result.rows.map((r) => [
            h('code', {}, r.property),
            shown(r.current),
            shown(r.new),
            r.rule,
            h('span', { class: `outcome ${r.outcome}` }, r.outcome),
            r.reason ?? '',
          ]),
        ),
      ),
    ];
  });
}

/** Asks in the page's own dialog (it can show a diff, which window.confirm cannot); resolves to the answer. */
function confirmAction({ title, text, diff, confirm }) {
  const dialog = $('mapping-confirm');
  $('mapping-confirm-title').textContent = title;
  $('mapping-confirm-text').textContent = text;
  $('mapping-confirm-diff').replaceChildren(diff);
  $('mapping-confirm-ok').textContent = confirm;
  return new Promise((resolve) => {
    const done = (answer) => {
      dialog.oncancel = null;
      $('mapping-confirm-ok').onclick = null;
      $('mapping-confirm-cancel').onclick = null;
      dialog.close();
      resolve(answer);
    };
    $('mapping-confirm-ok').onclick = () => done(true);
    $('mapping-confirm-cancel').onclick = () => done(false);
    dialog.oncancel = (event) => {
      event.preventDefault();
      done(false);
    };
    dialog.showModal();
    // A mistaken Enter should not save or roll back: the safe answer has the focus.
    $('mapping-confirm-cancel').focus();
  });
}

async function save(event) {
  event.preventDefault();
  await flushDraft();
  const { crm, object, active } = current;
  const document = $('mapping-document').value;
  if (document === active.document) return updateSave();
  // The service would refuse it with the same problems the editor already shows: say so instead of asking.
  if ($('mapping-editor').dataset.state === 'problems') {
    return $('save-result').replaceChildren(
      h(
        'div',
        { class: 'error', role: 'alert' },
        h('p', {}, 'Not saved: the draft has problems (shown with the fields above); fix them first.'),
      ),
    );
  }
  const comment = $('save-comment').value.trim();
  const yes = await confirmAction({
    title: `Save a new version of ${crm}/${object}?`,
    text:
      `It becomes the active version at once, with the comment “${comment}”. ` +
      `These are the changes from version ${active.version}:`,
    diff: diffView(active.document, document, {
      before: `version ${active.version} (active)`,
      after: 'the new version',
    }),
    confirm: 'Save version',
  });
  if (!yes) return $('save').focus();
  return run($('save-result'), async () => {
    const saved = await api('POST', `mappings/${enc(crm)}/${enc(object)}/versions`, {
      document,
      author: $('save-author').value,
      comment,
    });
    await openMapping(crm, object);
    await loadMappings();
    $('save-comment').value = '';
    return ok(`Saved version ${saved.active.version} of ${crm}/${object}; it is active now.`);
  });
}

async function versionDocument(version) {
  const { crm, object } = current;
  return (await api('GET', `mappings/${enc(crm)}/${enc(object)}/versions/${version}`)).version.document;
}

function compare(version) {
  return run($('version-diff'), async () => {
    const { active } = current;
    const document = await versionDocument(version);
    return [
      h('h4', {}, `Version ${version} compared with the active version ${active.version}`),
      diffView(document, active.document, {
        before: `version ${version}`,
        after: `version ${active.version} (active)`,
      }),
    ];
  });
}

async function rollBack(version) {
  const { crm, object, active } = current;
  let document;
  try {
    document = await versionDocument(version);
  } catch (error) {
    return $('versions-result').replaceChildren(errorView(error));
  }
  const yes = await confirmAction({
    title: `Roll back ${crm}/${object} to version ${version}?`,
    text:
      `Version ${version} becomes the active version at once, in place of version ${active.version}. ` +
      'This is what changes:',
    diff: diffView(active.document, document, {
      before: `version ${active.version} (active now)`,
      after: `version ${version}`,
    }),
    confirm: 'Roll back',
  });
  if (!yes) return undefined;
  return run($('versions-result'), async () => {
    const rolled = await api('POST', `mappings/${enc(crm)}/${enc(object)}/rollback`, { version });
    await openMapping(crm, object);
    await loadMappings();
    return ok(`Rolled back: version ${rolled.active.version} of ${crm}/${object} is active now.`);
  });
}

export function wireMappings() {
  $('validate').addEventListener('click', validate);
  $('preview-form').addEventListener('submit', preview);
  $('save-form').addEventListener('submit', save);
  $('mapping-document').addEventListener('input', () => schedule(false));
  wireFieldEditor(() => schedule(true));
}
