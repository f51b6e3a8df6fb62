// Shared by every view of the admin page: DOM building, the admin API client, names people read.
// Everything shown is built with DOM nodes and text, never parsed as HTML, because mapping comments,
// record values and error messages come from people and partners we do not control.

export const API = new URL('../api/', import.meta.url);
export const TOKEN_KEY = 'crm-enrich.admin-token';
export const $ = (id) => document.getElementById(id);
export const enc = encodeURIComponent;

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') node.addEventListener(name.replace(/^on/, ''), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  node.append(
    ...children
      .flat(Infinity)
      .filter((c) => c !== undefined && c !== null)
      .map((c) => (c instanceof Node ? c : String(c))),
  );
  return node;
}

export const when = (value) =>
  value ? new Date(value).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }) : '';
export const shown = (value) =>
  value === null || value === undefined || value === '' ? h('span', { class: 'empty' }, '(empty)') : String(value);
/**
 * A table; one of more than four columns is `wide`, and on a phone each of its rows becomes a card of
 * label/value lines (each cell carries its column's title in `data-label`) instead of squeezed columns.
 */
export const table = (caption, headers, rows, empty = 'Nothing to show.') =>
  h(
    'table',
    { class: headers.length > 4 ? 'wide' : null },
    h('caption', {}, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headers.map((title) => h('th', { scope: 'col' }, title)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.length
        ? rows.map((cells) =>
            h(
              'tr',
              {},
              cells.map((cell, i) =>
                h('td', { 'data-label': typeof headers[i] === 'string' ? headers[i] : null }, cell),
              ),
            ),
          )
        : h('tr', {}, h('td', { colspan: headers.length, class: 'none' }, empty)),
    ),
  );
export const definitions = (pairs) =>
  h(
    'dl',
    {},
    pairs.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );

export async function api(method, path, body) {
  const headers = { authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) ?? ''}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(new URL(path, API), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError(0, 'unreachable', `the service did not answer (${error.message}); check that it is running`);
  }
  const payload = await res.json().catch(() => null);
  if (res.ok) return payload;
  const error = payload?.error ?? {
    code: `http_${res.status}`,
    message: `the service answered ${res.status} ${res.statusText}`,
  };
  const failure = new ApiError(res.status, error.code, error.message, error.details);
  if (res.status === 401) onUnauthorized(failure);
  throw failure;
}

export function errorView(error) {
  const details = error.details ?? {};
  const problems = details.problems ?? details.issues ?? [];
  return h(
    'div',
    { class: 'error', role: 'alert' },
    h(
      'p',
      {},
      h('strong', {}, error.status ? `Error ${error.status} (${error.code ?? 'error'}): ` : 'Error: '),
      error.message,
    ),
    details.field && !problems.length ? h('p', {}, 'Field: ', h('code', {}, details.field)) : null,
    problems.length
      ? table(
          `${problems.length} problem${problems.length === 1 ? '' : 's'}`,
          ['Field', 'Code', 'Message'],
          problems.map((p) => [h('code', {}, p.field || '(document)'), p.code ?? '', p.message]),
        )
      : null,
  );
}

export const ok = (text) => h('p', { class: 'ok' }, text);

/** Runs an action and shows its outcome (or its error) in `target`. */
export async function run(target, action) {
  target.replaceChildren(h('p', { class: 'busy' }, 'Working…'));
  try {
    const view = await action();
    target.replaceChildren(
      ...[view].flat(Infinity).filter((node) => node !== undefined && node !== null && node !== false),
    );
  } catch (error) {
    target.replaceChildren(errorView(error));
  }
}

let onUnauthorized = () => undefined;
/** What to do when the service refuses the token (the shell signs out). */
export function whenUnauthorized(handler) {
  onUnauthorized = handler;
}

const CRM_NAMES = { hubspot: 'HubSpot', salesforce: 'Salesforce' };
export const crmName = (crm) => CRM_NAMES[crm] ?? crm;
export const objectName = (object) => object.charAt(0).toUpperCase() + object.slice(1);
export const count = (n) => (typeof n === 'number' ? n.toLocaleString('en') : String(n ?? ''));
export const humanize = (name) =>
  String(name)
    .replace(/[._]+/g, ' ')
    .replace(/^./, (c) => c.toUpperCase());

/** An object's name in the plural, as a sentence says it: contacts, companies, leads. */
export const plural = (object) => {
  const word = String(object).toLowerCase();
  return /[^aeiou]y$/.test(word) ? `${word.slice(0, -1)}ies` : `${word}s`;
};

/** `enrich.hubspot.contact` reads as "HubSpot contacts"; other names lose their dots and underscores. */
export function queueName(queue) {
  if (queue === 'dead_letter') return 'Dead letters';
  const [, crm, object] = String(queue).split('.');
  return CRM_NAMES[crm] && object ? `${CRM_NAMES[crm]} ${plural(object)}` : humanize(queue);
}
