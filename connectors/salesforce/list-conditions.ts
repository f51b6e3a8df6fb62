/**
 * A listing's conditions (ListOptions.where) as SOQL WHERE terms, so a segment of an object is read
 * rather than all of it. Only what SOQL says the same way the caller's own filter does goes into the
 * query: a term the query holds back only reads more records, which the caller's filter drops, while a
 * term that read fewer would lose records. So: emptiness on any filterable field, = and != on text and
 * picklists (compared without case, as the caller does), and every comparison of a number field with a
 * number. Long text areas, multi-select picklists and encrypted fields cannot be filtered in SOQL as
 * written here, and dates are left to the caller.
 */
import type { CrmProperty, ListCondition } from '../../src/core/connector.js';
import { soqlString } from './soql.js';

const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
const UNFILTERABLE = new Set(['textarea', 'multipicklist', 'encryptedstring', 'base64']);
const TEXT = new Set(['string', 'email', 'phone', 'url', 'enumeration']);

export function soqlConditions(where: readonly ListCondition[], fields: ReadonlyMap<string, CrmProperty>): string[] {
  const terms: string[] = [];
  for (const c of where) {
    const field = fields.get(c.property.toLowerCase());
    if (!field || !FIELD_NAME.test(field.name) || UNFILTERABLE.has(field.crmType ?? '')) continue;
    if (c.op === 'empty' || c.op === 'present') {
      // An empty text field is null in SOQL: Salesforce stores no empty strings.
      terms.push(`${field.name} ${c.op === 'empty' ? '=' : '!='} null`);
      continue;
    }
    const value = c.value ?? '';
    const number = Number(value.trim());
    if (field.type === 'number' && value.trim() !== '' && Number.isFinite(number))
      terms.push(`${field.name} ${c.op} ${number}`);
    else if (TEXT.has(field.type) && (c.op === '=' || c.op === '!='))
      terms.push(`${field.name} ${c.op} ${soqlString(value)}`);
  }
  return terms;
}
