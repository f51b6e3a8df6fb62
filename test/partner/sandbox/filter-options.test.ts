import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilterErrorBody, FilterOptionsResponse, MARKETS } from '../../../src/partner/schemas.js';
import { startPartnerSandbox, type PartnerSandbox } from '../../../src/partner/sandbox/server.js';
import { call } from './http.js';

let sandbox: PartnerSandbox;
beforeAll(async () => {
  sandbox = await startPartnerSandbox({ port: 0, companies: 20, people: 20 });
});
afterAll(() => sandbox.close());

const ALL = [
  'industry',
  'location',
  'hq_location',
  'company_size',
  'global_company_size',
  'revenue',
  'company_type',
  'year_founded',
  'is_mnc',
  'b2b_vs_b2c',
  'target_market',
  'multiple_locations',
  'job_posts',
  'keywords',
  'services',
  'products',
  'position',
  'seniority',
  'department',
  'skills',
  'current_role_duration',
  'people_location',
];
const PAGED = ['industry', 'location', 'hq_location', 'people_location'];

async function options(query: string): Promise<FilterOptionsResponse> {
  const answer = await call(sandbox.url, `/filter-options${query}`);
  expect(answer.status, query).toBe(200);
  return FilterOptionsResponse.parse(answer.body);
}

async function refused(query: string): Promise<string> {
  const answer = await call(sandbox.url, `/filter-options${query}`);
  expect(answer.status, query).toBe(400);
  const body = FilterErrorBody.parse(answer.body);
  expect(body.error.code, query).toBe('invalid_request');
  return body.error.reason;
}

describe('GET /filter-options', () => {
  it('returns the whole catalogue of 22 filters and the 13 markets when no identifier is given', async () => {
    const all = await options('');
    expect(all.filters.map((f) => f.identifier)).toEqual(ALL);
    expect(all.markets.map((m) => m.code)).toEqual([...MARKETS]);
    for (const filter of all.filters) {
      if (filter.kind === 'text') expect(filter.values, filter.identifier).toBeUndefined();
      else expect(filter.values?.length, filter.identifier).toBeGreaterThan(0);
      expect(filter.page !== undefined, filter.identifier).toBe(PAGED.includes(filter.identifier));
    }
    const byId = new Map(all.filters.map((f) => [f.identifier, f]));
    expect(byId.get('position')).toMatchObject({
      label: 'Job title',
      group: 'people',
      kind: 'text',
      endpoints: ['company_search', 'people_search', 'people_in_company_search'],
    });
    expect(byId.get('company_size')).toMatchObject({
      kind: 'list_or_range',
      counts: 'per_market',
      endpoints: ['company_search', 'people_search'],
    });
    expect(byId.get('industry')!.values!.every((v) => /^l1:[A-Z]$/.test(v.code))).toBe(true);
    expect(byId.get('seniority')!.values).toHaveLength(7);
    expect(byId.get('department')!.values).toHaveLength(17);
  });

  it('takes identifiers comma-separated or repeated, with the same answer', async () => {
    const comma = await options('?identifiers=revenue,seniority');
    const repeated = await options('?identifiers=revenue&identifiers=seniority');
    expect(comma.filters.map((f) => f.identifier)).toEqual(['revenue', 'seniority']);
    expect(repeated).toEqual(comma);
  });

  it('refuses an unknown identifier with a reason listing the valid ones', async () => {
    const reason = await refused('?identifiers=revenue,colour');
    expect(reason).toContain('"colour"');
    for (const id of ALL) expect(reason).toContain(id);
  });

  it('refuses a size parameter', async () => {
    expect(await refused('?identifiers=location&size=50')).toMatch(/size/);
  });

  it('pages the paged filters 20 at a time with a page object', async () => {
    const first = await options('?identifiers=location');
    const location = first.filters[0]!;
    expect(location.values).toHaveLength(20);
    expect(location.page).toMatchObject({ offset: 0, size: 20 });
    expect(location.page!.total).toBeGreaterThan(40);
    const second = (await options('?identifiers=location&offset=20')).filters[0]!;
    expect(second.page).toEqual({ offset: 20, size: 20, total: location.page!.total });
    expect(second.values![0]).not.toEqual(location.values![0]);
    const last = (await options(`?identifiers=location&offset=${location.page!.total - 3}`)).filters[0]!;
    expect(last.values).toHaveLength(3);
    expect(last.page!.size).toBe(20);
    const codes = new Set<string>();
    for (let offset = 0; offset < location.page!.total; offset += 20) {
      for (const v of (await options(`?identifiers=location&offset=${offset}`)).filters[0]!.values!) codes.add(v.code);
    }
    expect(codes.size).toBe(location.page!.total);
    expect([...codes].every((c) => /^state:[^,]+, [^:]+:[A-Z]{2}$/.test(c))).toBe(true);
  });

  it('searches labels and codes case-insensitively and pages the matches', async () => {
    const byLabel = (await options('?identifiers=location&search=WALES')).filters[0]!;
    expect(byLabel.values!.map((v) => v.label)).toEqual(['New South Wales, Australia']);
    expect(byLabel.page).toEqual({ offset: 0, size: 20, total: 1 });
    const byCode = (await options('?identifiers=hq_location&search=country:')).filters[0]!;
    expect(byCode.page!.total).toBe(13);
    expect(byCode.values!.every((v) => v.code.startsWith('country:'))).toBe(true);
    const none = (await options('?identifiers=people_location&search=atlantis')).filters[0]!;
    expect(none.values).toEqual([]);
    expect(none.page!.total).toBe(0);
  });

  it('keeps other filters whole beside the single paged one', async () => {
    const both = await options('?identifiers=location,revenue&search=tokyo');
    expect(both.filters.map((f) => f.identifier)).toEqual(['location', 'revenue']);
    expect(both.filters[1]!.values!.length).toBe(7);
  });

  it('refuses search shorter than 1 or longer than 100 characters', async () => {
    expect(await refused('?identifiers=location&search=')).toMatch(/1 to 100/);
    expect(await refused(`?identifiers=location&search=${'a'.repeat(101)}`)).toMatch(/1 to 100/);
    await options(`?identifiers=location&search=${'a'.repeat(100)}`);
  });

  it('refuses an offset that is not a whole number of at least 0', async () => {
    for (const offset of ['-1', '1.5', 'ten'])
      expect(await refused(`?identifiers=location&offset=${offset}`)).toMatch(/offset/);
  });

  it('refuses search, offset or levelOne without exactly one paged filter', async () => {
    for (const query of [
      '?search=a',
      '?offset=0',
      '?identifiers=revenue&search=a',
      '?identifiers=location,industry&offset=20',
      '?identifiers=revenue&levelOne=l1:C',
      '?levelOne=l1:C',
    ]) {
      expect(await refused(query), query).toMatch(/exactly one paged filter/);
    }
  });

  it('lists the second-level codes under a levelOne code sorted A to Z by label', async () => {
    const industry = (await options('?identifiers=industry&levelOne=l1:C')).filters[0]!;
    const labels = industry.values!.map((v) => v.label);
    expect(labels.length).toBeGreaterThan(10);
    expect(labels).toEqual([...labels].sort((a, b) => a.localeCompare(b, 'en')));
    expect(industry.values!.every((v) => v.code.startsWith('l2:C'))).toBe(true);
    const searched = (await options('?identifiers=industry&levelOne=l1:C&search=METAL&offset=1')).filters[0]!;
    expect(searched.page).toEqual({ offset: 1, size: 20, total: 3 });
    expect(searched.values!.map((v) => v.label)).toEqual([
      'Non-Metallic Mineral Product Manufacturing',
      'Primary Metal and Metal Product Manufacturing',
    ]);
  });

  it('returns only top-level industry codes without levelOne', async () => {
    const industry = (await options('?identifiers=industry')).filters[0]!;
    expect(industry.values!.map((v) => v.code)).toContain('l1:C');
    expect(industry.values!.every((v) => v.code.startsWith('l1:'))).toBe(true);
  });

  it('refuses a levelOne that breaks the pattern, is unknown, or comes with another filter', async () => {
    expect(await refused('?identifiers=industry&levelOne=C')).toMatch(/\^l1:\[A-Za-z\]\+\$/);
    expect(await refused('?identifiers=industry&levelOne=l1:C1')).toMatch(/\^l1:/);
    expect(await refused('?identifiers=industry&levelOne=l1:ZZ')).toMatch(/unknown levelOne code "l1:ZZ"/);
    expect(await refused('?identifiers=location&levelOne=l1:C')).toMatch(/only works with identifiers=industry/);
    expect(await refused('?identifiers=industry,revenue&levelOne=l1:C')).toMatch(
      /only works with identifiers=industry/,
    );
  });
});
