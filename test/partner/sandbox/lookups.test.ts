import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Company, GenericErrorBody, MARKETS, Person } from '../../../src/partner/schemas.js';
import { startPartnerSandbox, type PartnerSandbox } from '../../../src/partner/sandbox/server.js';
import { call } from './http.js';

let sandbox: PartnerSandbox;
beforeAll(async () => {
  sandbox = await startPartnerSandbox({ port: 0 });
});
afterAll(() => sandbox.close());

interface SampleCompany {
  id: string;
  fqdn: string;
  website: string;
  ln_slug: string;
  ln_url: string;
  abn?: string;
  nzbn?: string;
  uen?: string;
}
interface SamplePerson {
  id: string;
  ln_slug: string;
  ln_url: string;
  work_email: string;
  personal_email?: string;
}
const sample = async (market: string, n = 3) =>
  (await call(sandbox.url, `/__sandbox/sample?market=${market}&n=${n}`, { key: null })).body as {
    companies: SampleCompany[];
    people: SamplePerson[];
  };

describe('GET /company', () => {
  it('finds a company by each lookup parameter and answers a Company', async () => {
    const [company] = (await sample('AU')).companies;
    const params = {
      id: company!.id,
      ln_slug: company!.ln_slug,
      ln_url: company!.ln_url,
      fqdn: company!.fqdn,
      abn: company!.abn!,
      website: company!.website,
    };
    for (const [name, value] of Object.entries(params)) {
      const answer = await call(sandbox.url, `/company?${name}=${encodeURIComponent(value)}`);
      expect(answer.status, name).toBe(200);
      expect(Company.parse(answer.body).id, name).toBe(company!.id);
    }
  });

  it('matches websites, URLs, FQDNs and ABNs however they are written', async () => {
    const [company] = (await sample('AU')).companies;
    const variants = [
      `website=${encodeURIComponent(`HTTP://WWW.${company!.fqdn.toUpperCase()}/about/`)}`,
      `website=${encodeURIComponent(company!.fqdn)}`,
      `fqdn=${encodeURIComponent(`www.${company!.fqdn}`)}`,
      `fqdn=${encodeURIComponent(`https://${company!.fqdn}/`)}`,
      `ln_url=${encodeURIComponent(`linkedin.com/company/${company!.ln_slug.toUpperCase()}/`)}`,
      `ln_slug=${encodeURIComponent(` ${company!.ln_slug} `)}`,
      `abn=${encodeURIComponent(company!.abn!.replace(/^(\d{2})(\d{3})(\d{3})(\d{3})$/, '$1 $2 $3 $4'))}`,
    ];
    for (const query of variants) {
      const answer = await call(sandbox.url, `/company?${query}`);
      expect(answer.status, query).toBe(200);
      expect((answer.body as Company).id, query).toBe(company!.id);
    }
  });

  it('answers region-specific data: AU gives ABN and ACN, NZ the NZBN, SG the UEN', async () => {
    for (const market of ['AU', 'NZ', 'SG'] as const) {
      const [company] = (await sample(market)).companies;
      const answer = await call(sandbox.url, `/company?id=${company!.id}&country=${market}`);
      const codes = Company.parse(answer.body).industry_codes ?? {};
      if (market === 'AU') expect([codes.abn, codes.acn]).toEqual([company!.abn, company!.abn!.slice(2)]);
      if (market === 'NZ') expect(codes.nzbn).toBe(company!.nzbn);
      if (market === 'SG') expect(codes.uen).toBe(company!.uen);
      expect(codes.sic).toMatch(/^\d{4}$/);
    }
  });

  it('defaults country to AU and counts employees in the requested region', async () => {
    const record = sandbox.dataset.companyRecords.find(
      (r) => r.home !== 'AU' && r.regions.has('AU') && r.regions.size > 2,
    )!;
    const other = [...record.regions.keys()].find((m) => m !== 'AU' && m !== record.home)!;
    const byDefault = Company.parse((await call(sandbox.url, `/company?id=${record.company.id}`)).body);
    const inOther = Company.parse((await call(sandbox.url, `/company?id=${record.company.id}&country=${other}`)).body);
    const inHome = Company.parse(
      (await call(sandbox.url, `/company?id=${record.company.id}&country=${record.home}`)).body,
    );
    expect(byDefault.employee_count).toBe(record.regions.get('AU')!.employeeCount);
    expect(byDefault.industry_codes?.abn).toBe(record.regions.get('AU')!.identifiers.abn);
    expect(inOther.employee_count).toBe(record.regions.get(other)!.employeeCount);
    expect(inOther.industry_codes?.abn).toBeUndefined();
    expect(inHome.employee_count).toBe(record.regions.get(record.home)!.employeeCount);
    expect(new Set([byDefault.employee_count, inOther.employee_count, inHome.employee_count]).size).toBeGreaterThan(1);
  });

  it('accepts each of the 13 markets and refuses any other country with 400', async () => {
    const [company] = (await sample('JP')).companies;
    for (const market of MARKETS)
      expect((await call(sandbox.url, `/company?id=${company!.id}&country=${market}`)).status).toBe(200);
    const answer = await call(sandbox.url, `/company?id=${company!.id}&country=GB`);
    expect(answer.status).toBe(400);
    expect(GenericErrorBody.parse(answer.body)).toMatchObject({
      error: 400,
      message: expect.stringContaining('country'),
    });
  });

  it('refuses no lookup parameter, several, a repeated one or an empty one with a 400 naming the problem', async () => {
    const cases: [string, RegExp][] = [
      ['/company', /no lookup parameter.*id, ln_slug, ln_url, fqdn, abn, website/],
      ['/company?id=x&fqdn=y', /several lookup parameters were given \(id, fqdn\)/],
      ['/company?fqdn=a.example&fqdn=b.example', /fqdn was given 2 times/],
      ['/company?ln_slug=', /ln_slug is empty/],
    ];
    for (const [path, message] of cases) {
      const answer = await call(sandbox.url, path);
      expect(answer.status, path).toBe(400);
      expect(GenericErrorBody.parse(answer.body).message, path).toMatch(message);
    }
  });

  it('answers an unknown company with 404 and the generic error body', async () => {
    const answer = await call(sandbox.url, '/company?fqdn=nobody-here.example');
    expect(answer.status).toBe(404);
    expect(GenericErrorBody.parse(answer.body)).toEqual({ error: 404, message: expect.stringContaining('fqdn') });
  });
});

describe('GET /people', () => {
  it('finds a person by each lookup parameter and answers a Person', async () => {
    const people = (await sample('SG', 40)).people;
    const person = people.find((p) => p.personal_email)!;
    const params = {
      id: person.id,
      ln_slug: person.ln_slug,
      ln_url: person.ln_url,
      work_email: person.work_email,
      personal_email: person.personal_email!,
    };
    for (const [name, value] of Object.entries(params)) {
      const answer = await call(sandbox.url, `/people?${name}=${encodeURIComponent(value)}`);
      expect(answer.status, name).toBe(200);
      expect(Person.parse(answer.body).id, name).toBe(person.id);
    }
  });

  it('matches e-mail addresses and profile URLs case-insensitively', async () => {
    const [person] = (await sample('US')).people;
    for (const query of [
      `work_email=${encodeURIComponent(person!.work_email.toUpperCase())}`,
      `ln_url=${encodeURIComponent(`HTTPS://WWW.LINKEDIN.COM/IN/${person!.ln_slug}/`)}`,
    ]) {
      const answer = await call(sandbox.url, `/people?${query}`);
      expect(answer.status, query).toBe(200);
      expect((answer.body as Person).id).toBe(person!.id);
    }
  });

  it('does not find a work e-mail given as a personal one', async () => {
    const person = sandbox.dataset.people.find(
      (p) => (p.emails?.work?.length ?? 0) > 0 && p.emails?.personal?.length === 0,
    )!;
    const answer = await call(
      sandbox.url,
      `/people?personal_email=${encodeURIComponent(person.emails!.work![0]!.value!)}`,
    );
    expect(answer.status).toBe(404);
    expect(GenericErrorBody.parse(answer.body).error).toBe(404);
  });

  it('refuses no or several lookup parameters with 400 and answers unknown people with 404', async () => {
    const none = await call(sandbox.url, '/people');
    expect(none.status).toBe(400);
    expect(GenericErrorBody.parse(none.body).message).toMatch(/id, ln_slug, ln_url, work_email, personal_email/);
    const two = await call(sandbox.url, '/people?id=pe_0000001&ln_slug=x');
    expect(two.status).toBe(400);
    const missing = await call(sandbox.url, '/people?id=pe_9999999');
    expect(missing.status).toBe(404);
    expect(GenericErrorBody.parse(missing.body)).toEqual({ error: 404, message: expect.any(String) });
  });
});

describe('GET /__sandbox/sample', () => {
  it('lists identifiers of real records of the requested market and refuses an unknown market', async () => {
    const { companies, people } = await sample('NZ', 5);
    expect(companies).toHaveLength(5);
    expect(people).toHaveLength(5);
    for (const c of companies) expect(sandbox.dataset.findCompany('id', c.id)?.home).toBe('NZ');
    for (const p of people) expect(sandbox.dataset.findPerson('work_email', p.work_email)?.person.id).toBe(p.id);
    expect((await call(sandbox.url, '/__sandbox/sample?market=XX', { key: null })).status).toBe(400);
  });
});
