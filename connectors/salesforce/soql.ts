/**
 * The SOQL the connector sends. Field names are checked before they go into a query (nothing from
 * outside is spliced in unchecked), and reads by id are split so every GET stays under Salesforce's
 * URI length limit (16,384 bytes; the SOQL itself may be 100,000 characters, so the URI binds first).
 */
import { CrmError } from '../../src/core/connector.js';

const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
export const SALESFORCE_MAX_URI = 16_384;

export function checkFieldNames(fields: string[]): void {
  const bad = fields.filter((f) => !FIELD_NAME.test(f));
  if (bad.length > 0) {
    throw new CrmError('salesforce', 'validation', `Not Salesforce field API names: ${bad.map((b) => JSON.stringify(b)).join(', ')}. Use names like Email or Tier__c.`);
  }
}

export function soqlDatetime(date: Date): string {
  return date.toISOString();
}

/** Length once in a URL: HTTP clients also escape the quotes and brackets encodeURIComponent leaves alone. */
const encodedLength = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, '%XX').length;

const quote = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export function selectByIds(objectType: string, fields: string[], ids: string[]): string {
  return `SELECT ${fields.join(', ')} FROM ${objectType} WHERE Id IN (${ids.map(quote).join(', ')})`;
}

/**
 * Splits ids into queries whose full GET URL (`<base>/query?q=<encoded SOQL>`) stays within `maxUri`.
 * `baseLength` is the length of everything before the encoded SOQL.
 */
export function chunkIdQueries(objectType: string, fields: string[], ids: string[], baseLength: number, maxUri = SALESFORCE_MAX_URI): string[] {
  const room = maxUri - baseLength;
  const fixed = encodedLength(selectByIds(objectType, fields, []));
  if (fixed + 64 > room) {
    throw new CrmError('salesforce', 'validation', `Too many fields in one read of ${objectType} (${fields.length}); the query would not fit in a request. Map fewer fields.`);
  }
  const queries: string[] = [];
  let chunk: string[] = [];
  let used = fixed;
  for (const id of ids) {
    let cost = encodedLength(`${chunk.length > 0 ? ', ' : ''}${quote(id)}`);
    if (chunk.length > 0 && used + cost > room) {
      queries.push(selectByIds(objectType, fields, chunk));
      chunk = [];
      used = fixed;
      cost = encodedLength(quote(id));
    }
    chunk.push(id);
    used += cost;
  }
  if (chunk.length > 0) queries.push(selectByIds(objectType, fields, chunk));
  return queries;
}

export interface KeysetCursor {
  lastModified: string;
  id: string;
}

/** Records changed since a time, oldest first, resuming after the last record of the previous page. */
export function selectChanged(objectType: string, fields: string[], since: Date | undefined, after: KeysetCursor | undefined, limit: number): string {
  const where: string[] = [];
  if (since) where.push(`LastModifiedDate >= ${soqlDatetime(since)}`);
  if (after) {
    const t = soqlDatetime(new Date(after.lastModified));
    where.push(`(LastModifiedDate > ${t} OR (LastModifiedDate = ${t} AND Id > ${quote(after.id)}))`);
  }
  const clause = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  return `SELECT ${fields.join(', ')} FROM ${objectType}${clause} ORDER BY LastModifiedDate ASC, Id ASC LIMIT ${limit}`;
}
