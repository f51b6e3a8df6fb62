/**
 * The `filters` + `country` part of a search body: checked against the catalogue (a code that is not
 * in the filter options is a 422 `invalid_filter_value` naming the filter and the value) and then
 * turned into a predicate over people. Codes within one filter are alternatives; filters combine.
 */
import { MARKETS, type Market } from '../schemas.js';
import { FILTERS_BY_ID, FILTER_IDENTIFIERS, ROLE_DURATIONS, SIZE_BANDS, type FilterDefinition } from './catalogue.js';
import { SandboxHttpError } from './http-error.js';
import { INDUSTRY_PARENT } from './industries.js';
import type { PersonRecord } from './person-generator.js';

export type PersonPredicate = (person: PersonRecord) => boolean;

const invalidValue = (filter: string, value: string) =>
  SandboxHttpError.filter(
    422,
    'invalid_filter_value',
    `filter "${filter}" does not take the value "${value}"; see GET /filter-options?identifiers=${filter} for ` +
      'its codes',
  );
const invalidRequest = (reason: string) => SandboxHttpError.filter(400, 'invalid_request', reason);

function isValidCode(def: FilterDefinition, code: string): boolean {
  if (def.kind === 'text') return /^contains:\S/.test(code);
  if (def.kind === 'industry') return INDUSTRY_PARENT.has(code);
  if (def.values?.some((v) => v.code === code)) return true;
  const range = def.range?.exec(code);
  if (!range) return false;
  return range[2] === '' || Number(range[1]) <= Number(range[2]);
}

function inRange(
  code: string,
  value: number,
  bands: readonly (readonly [string, number, number, ...unknown[]])[],
): boolean {
  const range = /^range:(\d+)-(\d*)$/.exec(code);
  if (range) return value >= Number(range[1]) && (range[2] === '' || value <= Number(range[2]));
  const band = bands.find(([c]) => c === code);
  return band !== undefined && value >= band[1] && value <= band[2];
}

function contains(haystack: readonly (string | undefined)[], code: string): boolean {
  const needle = code.slice('contains:'.length).trim().toLowerCase();
  return haystack.some((text) => text?.toLowerCase().includes(needle));
}

function matcher(identifier: string, code: string): PersonPredicate {
  switch (identifier) {
    case 'company_size':
      return (p) => inRange(code, p.employer.regions.get(p.market)?.employeeCount ?? 0, SIZE_BANDS);
    case 'global_company_size':
      return (p) => inRange(code, p.employer.globalEmployees, SIZE_BANDS);
    case 'year_founded':
      return code.startsWith('range:')
        ? (p) => inRange(code, p.employer.founded, [])
        : (p) => p.employer.facets.year_founded?.includes(code) ?? false;
    case 'keywords':
      return (p) => contains(p.employer.company.keywords ?? [], code);
    case 'services':
      return (p) => contains([...(p.employer.company.industries ?? []), p.employer.company.description], code);
    case 'products':
      return (p) => contains([p.employer.company.tagline, ...(p.employer.company.keywords ?? [])], code);
    case 'position':
      return (p) => contains([p.position], code);
    case 'skills':
      return (p) => contains(p.skills, code);
    case 'seniority':
      return (p) => String(p.seniorityId) === code;
    case 'department':
      return (p) => String(p.departmentId) === code;
    case 'people_location':
      return (p) => p.locationCodes.includes(code);
    case 'current_role_duration': {
      const index = ROLE_DURATIONS.findIndex(([c]) => c === code);
      const min = index > 0 ? (ROLE_DURATIONS[index - 1]?.[2] ?? 0) : 0;
      const max = ROLE_DURATIONS[index]?.[2] ?? 0;
      return (p) => p.monthsInRole >= min && p.monthsInRole < max;
    }
    default:
      return (p) => p.employer.facets[identifier]?.includes(code) ?? false;
  }
}

/** Validates `filters` and returns a predicate that a person must satisfy. */
export function filtersPredicate(filters: unknown): PersonPredicate {
  if (filters === undefined || filters === null) return () => true;
  if (typeof filters !== 'object' || Array.isArray(filters)) {
    throw invalidRequest('filters must be an object of filter identifier to an array of codes');
  }
  const predicates: PersonPredicate[] = [];
  for (const [identifier, codes] of Object.entries(filters)) {
    const def = FILTERS_BY_ID.get(identifier);
    if (!def)
      throw invalidRequest(
        `unknown filter identifier "${identifier}"; valid identifiers are ${FILTER_IDENTIFIERS.join(', ')}`,
      );
    if (!Array.isArray(codes) || codes.some((c) => typeof c !== 'string')) {
      throw invalidRequest(`filters.${identifier} must be an array of code strings`);
    }
    for (const code of codes as string[]) if (!isValidCode(def, code)) throw invalidValue(identifier, code);
    if (codes.length === 0) continue;
    const alternatives = (codes as string[]).map((code) => matcher(identifier, code));
    predicates.push((p) => alternatives.some((match) => match(p)));
  }
  return (p) => predicates.every((match) => match(p));
}

/** Validates the `country` array of a search body; undefined when absent. */
export function countryScope(country: unknown): Market[] | undefined {
  if (country === undefined || country === null) return undefined;
  if (!Array.isArray(country)) throw invalidRequest('country must be an array of market codes');
  for (const code of country) {
    if (typeof code !== 'string' || !(MARKETS as readonly string[]).includes(code)) {
      throw SandboxHttpError.filter(
        422,
        'invalid_filter_value',
        `country does not take the value "${String(code)}"; markets are ${MARKETS.join(', ')}`,
      );
    }
  }
  return country as Market[];
}
