// The Mappings view's field rows: one table row per `fields` entry, with a picker for the target
// property (the CRM's own schema, labelled with each property's label and type), the source field
// (the partner's fields, grouped), the transform and the rule. The lists come from the service
// (GET mappings/:crm/:object/fields), never from a copy here. Keys the pickers do not cover (value
// maps, defaults, custom property declarations) stay in the row untouched and are named in it.
import { $, h, humanize } from './core.js';

const KEEP = '__keep__';
let catalog = { targets: [], sources: { person: [], company: [] }, rules: [], transforms: [], source: null };
let rows = [];
let onEdit = () => undefined;

/** The lists the pickers offer, as the fields route answers them. */
export function setPickers(lists) {
  catalog = lists;
  const rules = h(
    'dl',
    {},
    lists.rules.map((r) => [
      h('dt', {}, h('code', {}, r.name), r.default ? ' (default)' : ''),
      h('dd', {}, r.description),
    ]),
  );
  const transforms = h(
    'dl',
    {},
    lists.transforms.map((t) => [h('dt', {}, h('code', {}, t.name)), h('dd', {}, t.description)]),
  );
  $('picker-help-body').replaceChildren(
    h('h4', {}, 'Rules: when a value is written'),
    rules,
    h('h4', {}, 'Transforms'),
    transforms,
  );
}

/**
 * While the YAML does not parse its rows cannot be read, so the pickers would edit a stale copy:
 * they are disabled until the text parses again.
 */
export function setRowsEnabled(enabled) {
  for (const control of $('mapping-fields').querySelectorAll('select, button')) control.disabled = !enabled;
  $('add-field').disabled = !enabled;
}

export const getRows = () => rows.map((row) => ({ ...row }));

/** Replaces the rows (a document was opened, or edited as YAML); returns whether anything changed. */
export function setRows(next) {
  if (JSON.stringify(next) === JSON.stringify(rows)) return false;
  rows = next.map((row) => ({ ...row }));
  renderRows();
  return true;
}

const rowName = (row, i) => (row.target ? row.target : `row ${i + 1}`);

function option(value, text, selected, disabled = false) {
  return h('option', { value, selected: selected || null, disabled: disabled || null }, text);
}

function targetPicker(row, i) {
  const known = catalog.targets.some((t) => t.name === row.target);
  const extra =
    row.target && !known
      ? option(
          row.target,
          row.custom
            ? `${row.custom.label} (${row.target}, ${row.custom.type}, declared here, created by provisioning)`
            : `${row.target} (not in the CRM)`,
          true,
        )
      : null;
  return h(
    'select',
    { 'aria-label': `Target property, row ${i + 1}`, class: 'pick-target', 'data-key': 'target' },
    option('', 'Choose a property…', !row.target, false),
    extra,
    catalog.targets.map((t) =>
      option(
        t.name,
        `${t.label} (${t.name}, ${t.type}${t.readOnly ? ', read-only' : ''})`,
        t.name === row.target,
        t.readOnly && t.name !== row.target,
      ),
    ),
  );
}

/** Partner fields grouped by where they sit in the record: top-level ones, then one group per section. */
function sourcePicker(row, i) {
  const kind = catalog.source ?? 'person';
  const paths = catalog.sources[kind] ?? [];
  const groups = new Map();
  for (const p of paths) {
    const head = p.path.includes('.') ? humanize(p.path.split('.')[0]) : humanize(kind);
    if (!groups.has(head)) groups.set(head, []);
    groups.get(head).push(p);
  }
  const known = paths.some((p) => p.path === row.from);
  return h(
    'select',
    { 'aria-label': `Source field for ${rowName(row, i)}`, class: 'pick-source', 'data-key': 'from' },
    option('', 'Choose a partner field…', !row.from),
    row.from && !known ? option(row.from, `${row.from} (not a listed field)`, true) : null,
    [...groups].map(([label, list]) =>
      h(
        'optgroup',
        { label: `${label} (partner ${kind})` },
        list.map((p) => option(p.path, `${p.path} (${p.type})`, p.path === row.from)),
      ),
    ),
  );
}

function transformPicker(row, i) {
  const t = row.transform;
  const name = typeof t === 'string' ? t : t && !Array.isArray(t) && typeof t === 'object' ? t.name : undefined;
  // Several steps, or a name the registry does not know: offered as they are, edited as YAML.
  const complex = Array.isArray(t) ? t.map((s) => (typeof s === 'string' ? s : s?.name)).join(' → ') : undefined;
  const known = name === undefined || catalog.transforms.some((x) => x.name === name);
  const args =
    t && typeof t === 'object' && !Array.isArray(t) && t.args
      ? ` (${Object.entries(t.args)
          .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
          .join(', ')})`
      : '';
  return h(
    'select',
    { 'aria-label': `Transform for ${rowName(row, i)}`, class: 'pick-transform', 'data-key': 'transform' },
    option('', 'None', t === undefined),
    complex ? option(KEEP, `${complex} (several steps; edit as YAML)`, true) : null,
    !complex && !known ? option(KEEP, `${name} (unknown)`, true) : null,
    catalog.transforms.map((x) =>
      option(x.name, `${x.name}${x.name === name ? args : ''}`, !complex && x.name === name),
    ),
  );
}

function rulePicker(row, i) {
  const fallback = catalog.rules.find((r) => r.default);
  const known = row.rule === undefined || catalog.rules.some((r) => r.name === row.rule);
  return h(
    'select',
    { 'aria-label': `Rule for ${rowName(row, i)}`, class: 'pick-rule', 'data-key': 'rule' },
    option('', `Default (${fallback?.name ?? 'protect_edits'})`, row.rule === undefined),
    known ? null : option(KEEP, `${String(row.rule)} (unknown)`, true),
    catalog.rules.map((r) => option(r.name, `${r.name}: ${r.description}`, r.name === row.rule)),
  );
}

const OTHER_KEYS = {
  values: 'value map',
  default: 'default value',
  custom: 'custom property',
  allow_dnd: 'do-not-disturb numbers allowed',
};

function rowView(row, i) {
  const others = Object.keys(row).filter((k) => !['target', 'from', 'transform', 'rule'].includes(k));
  const note = others.length
    ? h('p', { class: 'hint' }, `Also: ${others.map((k) => OTHER_KEYS[k] ?? k).join(', ')} (edit as YAML)`)
    : null;
  return h(
    'tr',
    { class: 'field-row', 'data-row': i },
    h('td', { 'data-label': 'Target property' }, targetPicker(row, i), note),
    h('td', { 'data-label': 'Source field' }, sourcePicker(row, i)),
    h('td', { 'data-label': 'Transform' }, transformPicker(row, i)),
    h('td', { 'data-label': 'Rule' }, rulePicker(row, i)),
    h(
      'td',
      {},
      h('button', { type: 'button', class: 'remove-row', 'aria-label': `Remove ${rowName(row, i)}` }, 'Remove'),
    ),
  );
}

function renderRows() {
  const body = $('mapping-fields').tBodies[0];
  body.replaceChildren(
    ...(rows.length ? rows.map(rowView) : [h('tr', {}, h('td', { colspan: 5 }, 'No fields yet: add one.'))]),
  );
}

/** What a picker's new value does to its row. */
function apply(row, key, value) {
  if (value === KEEP) return;
  if (key === 'target' || key === 'from') row[key] = value;
  else if (value === '') delete row[key];
  else if (key === 'transform') {
    const before = row.transform;
    // A transform's arguments belong to it: kept while the name stays, dropped with another one.
    row.transform =
      before && typeof before === 'object' && !Array.isArray(before) && before.name === value ? before : value;
  } else row[key] = value;
}

/** The accessible names follow a changed target ("Rule for jobtitle"), without rebuilding the row. */
function rename(tr, row, i) {
  const name = rowName(row, i);
  tr.querySelector('.pick-source').setAttribute('aria-label', `Source field for ${name}`);
  tr.querySelector('.pick-transform').setAttribute('aria-label', `Transform for ${name}`);
  tr.querySelector('.pick-rule').setAttribute('aria-label', `Rule for ${name}`);
  tr.querySelector('.remove-row').setAttribute('aria-label', `Remove ${name}`);
}

/**
 * Shows each problem next to the row its path points at (`fields > jobtitle > rule`, or
 * `fields > 3 > target` for a row without a usable target) and returns the ones that name no row.
 */
export function showRowProblems(problems) {
  const body = $('mapping-fields').tBodies[0];
  for (const old of body.querySelectorAll('tr.row-problems')) old.remove();
  for (const select of body.querySelectorAll('select[aria-invalid]')) {
    select.removeAttribute('aria-invalid');
    select.removeAttribute('aria-describedby');
  }
  const byRow = new Map();
  const elsewhere = [];
  for (const p of problems) {
    const [head, which, key] = String(p.field ?? '').split(' > ');
    const index =
      head !== 'fields' || which === undefined
        ? -1
        : /^\d+$/.test(which)
          ? Number(which)
          : rows.findIndex((r) => r.target === which);
    if (index < 0 || index >= rows.length) {
      elsewhere.push(p);
      continue;
    }
    if (!byRow.has(index)) byRow.set(index, []);
    byRow.get(index).push({ ...p, key });
  }
  for (const [index, list] of byRow) {
    const tr = body.querySelector(`tr.field-row[data-row="${index}"]`);
    if (!tr) continue;
    const id = `row-problems-${index}`;
    tr.after(
      h(
        'tr',
        { class: 'row-problems' },
        h(
          'td',
          { colspan: 5 },
          h(
            'ul',
            { id, 'aria-label': `Problems in ${rowName(rows[index], index)}` },
            list.map((p) => h('li', {}, h('code', {}, p.field), ': ', p.message)),
          ),
        ),
      ),
    );
    const keys = new Set(list.map((p) => p.key ?? 'target'));
    for (const select of tr.querySelectorAll('select')) {
      const key = select.dataset.key;
      if (keys.has(key) || (key === 'target' && [...keys].some((k) => !['from', 'transform', 'rule'].includes(k)))) {
        select.setAttribute('aria-invalid', 'true');
        select.setAttribute('aria-describedby', id);
      }
    }
  }
  return elsewhere;
}

export function wireFieldEditor(edited) {
  onEdit = edited;
  const body = $('mapping-fields').tBodies[0];
  body.addEventListener('change', (event) => {
    const select = event.target.closest('select');
    const tr = select?.closest('tr.field-row');
    if (!tr) return;
    const i = Number(tr.dataset.row);
    apply(rows[i], select.dataset.key, select.value);
    if (select.dataset.key === 'target') rename(tr, rows[i], i);
    onEdit();
  });
  body.addEventListener('click', (event) => {
    const button = event.target.closest('button.remove-row');
    if (!button) return;
    const i = Number(button.closest('tr').dataset.row);
    rows.splice(i, 1);
    renderRows();
    (
      body.querySelector(`tr.field-row[data-row="${Math.min(i, rows.length - 1)}"] .remove-row`) ?? $('add-field')
    ).focus();
    onEdit();
  });
  $('add-field').addEventListener('click', () => {
    rows.push({ target: '', from: '' });
    renderRows();
    body.querySelector(`tr.field-row[data-row="${rows.length - 1}"] select`).focus();
    onEdit();
  });
}
