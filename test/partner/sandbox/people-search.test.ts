import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FilterErrorBody,
  GenericErrorBody,
  PersonSearchResponse,
  type PersonSearchResult,
} from '../../../src/partner/schemas.js';
import { startPartnerSandbox, type PartnerSandbox } from '../../../src/partner/sandbox/server.js';
import { call } from './http.js';

let sandbox: PartnerSandbox;
beforeAll(async () => {
  sandbox = await startPartnerSandbox({ port: 0 });
});
afterAll(() => sandbox.close());

async function search(body: unknown): Promise<PersonSearchResult[]> {
  const answer = await call(sandbox.url, '/people/search', { body });
  expect(answer.status, JSON.stringify(body)).toBe(200);
  return PersonSearchResponse.parse(answer.body);
}

const record = (result: PersonSearchResult) => sandbox.dataset.findPerson('id', result.person_id!)!;

describe('POST /people/search', () => {
  it('answers person search results scoped to AU by default, 10 at a time', async () => {
    const results = await search({});
    expect(results).toHaveLength(10);
    for (const result of results) {
      const person = record(result);
      expect(person.market).toBe('AU');
      expect(result).toMatchObject({
        position: person.person.position,
        company_name: person.person.current_company?.name,
      });
      expect(person.person.linkedin?.endsWith(`/${result.linkedin}`)).toBe(true);
      expect(result.has_email).toBe(
        (person.person.emails?.work?.length ?? 0) + (person.person.emails?.personal?.length ?? 0) > 0,
      );
      expect(result.has_dnd_phone).toBe(person.person.phones?.some((p) => p.is_dnd) ?? false);
      expect(result.has_phone).toBe((person.person.phones?.length ?? 0) > 0);
      expect(result.has_personal_email).toBe((person.person.emails?.personal?.length ?? 0) > 0);
      expect(result.has_mobile).toBe((person.person.current_company?.mobile_phones?.length ?? 0) > 0);
    }
  });

  it('filters by selectedCountry, seniority, department, position and companyId', async () => {
    const results = await search({ selectedCountry: 'JP', seniority: '5', department: '2', size: '100' });
    expect(results.length).toBeGreaterThan(0);
    for (const r of results) expect(record(r)).toMatchObject({ market: 'JP', seniorityId: 5, departmentId: 2 });
    const engineers = await search({ selectedCountry: 'US', position: 'engineer', size: '20' });
    expect(engineers.every((r) => /engineer/i.test(r.position ?? ''))).toBe(true);
    const company = sandbox.dataset.companyRecords.find(
      (c) => c.home === 'SG' && sandbox.dataset.peopleAt(c.company.id!).length > 3,
    )!;
    const staff = await search({ companyId: company.company.id, selectedCountry: 'SG', size: '100' });
    expect(staff.length).toBeGreaterThan(0);
    expect(staff.every((r) => record(r).employer === company)).toBe(true);
  });

  it('pages deterministically with from and size', async () => {
    const all = await search({ selectedCountry: 'NZ', size: '30' });
    const first = await search({ selectedCountry: 'NZ', from: '0', size: '15' });
    const second = await search({ selectedCountry: 'NZ', from: '15', size: '15' });
    expect([...first, ...second]).toEqual(all);
    expect(await search({ selectedCountry: 'NZ', size: '30' })).toEqual(all);
    expect(await search({ selectedCountry: 'NZ', from: 1_000_000 })).toEqual([]);
  });

  it('refuses bad fields with a 400 generic body naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ seniority: '0' }, 'seniority'],
      [{ seniority: '8' }, 'seniority'],
      [{ department: '18' }, 'department'],
      [{ department: 'sales' }, 'department'],
      [{ selectedCountry: 'GB' }, 'selectedCountry'],
      [{ from: '-1' }, 'from'],
      [{ size: '101' }, 'size'],
      [{ size: '0' }, 'size'],
      [{ size: 'ten' }, 'size'],
      [{ companyId: 12 }, 'companyId'],
      [[], 'JSON object'],
      ['{not json', 'not valid JSON'],
    ];
    for (const [body, field] of cases) {
      const answer = await call(sandbox.url, '/people/search', { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(GenericErrorBody.parse(answer.body).message, JSON.stringify(body)).toContain(field);
    }
  });

  it('applies catalogue filters and a country list to the results', async () => {
    const results = await search({
      filters: { industry: ['l1:C'], seniority: ['4', '5'], company_size: ['range:11-500'] },
      country: ['AU', 'NZ'],
      size: '100',
    });
    expect(results.length).toBeGreaterThan(0);
    for (const r of results) {
      const person = record(r);
      expect(['AU', 'NZ']).toContain(person.market);
      expect([4, 5]).toContain(person.seniorityId);
      expect(person.employer.facets.industry).toContain('l1:C');
      const employees = person.employer.regions.get(person.market)!.employeeCount;
      expect(employees).toBeGreaterThanOrEqual(11);
      expect(employees).toBeLessThanOrEqual(500);
    }
    const skilled = await search({
      filters: { skills: ['contains:python'], people_location: ['state:Victoria, Australia:AU'] },
      size: '50',
    });
    expect(skilled.length).toBeGreaterThan(0);
    for (const r of skilled) {
      expect(record(r).person.skills).toContain('Python');
      expect(record(r).locationCodes).toEqual(['state:Victoria, Australia:AU']);
    }
  });

  it('refuses a code that is not in the filter options with 422 naming the filter and the value', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ filters: { industry: ['l1:ZZ'] } }, 'industry', 'l1:ZZ'],
      [{ filters: { revenue: ['huge'] } }, 'revenue', 'huge'],
      [{ filters: { company_size: ['range:500-10'] } }, 'company_size', 'range:500-10'],
      [{ filters: { global_company_size: ['range:-5'] } }, 'global_company_size', 'range:-5'],
      [{ filters: { position: ['engineer'] } }, 'position', 'engineer'],
      [{ filters: { location: ['state:Atlantis, Australia:AU'] } }, 'location', 'state:Atlantis, Australia:AU'],
      [{ filters: {}, country: ['AU', 'GB'] }, 'country', 'GB'],
    ];
    for (const [body, filter, value] of cases) {
      const answer = await call(sandbox.url, '/people/search', { body });
      expect(answer.status, JSON.stringify(body)).toBe(422);
      const error = FilterErrorBody.parse(answer.body).error;
      expect(error.code).toBe('invalid_filter_value');
      expect(error.reason).toContain(`"${value}"`);
      expect(error.reason).toContain(filter);
    }
  });

  it('takes open-ended and band codes the catalogue lists', async () => {
    await search({ filters: { global_company_size: ['range:5000-'], year_founded: ['2010-2019', 'range:1990-1999'] } });
    const results = await search({ filters: { global_company_size: ['10001+'] }, selectedCountry: 'AU', size: '100' });
    expect(results.length).toBeGreaterThan(0);
    for (const r of results) expect(record(r).employer.globalEmployees).toBeGreaterThan(10000);
  });

  it('refuses an unknown filter identifier or a malformed filters object with 400 invalid_request', async () => {
    for (const body of [
      { filters: { colour: ['red'] } },
      { filters: ['industry'] },
      { filters: { industry: 'l1:C' } },
      { country: 'AU' },
    ]) {
      const answer = await call(sandbox.url, '/people/search', { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(FilterErrorBody.parse(answer.body).error.code).toBe('invalid_request');
    }
  });
});
