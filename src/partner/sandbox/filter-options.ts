/**
 * GET /filter-options with every rule of the specification: identifiers comma-separated or
 * repeated, a `size` parameter refused, `search`/`offset`/`levelOne` only with exactly one paged
 * filter, pages of exactly 20, second-level industries sorted A to Z. Every refusal is a 400
 * `invalid_request` in the filter-options error body, with a reason that says what to change.
 */
import type { FilterOptionsResponse } from '../schemas.js';
import {
  CATALOGUE,
  FILTERS_BY_ID,
  FILTER_IDENTIFIERS,
  MARKET_ENTRIES,
  PAGED_FILTERS,
  PAGE_SIZE,
  type CatalogueValue,
  type FilterDefinition,
} from './catalogue.js';
import { SandboxHttpError } from './http-error.js';
import { INDUSTRY_DIVISIONS } from './industries.js';

const LEVEL_ONE = /^l1:[A-Za-z]+$/;
const invalid = (reason: string) => SandboxHttpError.filter(400, 'invalid_request', reason);

function identifiersOf(query: URLSearchParams): string[] | undefined {
  if (!query.has('identifiers')) return undefined;
  const ids = query
    .getAll('identifiers')
    .flatMap((v) => v.split(','))
    .map((v) => v.trim());
  const unknown = ids.filter((id) => !FILTERS_BY_ID.has(id));
  if (unknown.length > 0) {
    const shown = unknown.map((id) => (id === '' ? '(empty)' : `"${id}"`)).join(', ');
    throw invalid(`unknown filter identifier ${shown}; valid identifiers are ${FILTER_IDENTIFIERS.join(', ')}`);
  }
  return [...new Set(ids)];
}

function single(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw invalid(`${name} was given ${values.length} times; give it once`);
  return values[0];
}

function page(def: FilterDefinition, all: CatalogueValue[], search: string | undefined, offset: number) {
  const needle = search?.toLowerCase();
  const matching =
    needle === undefined
      ? all
      : all.filter((v) => v.label.toLowerCase().includes(needle) || v.code.toLowerCase().includes(needle));
  return {
    ...def,
    values: matching.slice(offset, offset + PAGE_SIZE),
    page: { offset, size: PAGE_SIZE, total: matching.length },
  };
}

export function filterOptions(query: URLSearchParams): FilterOptionsResponse {
  if (query.has('size'))
    throw invalid(`the page size is fixed at ${PAGE_SIZE}; remove the size parameter and page with offset`);
  const identifiers = identifiersOf(query);
  const search = single(query, 'search');
  const offsetText = single(query, 'offset');
  const levelOne = single(query, 'levelOne');

  if (search !== undefined && (search.length < 1 || search.length > 100)) {
    throw invalid(`search must be 1 to 100 characters long, got ${search.length}`);
  }
  if (offsetText !== undefined && !/^\d+$/.test(offsetText)) {
    throw invalid(`offset must be a whole number of at least 0, got "${offsetText}"`);
  }
  if (levelOne !== undefined && !LEVEL_ONE.test(levelOne)) {
    throw invalid(`levelOne must match ^l1:[A-Za-z]+$ (a top-level industry code such as l1:C), got "${levelOne}"`);
  }
  const chosen = identifiers ?? FILTER_IDENTIFIERS;
  const paged = chosen.filter((id) => (PAGED_FILTERS as readonly string[]).includes(id));
  const pagingParams = ['search', 'offset', 'levelOne'].filter((p) => query.has(p));
  if (pagingParams.length > 0 && paged.length !== 1) {
    throw invalid(
      `${pagingParams.join(', ')} needs exactly one paged filter (${PAGED_FILTERS.join(', ')}) in identifiers; ` +
        `${paged.length === 0 ? 'none was' : `${paged.length} were`} given`,
    );
  }
  let industryValues: CatalogueValue[] | undefined;
  if (levelOne !== undefined) {
    if (identifiers?.length !== 1 || identifiers[0] !== 'industry') {
      throw invalid('levelOne only works with identifiers=industry');
    }
    const division = INDUSTRY_DIVISIONS.find((d) => d.code === levelOne);
    if (!division) {
      throw invalid(
        `unknown levelOne code "${levelOne}"; top-level industry codes are ` +
          `${INDUSTRY_DIVISIONS.map((d) => d.code).join(', ')}`,
      );
    }
    industryValues = [...division.subdivisions].sort((a, b) => a.label.localeCompare(b.label, 'en'));
  }

  const offset = offsetText === undefined ? 0 : Number(offsetText);
  const filters = CATALOGUE.filter((def) => chosen.includes(def.identifier)).map((def) => {
    if (!(PAGED_FILTERS as readonly string[]).includes(def.identifier)) return def;
    const values = def.identifier === 'industry' && industryValues ? industryValues : (def.values ?? []);
    return page(def, values, search, offset);
  });
  return {
    markets: MARKET_ENTRIES,
    filters: filters.map(({ range: _range, ...option }) => option),
  };
}
