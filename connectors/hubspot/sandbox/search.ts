/**
 * The CRM search endpoint's filter language, the part integrations use: filter groups ORed, filters
 * within a group ANDed; EQ, NEQ, IN, NOT_IN, HAS_PROPERTY, NOT_HAS_PROPERTY, comparisons on numbers and
 * dates, BETWEEN, CONTAINS_TOKEN. Dates compare as epoch milliseconds, as HubSpot accepts them.
 */
import { z } from 'zod';
import type { HubspotProperty } from '../property-wire.js';
import type { StoredObject } from './object-store.js';

export const MAX_SEARCH_LIMIT = 200;

const FilterSchema = z.object({
  propertyName: z.string().min(1),
  operator: z.enum([
    'EQ',
    'NEQ',
    'LT',
    'LTE',
    'GT',
    'GTE',
    'BETWEEN',
    'IN',
    'NOT_IN',
    'HAS_PROPERTY',
    'NOT_HAS_PROPERTY',
    'CONTAINS_TOKEN',
    'NOT_CONTAINS_TOKEN',
  ]),
  value: z.union([z.string(), z.number(), z.boolean()]).optional(),
  highValue: z.union([z.string(), z.number()]).optional(),
  values: z.array(z.union([z.string(), z.number()])).optional(),
});

/** HubSpot's limits: 5 filter groups, 6 filters in a group, 18 in all; results end at 10,000. */
export const MAX_FILTER_GROUPS = 5;
export const MAX_FILTERS_PER_GROUP = 6;
export const MAX_FILTERS = 18;
export const MAX_SEARCH_RESULTS = 10_000;

export const SearchRequestSchema = z.object({
  filterGroups: z
    .array(z.object({ filters: z.array(FilterSchema).max(MAX_FILTERS_PER_GROUP) }))
    .max(MAX_FILTER_GROUPS)
    .refine((groups) => groups.reduce((n, g) => n + g.filters.length, 0) <= MAX_FILTERS, {
      message: `at most ${MAX_FILTERS} filters in all filter groups together`,
    })
    .default([]),
  sorts: z
    .array(
      z.union([
        z.string(),
        z.object({ propertyName: z.string(), direction: z.enum(['ASCENDING', 'DESCENDING']).optional() }),
      ]),
    )
    .default([]),
  properties: z.array(z.string()).default([]),
  limit: z.number().int().min(0).max(MAX_SEARCH_LIMIT).default(10),
  after: z.union([z.string(), z.number()]).optional(),
  query: z.string().optional(),
});

export type SearchRequest = z.infer<typeof SearchRequestSchema>;
type Filter = z.infer<typeof FilterSchema>;

function comparable(def: HubspotProperty | undefined, raw: string | number | boolean): number | string {
  const text = String(raw);
  if (def?.type === 'number') return Number(text);
  if (def?.type === 'date' || def?.type === 'datetime') return /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  return text.toLowerCase();
}

function matches(object: StoredObject, filter: Filter, defs: ReadonlyMap<string, HubspotProperty>): boolean {
  const def = defs.get(filter.propertyName);
  const stored = object.properties.get(filter.propertyName);
  switch (filter.operator) {
    case 'HAS_PROPERTY':
      return stored !== undefined && stored !== '';
    case 'NOT_HAS_PROPERTY':
      return stored === undefined || stored === '';
  }
  if (filter.operator === 'NOT_IN' || filter.operator === 'NEQ' || filter.operator === 'NOT_CONTAINS_TOKEN') {
    if (stored === undefined) return true;
  } else if (stored === undefined) {
    return false;
  }
  const have = comparable(def, stored ?? '');
  const want = filter.value === undefined ? undefined : comparable(def, filter.value);
  switch (filter.operator) {
    case 'EQ':
      return have === want;
    case 'NEQ':
      return have !== want;
    case 'IN':
      // As in HubSpot, IN on a text property matches stored values case-insensitively but takes the
      // listed values as given: they must be lower case, or they match nothing.
      return (filter.values ?? []).some((v) =>
        typeof have === 'string' ? String(v) === have : comparable(def, v) === have,
      );
    case 'NOT_IN':
      return !(filter.values ?? []).some((v) => comparable(def, v) === have);
    case 'CONTAINS_TOKEN':
      return typeof have === 'string' && typeof want === 'string' && have.includes(want.replaceAll('*', ''));
    case 'NOT_CONTAINS_TOKEN':
      return !(typeof have === 'string' && typeof want === 'string' && have.includes(want.replaceAll('*', '')));
    case 'BETWEEN':
      return (
        want !== undefined &&
        filter.highValue !== undefined &&
        have >= want &&
        have <= comparable(def, filter.highValue)
      );
  }
  if (want === undefined) return false;
  switch (filter.operator) {
    case 'LT':
      return have < want;
    case 'LTE':
      return have <= want;
    case 'GT':
      return have > want;
    case 'GTE':
      return have >= want;
  }
  return false;
}

/** Matching objects in the requested order (default: by id), one page from `after` on. */
export function searchObjects(
  objects: Iterable<StoredObject>,
  request: SearchRequest,
  defs: ReadonlyMap<string, HubspotProperty>,
  view: (object: StoredObject) => StoredObject | undefined = (o) => o,
): { total: number; page: StoredObject[]; nextAfter?: string } {
  const groups = request.filterGroups;
  const query = request.query?.toLowerCase();
  let found = [...objects]
    .flatMap((o) => view(o) ?? [])
    .filter(
      (o) =>
        (groups.length === 0 || groups.some((g) => g.filters.every((f) => matches(o, f, defs)))) &&
        (!query || [...o.properties.values()].some((v) => v.toLowerCase().includes(query))),
    );
  found.sort((a, b) => Number(a.id) - Number(b.id));
  const sort = request.sorts[0];
  if (sort !== undefined) {
    const name = typeof sort === 'string' ? sort.replace(/^-/, '') : sort.propertyName;
    const descending = typeof sort === 'string' ? sort.startsWith('-') : sort.direction === 'DESCENDING';
    const def = defs.get(name);
    found = found.sort((a, b) => {
      const x = comparable(def, a.properties.get(name) ?? '');
      const y = comparable(def, b.properties.get(name) ?? '');
      return (x < y ? -1 : x > y ? 1 : 0) * (descending ? -1 : 1);
    });
  }
  const start = request.after === undefined ? 0 : Number(request.after);
  const page = found.slice(start, start + request.limit);
  const end = start + page.length;
  // Paging stops at 10,000 results however many match: no `after` leads past them.
  return {
    total: found.length,
    page,
    nextAfter: end < found.length && end < MAX_SEARCH_RESULTS ? String(end) : undefined,
  };
}
