/**
 * Salesforce records on the wire: SOQL rows to the core's records, the core's strings to the types
 * Salesforce's JSON expects, and the keyset cursor of a listing.
 */
import { CrmError, type CrmProperty, type CrmRecord } from '../../src/core/connector.js';
import { toId18 } from './ids.js';
import type { KeysetCursor } from './soql.js';

/** Records per sObject Collections request (Salesforce's limit). */
export const COLLECTION_LIMIT = 200;

export function toIso(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

export function asString(value: unknown): string | null {
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
}

export function toRecord(raw: Record<string, unknown>, properties: string[]): CrmRecord {
  const lower = new Map(Object.keys(raw).map((k) => [k.toLowerCase(), k]));
  const props: Record<string, string | null> = {};
  for (const p of properties) props[p] = asString(raw[lower.get(p.toLowerCase()) ?? p]);
  return {
    id: String(raw.Id),
    properties: props,
    createdAt: toIso(raw.CreatedDate),
    updatedAt: toIso(raw.LastModifiedDate),
  };
}

/** Strings as the core writes them, typed as Salesforce's JSON expects; an empty string clears. */
export function encodeValue(value: string, property: CrmProperty | undefined): string | number | boolean | null {
  if (value === '') return null;
  if (property?.type === 'number' && Number.isFinite(Number(value))) return Number(value);
  if (property?.type === 'bool' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

export function encodeCursor(cursor: KeysetCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

export function decodeCursor(cursor: string): KeysetCursor {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<KeysetCursor>;
    if (
      typeof parsed.lastModified === 'string' &&
      !Number.isNaN(Date.parse(parsed.lastModified)) &&
      typeof parsed.id === 'string' &&
      toId18(parsed.id)
    ) {
      return { lastModified: parsed.lastModified, id: toId18(parsed.id) ?? parsed.id };
    }
  } catch {
    // fall through to the error below
  }
  throw new CrmError(
    'salesforce',
    'validation',
    'The list cursor is not one this connector issued; start the listing again without a cursor.',
  );
}
