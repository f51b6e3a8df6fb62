/**
 * POST /people/search. The specification types every body field as a string and leaves the
 * maximum `size` open: numeric fields take a numeric string (or a whole number), `size` is 1 to 100
 * (default 10), `from` defaults to 0. A bad field is a 400 generic body that names it.
 */
import { MARKETS, DEFAULT_MARKET, type Market, type PersonSearchResult } from '../schemas.js';
import type { PartnerDataset } from './dataset.js';
import { SandboxHttpError } from './http-error.js';
import type { PersonRecord } from './person-generator.js';
import { countryScope, filtersPredicate } from './search-filters.js';

export const MAX_SEARCH_SIZE = 100;
const badField = (message: string) => SandboxHttpError.generic(400, message);

function wholeNumber(
  body: Record<string, unknown>,
  field: string,
  min: number,
  max: number,
  what: string,
): number | undefined {
  const value = body[field];
  if (value === undefined || value === null || value === '') return undefined;
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d+$/.test(text.trim()) || Number(text) < min || Number(text) > max) {
    throw badField(`${field} must be ${what}, got ${JSON.stringify(value)}`);
  }
  return Number(text);
}

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw badField(`${field} must be a string, got ${JSON.stringify(value)}`);
  return value;
}

function toSearchResult(record: PersonRecord): PersonSearchResult {
  return {
    person_id: record.id,
    position: record.position,
    company_name: record.employer.company.name,
    linkedin: record.slug,
    has_email: record.workEmail !== undefined || record.personalEmail !== undefined,
    has_personal_email: record.personalEmail !== undefined,
    has_phone: record.phones.length > 0,
    has_dnd_phone: record.phones.some((p) => p.is_dnd),
    has_mobile: record.mobile !== undefined,
  };
}

export function searchPeople(dataset: PartnerDataset, body: unknown): PersonSearchResult[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badField('the request body must be a JSON object');
  const fields = body as Record<string, unknown>;
  const selected = optionalString(fields, 'selectedCountry') ?? DEFAULT_MARKET;
  if (!(MARKETS as readonly string[]).includes(selected)) {
    throw badField(`selectedCountry must be one of ${MARKETS.join(', ')}, got ${JSON.stringify(selected)}`);
  }
  const companyId = optionalString(fields, 'companyId');
  const position = optionalString(fields, 'position')?.toLowerCase();
  const seniority = wholeNumber(fields, 'seniority', 1, 7, 'a seniority id from 1 to 7');
  const department = wholeNumber(fields, 'department', 1, 17, 'a department id from 1 to 17');
  const from = wholeNumber(fields, 'from', 0, Number.MAX_SAFE_INTEGER, 'a whole number of at least 0') ?? 0;
  const size = wholeNumber(fields, 'size', 1, MAX_SEARCH_SIZE, `a whole number from 1 to ${MAX_SEARCH_SIZE}`) ?? 10;
  const markets = new Set<Market>(countryScope(fields.country) ?? [selected as Market]);
  const matchesFilters = filtersPredicate(fields.filters);

  const candidates = companyId === undefined ? dataset.personRecords : dataset.peopleAt(companyId);
  const results: PersonSearchResult[] = [];
  let skipped = 0;
  for (const record of candidates) {
    if (!markets.has(record.market)) continue;
    if (seniority !== undefined && record.seniorityId !== seniority) continue;
    if (department !== undefined && record.departmentId !== department) continue;
    if (position !== undefined && !record.position.toLowerCase().includes(position)) continue;
    if (!matchesFilters(record)) continue;
    if (skipped++ < from) continue;
    results.push(toSearchResult(record));
    if (results.length === size) break;
  }
  return results;
}
