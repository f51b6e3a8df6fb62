/**
 * The filter catalogue of GET /filter-options: the 22 filters of the specification with their
 * labels, kinds and endpoints, and invented but plausible codes where the specification gives none.
 */
import { MARKETS, SENIORITIES, DEPARTMENTS, type Market } from '../schemas.js';
import { MARKET_INFO, countryCode, stateCode } from './geography.js';
import { INDUSTRY_DIVISIONS } from './industries.js';

type Kind = 'list' | 'list_or_range' | 'industry' | 'location' | 'hq_location' | 'text';
type Endpoint = 'company_search' | 'people_search' | 'people_in_company_search';
export type CatalogueValue = { code: string; label: string };

export type FilterDefinition = {
  identifier: string;
  label: string;
  group: 'company' | 'people';
  kind: Kind;
  counts?: 'per_market' | 'worldwide';
  endpoints: Endpoint[];
  accepts: string;
  /** Absent for text filters; for `industry`, the top-level codes. */
  values?: CatalogueValue[];
  /** Codes of the form `range:<min>-<max>` that list_or_range filters take besides their bands. */
  range?: RegExp;
};

export const PAGED_FILTERS = ['industry', 'location', 'hq_location', 'people_location'] as const;
export const PAGE_SIZE = 20;

const C_P: Endpoint[] = ['company_search', 'people_search'];
const C_P_PC: Endpoint[] = ['company_search', 'people_search', 'people_in_company_search'];

export const SIZE_BANDS: readonly (readonly [code: string, min: number, max: number])[] = [
  ['1-10', 1, 10],
  ['11-50', 11, 50],
  ['51-200', 51, 200],
  ['201-500', 201, 500],
  ['501-1000', 501, 1000],
  ['1001-5000', 1001, 5000],
  ['5001-10000', 5001, 10000],
  ['10001+', 10001, Number.MAX_SAFE_INTEGER],
];
export const REVENUE_BANDS = [
  ['under-1m', 'Under US$1M'],
  ['1m-10m', 'US$1M - US$10M'],
  ['10m-50m', 'US$10M - US$50M'],
  ['50m-100m', 'US$50M - US$100M'],
  ['100m-500m', 'US$100M - US$500M'],
  ['500m-1b', 'US$500M - US$1B'],
  ['over-1b', 'Over US$1B'],
] as const;
export const FOUNDED_BANDS: readonly (readonly [code: string, label: string, from: number, to: number])[] = [
  ['before-1950', 'Before 1950', 0, 1949],
  ['1950-1979', '1950 - 1979', 1950, 1979],
  ['1980-1999', '1980 - 1999', 1980, 1999],
  ['2000-2009', '2000 - 2009', 2000, 2009],
  ['2010-2019', '2010 - 2019', 2010, 2019],
  ['2020-onwards', '2020 onwards', 2020, 9999],
];
export const COMPANY_TYPES = [
  ['private', 'Privately held'],
  ['public', 'Public company'],
  ['government', 'Government agency'],
  ['non-profit', 'Non-profit'],
  ['partnership', 'Partnership'],
  ['self-employed', 'Self-employed'],
  ['educational', 'Educational institution'],
] as const;
export const ROLE_DURATIONS: readonly (readonly [code: string, label: string, maxMonths: number])[] = [
  ['under-3m', 'Changed jobs in the last 3 months', 3],
  ['3m-6m', 'Changed jobs 3 to 6 months ago', 6],
  ['6m-12m', 'Changed jobs 6 to 12 months ago', 12],
  ['1y-2y', 'In role 1 to 2 years', 24],
  ['over-2y', 'In role over 2 years', Infinity],
];

const list = (pairs: readonly (readonly [string, string, ...unknown[]])[]): CatalogueValue[] =>
  pairs.map(([code, label]) => ({ code, label }));
const yesNo = (yes: string, no: string): CatalogueValue[] => [
  { code: 'yes', label: yes },
  { code: 'no', label: no },
];
const sizeValues = SIZE_BANDS.map(([code]) => ({ code, label: `${code} employees` }));

const states: CatalogueValue[] = MARKETS.flatMap((m: Market) =>
  MARKET_INFO[m].states.map(([, name]) => ({ code: stateCode(m, name), label: `${name}, ${MARKET_INFO[m].label}` })),
);
const countries: CatalogueValue[] = MARKETS.map((m) => ({ code: countryCode(m), label: MARKET_INFO[m].label }));
const text = (what: string) => `any text as contains:<text>, matched against ${what}`;

export const CATALOGUE: readonly FilterDefinition[] = [
  {
    identifier: 'industry',
    label: 'Industry',
    group: 'company',
    kind: 'industry',
    endpoints: C_P,
    accepts: 'top-level codes l1:<letter> (matching every industry beneath) or second-level codes listed with levelOne',
    values: INDUSTRY_DIVISIONS.map(({ code, label }) => ({ code, label })),
  },
  {
    identifier: 'location',
    label: 'Location (Company)',
    group: 'company',
    kind: 'location',
    endpoints: C_P,
    accepts: 'state codes state:<state>, <country>:<country code>',
    values: states,
  },
  {
    identifier: 'hq_location',
    label: 'Headquarters (Location)',
    group: 'company',
    kind: 'hq_location',
    endpoints: C_P,
    accepts: 'country codes country:<country>:<country code> or state codes',
    values: [...countries, ...states],
  },
  {
    identifier: 'company_size',
    label: 'Employee count (Country)',
    group: 'company',
    kind: 'list_or_range',
    counts: 'per_market',
    endpoints: C_P,
    accepts: 'band codes, or range:<min>-<max>',
    values: sizeValues,
    range: /^range:(\d+)-(\d+)$/,
  },
  {
    identifier: 'global_company_size',
    label: 'Employee count (Global)',
    group: 'company',
    kind: 'list_or_range',
    counts: 'worldwide',
    endpoints: C_P,
    accepts: 'band codes, or range:<min>- with an open upper end, or range:<min>-<max>',
    values: sizeValues,
    range: /^range:(\d+)-(\d*)$/,
  },
  {
    identifier: 'revenue',
    label: 'Revenue',
    group: 'company',
    kind: 'list',
    counts: 'worldwide',
    endpoints: C_P,
    accepts: 'band codes',
    values: list(REVENUE_BANDS),
  },
  {
    identifier: 'company_type',
    label: 'Type',
    group: 'company',
    kind: 'list',
    endpoints: C_P,
    accepts: 'codes',
    values: list(COMPANY_TYPES),
  },
  {
    identifier: 'year_founded',
    label: 'Year founded',
    group: 'company',
    kind: 'list_or_range',
    endpoints: C_P,
    accepts: 'band codes, or range:<from>-<to>',
    values: list(FOUNDED_BANDS),
    range: /^range:(\d{4})-(\d{4})$/,
  },
  {
    identifier: 'is_mnc',
    label: 'Multinational',
    group: 'company',
    kind: 'list',
    endpoints: C_P,
    accepts: 'codes',
    values: yesNo('Multinational', 'Single country'),
  },
  {
    identifier: 'b2b_vs_b2c',
    label: 'Target customer type',
    group: 'company',
    kind: 'list',
    endpoints: C_P,
    accepts: 'codes',
    values: [
      { code: 'b2b', label: 'Businesses (B2B)' },
      { code: 'b2c', label: 'Consumers (B2C)' },
      { code: 'both', label: 'Both' },
    ],
  },
  {
    identifier: 'target_market',
    label: 'Target market focus',
    group: 'company',
    kind: 'list',
    endpoints: C_P,
    accepts: 'codes',
    values: [
      { code: 'local', label: 'Local' },
      { code: 'national', label: 'National' },
      { code: 'regional', label: 'Regional' },
      { code: 'global', label: 'Global' },
    ],
  },
  {
    identifier: 'multiple_locations',
    label: 'Multiple locations',
    group: 'company',
    kind: 'list',
    endpoints: C_P,
    accepts: 'codes',
    values: yesNo('More than one location', 'One location'),
  },
  {
    identifier: 'job_posts',
    label: 'Job posts',
    group: 'company',
    kind: 'list',
    endpoints: C_P,
    accepts: 'codes',
    values: [
      { code: 'hiring', label: 'Jobs posted in the last 30 days' },
      { code: 'not-hiring', label: 'No recent job posts' },
    ],
  },
  {
    identifier: 'keywords',
    label: 'Keywords',
    group: 'company',
    kind: 'text',
    endpoints: C_P,
    accepts: text('company keywords'),
  },
  {
    identifier: 'services',
    label: 'Services provided',
    group: 'company',
    kind: 'text',
    endpoints: C_P,
    accepts: text('company industries and description'),
  },
  {
    identifier: 'products',
    label: 'Products',
    group: 'company',
    kind: 'text',
    endpoints: C_P,
    accepts: text('company tagline and keywords'),
  },
  {
    identifier: 'position',
    label: 'Job title',
    group: 'people',
    kind: 'text',
    endpoints: C_P_PC,
    accepts: text('job titles'),
  },
  {
    identifier: 'seniority',
    label: 'Seniority',
    group: 'people',
    kind: 'list',
    endpoints: C_P_PC,
    accepts: 'codes',
    values: Object.entries(SENIORITIES).map(([code, label]) => ({ code, label })),
  },
  {
    identifier: 'department',
    label: 'Department',
    group: 'people',
    kind: 'list',
    endpoints: C_P_PC,
    accepts: 'codes',
    values: Object.entries(DEPARTMENTS).map(([code, label]) => ({ code, label })),
  },
  { identifier: 'skills', label: 'Skills', group: 'people', kind: 'text', endpoints: C_P_PC, accepts: text('skills') },
  {
    identifier: 'current_role_duration',
    label: 'Job change',
    group: 'people',
    kind: 'list',
    endpoints: C_P_PC,
    accepts: 'codes',
    values: list(ROLE_DURATIONS),
  },
  {
    identifier: 'people_location',
    label: 'Location (People)',
    group: 'people',
    kind: 'location',
    endpoints: C_P_PC,
    accepts: 'state codes state:<state>, <country>:<country code>',
    values: states,
  },
];

export const FILTERS_BY_ID: ReadonlyMap<string, FilterDefinition> = new Map(CATALOGUE.map((f) => [f.identifier, f]));
export const FILTER_IDENTIFIERS: readonly string[] = CATALOGUE.map((f) => f.identifier);
export const MARKET_ENTRIES = MARKETS.map((code) => ({ code, label: MARKET_INFO[code].label }));
