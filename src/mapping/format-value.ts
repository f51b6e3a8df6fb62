/**
 * Turns a mapped value into the string a CRM expects for the target property: dates as YYYY-MM-DD
 * (HubSpot and Salesforce date properties both take it) or ISO times for datetime properties,
 * numbers without exponents, booleans as 'true'/'false'.
 */
import type { CrmProperty } from '../core/connector.js';

const CUT_TO_LENGTH: ReadonlySet<string> = new Set(['string', 'text']);

function toText(value: unknown, property: CrmProperty | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') {
    if (value === '') return undefined;
    const text = value.charCodeAt(0) > 32 && value.charCodeAt(value.length - 1) > 32 ? value : value.trim();
    return text === '' ? undefined : text;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    return Number.isInteger(value) && Math.abs(value) < 1e21 ? value.toFixed(0) : String(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return undefined;
    const iso = value.toISOString();
    return property?.type === 'datetime' ? iso : iso.slice(0, 10);
  }
  return undefined;
}

/** The CRM string for a value, or undefined when there is nothing to write. */
export function formatValue(value: unknown, property?: CrmProperty): string | undefined {
  const text = toText(value, property);
  if (text === undefined || property?.maxLength === undefined || text.length <= property.maxLength) return text;
  // Cutting free text keeps most of it; a cut e-mail address, phone number or URL would be wrong, so it is left out.
  return CUT_TO_LENGTH.has(property.type) ? text.slice(0, property.maxLength) : undefined;
}
