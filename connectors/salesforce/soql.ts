/**
 * The SOQL the connector sends. Field names are checked before they go into a query (nothing from
 * outside is spliced in unchecked), and reads by id are split so every GET stays well under
 * Salesforce's limit of 16,384 bytes for the request line and headers together (431 past it; the SOQL
 * itself may be 100,000 characters, so the URI binds first). Half of it goes to the URI, the rest is
 * left to the headers (the session token alone is a few hundred bytes).
 */
import { CrmError } from '../../src/core/connector.js';

const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
export const SALESFORCE_MAX_URI = 8_192;

export function checkFieldNames(fields: string[]): void {
  const bad = fields.filter((f) => !FIELD_NAME.test(f));
  if (bad.length > 0) {
    throw new CrmError(
      'salesforce',
      'validation',
      `Not Salesforce field API names: ${bad.map((b) => JSON.stringify(b)).join(', ')}. Use names like Email ` +
        'or Tier__c.',
    );
  }
}

export function soqlDatetime(date: Date): string {
  return date.toISOString();
}

/** Length once in a URL: HTTP clients also escape the quotes and brackets encodeURIComponent leaves alone. */
const encodedLength = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, '%XX').length;

export const soqlString = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export function selectByIds(objectType: string, fields: string[], ids: string[]): string {
  return `SELECT ${fields.join(', ')} FROM ${objectType} WHERE Id IN (${ids.map(soqlString).join(', ')})`;
}

/**
 * Packs terms into as few queries as fit: each query's full GET URL (`<base>/query?q=<encoded SOQL>`)
 * stays within `room` + `baseLength`. `build` turns a list of terms into the whole SOQL; `render` and
 * `separator` are how one term appears in it, so its encoded cost is known before it is added.
 */
function chunkByUri(
  terms: string[],
  build: (terms: string[]) => string,
  render: (term: string) => string,
  separator: string,
  room: number,
): string[] {
  const fixed = encodedLength(build([]));
  const queries: string[] = [];
  let chunk: string[] = [];
  let used = fixed;
  for (const term of terms) {
    let cost = encodedLength(`${chunk.length > 0 ? separator : ''}${render(term)}`);
    if (chunk.length > 0 && used + cost > room) {
      queries.push(build(chunk));
      chunk = [];
      used = fixed;
      cost = encodedLength(render(term));
    }
    chunk.push(term);
    used += cost;
  }
  if (chunk.length > 0) queries.push(build(chunk));
  return queries;
}

/**
 * Splits ids into queries whose full GET URL stays within `maxUri`.
 * `baseLength` is the length of everything before the encoded SOQL.
 */
export function chunkIdQueries(
  objectType: string,
  fields: string[],
  ids: string[],
  baseLength: number,
  maxUri = SALESFORCE_MAX_URI,
): string[] {
  const room = maxUri - baseLength;
  if (encodedLength(selectByIds(objectType, fields, [])) + 64 > room) {
    throw new CrmError(
      'salesforce',
      'validation',
      `Too many fields in one read of ${objectType} (${fields.length}); the query would not fit in a request. ` +
        'Map fewer fields.',
    );
  }
  return chunkByUri(ids, (chunk) => selectByIds(objectType, fields, chunk), soqlString, ', ', room);
}

/** A LIKE operand matching values that contain `text`: SOQL's quote escapes plus `\%` and `\_` for its wildcards. */
export function likeContaining(text: string): string {
  return `'%${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/[%_]/g, '\\$&')}%'`;
}

const selectByWebsites = (domains: string[]) =>
  'SELECT Id, Website FROM Account WHERE ' +
  `${domains.map((d) => `Website LIKE ${likeContaining(d)}`).join(' OR ')} ORDER BY Id`;

/**
 * Accounts whose Website contains one of the domains, in as few queries as fit the URI limit. The
 * answer is a superset (`notacme.com` contains `acme.com`): the caller keeps exact matches only.
 */
export function chunkWebsiteQueries(domains: string[], baseLength: number, maxUri = SALESFORCE_MAX_URI): string[] {
  return chunkByUri(domains, selectByWebsites, (d) => `Website LIKE ${likeContaining(d)}`, ' OR ', maxUri - baseLength);
}

export interface KeysetCursor {
  lastModified: string;
  id: string;
}

/**
 * Records changed since a time (and meeting `conditions`, SOQL terms already checked), oldest first,
 * resuming after the last record of the previous page.
 */
export function selectChanged(
  objectType: string,
  fields: string[],
  since: Date | undefined,
  after: KeysetCursor | undefined,
  limit: number,
  conditions: readonly string[] = [],
): string {
  const where: string[] = [...conditions];
  if (since) where.push(`LastModifiedDate >= ${soqlDatetime(since)}`);
  if (after) {
    const t = soqlDatetime(new Date(after.lastModified));
    where.push(`(LastModifiedDate > ${t} OR (LastModifiedDate = ${t} AND Id > ${soqlString(after.id)}))`);
  }
  const clause = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  return `SELECT ${fields.join(', ')} FROM ${objectType}${clause} ORDER BY LastModifiedDate ASC, Id ASC LIMIT ${limit}`;
}

/**
 * Records by exact field values (the partner id, the name; Salesforce compares text without case), or
 * by a field holding any value (`value` null), oldest first, in as few queries as fit the URI limit.
 */
export function chunkKeyQueries(
  terms: { field: string; value: string | null }[],
  fields: string[],
  baseLength: number,
  maxUri = SALESFORCE_MAX_URI,
  objectType = 'Account',
): string[] {
  const term = (t: { field: string; value: string | null }) =>
    t.value === null ? `${t.field} != null` : `${t.field} = ${soqlString(t.value)}`;
  const build = (chunk: { field: string; value: string | null }[]) =>
    `SELECT ${fields.join(', ')} FROM ${objectType} WHERE ${chunk.map(term).join(' OR ')} ORDER BY CreatedDate, Id`;
  const encoded = terms.map((t) => JSON.stringify(t));
  return chunkByUri(
    encoded,
    (chunk) => build(chunk.map((e) => JSON.parse(e) as { field: string; value: string | null })),
    (e) => term(JSON.parse(e) as { field: string; value: string | null }),
    ' OR ',
    maxUri - baseLength,
  );
}
