import { FreeMailDomains } from '../../../src/enrich/employers/free-mail.js';
import { describe, expect, it } from 'vitest';
import { Company, DEPARTMENTS, MARKETS, Person, SENIORITIES } from '../../../src/partner/schemas.js';
import { companyInMarket, createDataset } from '../../../src/partner/sandbox/dataset.js';
import { isValidAbn } from '../../../src/partner/sandbox/registry-numbers.js';

const dataset = createDataset();

describe('partner sandbox dataset', () => {
  it('has 2,000 companies and 20,000 people by default', () => {
    expect(dataset.companies).toHaveLength(2000);
    expect(dataset.people).toHaveLength(20000);
  });

  it('gives the same data for the same seed and different data for another', () => {
    const a = createDataset({ seed: 7, companies: 50, people: 300 });
    const b = createDataset({ seed: 7, companies: 50, people: 300 });
    const c = createDataset({ seed: 8, companies: 50, people: 300 });
    expect(JSON.stringify(b.companies)).toBe(JSON.stringify(a.companies));
    expect(JSON.stringify(b.people)).toBe(JSON.stringify(a.people));
    expect(JSON.stringify(c.companies)).not.toBe(JSON.stringify(a.companies));
  });

  it('draws the same profile whichever order profiles are read in', () => {
    const forward = createDataset({ seed: 9, companies: 20, people: 100 });
    const backward = createDataset({ seed: 9, companies: 20, people: 100 });
    const inOrder = forward.people;
    const readFirst = backward.personRecords[99]!.person;
    expect(readFirst).toEqual(inOrder[99]);
    expect(backward.people).toEqual(inOrder);
  });

  it('parses with the partner schemas and fills every field of the specification', () => {
    for (const company of dataset.companies.slice(0, 200)) Company.parse(company);
    for (const person of dataset.people.slice(0, 500)) Person.parse(person);
    const companyFields = Object.keys(Company.shape);
    const filled = new Set(dataset.companies.flatMap((c) => Object.keys(c)));
    expect(companyFields.filter((f) => !filled.has(f))).toEqual([]);
    const personFields = Object.keys(Person.shape);
    const personFilled = new Set(dataset.people.flatMap((p) => Object.keys(p)));
    expect(personFields.filter((f) => !personFilled.has(f))).toEqual([]);
  });

  it('has companies and people in all 13 markets', () => {
    expect(new Set(dataset.companyRecords.map((r) => r.home))).toEqual(new Set(MARKETS));
    expect(new Set(dataset.personRecords.map((r) => r.market))).toEqual(new Set(MARKETS));
  });

  it('gives AU companies a valid ABN and ACN, NZ an NZBN and SG a UEN', () => {
    for (const record of dataset.companyRecords) {
      const codes = record.company.industry_codes ?? {};
      if (record.home === 'AU') {
        expect(isValidAbn(codes.abn ?? ''), codes.abn).toBe(true);
        expect(codes.abn?.slice(2)).toBe(codes.acn);
        expect(record.company.abn_operation_status).toMatch(/^(Active|Cancelled)$/);
      }
      if (record.home === 'NZ') expect(codes.nzbn).toMatch(/^9429\d{9}$/);
      if (record.home === 'SG') expect(codes.uen).toMatch(/^\d{9}[A-Z]$/);
      if (!['AU', 'NZ', 'SG'].includes(record.home)) expect(codes.abn ?? codes.nzbn ?? codes.uen).toBeUndefined();
    }
  });

  it('keeps employee counts and registry numbers per market', () => {
    const multinational = dataset.companyRecords.find(
      (r) => r.regions.size > 1 && r.home !== 'AU' && r.regions.has('AU'),
    );
    expect(multinational).toBeDefined();
    const home = companyInMarket(multinational!, multinational!.home);
    const au = companyInMarket(multinational!, 'AU');
    expect(au.employee_count).toBe(multinational!.regions.get('AU')!.employeeCount);
    expect(au.employee_count).not.toBe(home.employee_count);
    expect(isValidAbn(au.industry_codes?.abn ?? '')).toBe(true);
    const absent = MARKETS.find((m) => !multinational!.regions.has(m))!;
    expect(companyInMarket(multinational!, absent).employee_count).toBeUndefined();
  });

  it('has DND phones, people without e-mail and every deliverability value', () => {
    const phones = dataset.people.flatMap((p) => p.phones ?? []);
    expect(phones.some((p) => p.is_dnd === true)).toBe(true);
    expect(phones.some((p) => p.is_dnd === false)).toBe(true);
    const noEmail = dataset.people.filter(
      (p) => (p.emails?.work?.length ?? 0) + (p.emails?.personal?.length ?? 0) === 0,
    );
    expect(noEmail.length).toBeGreaterThan(100);
    const deliverability = new Set(
      dataset.people
        .flatMap((p) => [...(p.emails?.work ?? []), ...(p.emails?.personal ?? [])])
        .map((e) => e.deliverability),
    );
    expect(deliverability).toEqual(new Set(['deliverable', 'risky', 'undeliverable']));
  });

  it('points each person at a real company of the dataset, with its domain for work e-mail', () => {
    const byId = new Map(dataset.companies.map((c) => [c.id, c]));
    const wrong = dataset.people.filter((person) => {
      const company = byId.get(person.current_company?.id);
      return (
        !company ||
        person.current_company?.name !== company.name ||
        person.current_company?.website !== company.website ||
        person.current_company?.linkedin !== company.linkedin ||
        (person.emails?.work ?? []).some((e) => !e.value?.endsWith(`@${company.fqdn}`))
      );
    });
    expect(wrong.map((p) => p.id)).toEqual([]);
  });

  it("uses the specification's seniority and department names, reserved work domains, free-mail personal ones", () => {
    const seniorities = new Set<string>(Object.values(SENIORITIES));
    const departments = new Set<string>(Object.values(DEPARTMENTS));
    const freeMail = new FreeMailDomains();
    const wrong = dataset.people.filter(
      (person) =>
        !seniorities.has(person.seniority ?? '') ||
        !departments.has(person.department ?? '') ||
        (person.emails?.work ?? []).some((e) => !/@[a-z0-9.-]+\.example$/.test(e.value ?? '')) ||
        (person.emails?.personal ?? []).some((e) => !freeMail.has((e.value ?? '').split('@')[1] ?? '')),
    );
    expect(wrong.map((p) => p.id)).toEqual([]);
    expect(new Set(dataset.people.map((p) => p.seniority)).size).toBe(7);
    expect(new Set(dataset.people.map((p) => p.department)).size).toBe(17);
  });

  it('keeps identifiers unique so each lookup finds one record', () => {
    expect(new Set(dataset.companies.map((c) => c.fqdn)).size).toBe(2000);
    expect(new Set(dataset.companies.map((c) => c.linkedin)).size).toBe(2000);
    expect(new Set(dataset.people.map((p) => p.linkedin)).size).toBe(20000);
    const work = dataset.people.flatMap((p) => p.emails?.work ?? []).map((e) => e.value);
    expect(new Set(work).size).toBe(work.length);
  });
});
