/**
 * The sandbox's data: companies and people generated from a seed, with the indexes the lookup
 * endpoints use. Same seed and sizes, same data, on every machine.
 */
import type { Company, Market, Person } from '../schemas.js';
import { generateCompany, type CompanyRecord } from './company-generator.js';
import { normalizeDigits, normalizeEmail, normalizeHost, normalizeSlug } from './normalize.js';
import { PersonRecord } from './person-generator.js';
import { Prng } from './prng.js';

export type { CompanyRecord } from './company-generator.js';
export { PersonRecord } from './person-generator.js';

export type CompanyLookup = 'id' | 'ln_slug' | 'ln_url' | 'fqdn' | 'abn' | 'website';
export type PersonLookup = 'id' | 'ln_slug' | 'ln_url' | 'work_email' | 'personal_email';
export const COMPANY_LOOKUPS: readonly CompanyLookup[] = ['id', 'ln_slug', 'ln_url', 'fqdn', 'abn', 'website'];
export const PERSON_LOOKUPS: readonly PersonLookup[] = ['id', 'ln_slug', 'ln_url', 'work_email', 'personal_email'];

export interface PartnerDataset {
  seed: number;
  /** Each company as GET /company returns it for its home market (`hq_country`). */
  companies: Company[];
  /** Every full profile; drawn on first read (lookups and searches need only personRecords). */
  readonly people: Person[];
  companyRecords: CompanyRecord[];
  personRecords: PersonRecord[];
  findCompany(by: CompanyLookup, value: string): CompanyRecord | undefined;
  findPerson(by: PersonLookup, value: string): PersonRecord | undefined;
  /** The people working at a company, in id order. */
  peopleAt(companyId: string): PersonRecord[];
  /**
   * The person changes jobs (see `PersonRecord.moveTo`); the indexes follow, and the old work address
   * still finds the person, as a partner's does for someone who left.
   */
  movePerson(record: PersonRecord, to: CompanyRecord): void;
}

export interface DatasetOptions {
  seed?: number;
  companies?: number;
  people?: number;
}

export function createDataset(options: DatasetOptions = {}): PartnerDataset {
  const seed = options.seed ?? 1;
  const companyCount = options.companies ?? 2000;
  const peopleCount = options.people ?? 20000;
  if (companyCount < 1 && peopleCount > 0) throw new RangeError('a dataset with people needs at least one company');
  const prng = new Prng(seed);

  const usedNames = new Set<string>();
  const companyRecords = Array.from({ length: companyCount }, (_, i) => generateCompany(prng, i, usedNames));
  const usedEmails = new Set<string>();
  const personRecords = Array.from({ length: peopleCount }, (_, i) => {
    // The first people go one to each company, so every company has someone to find.
    const employer = i < companyCount ? companyRecords[i]! : prng.pick(companyRecords);
    return new PersonRecord(prng, seed, i, employer, companyRecords, usedEmails);
  });

  const companyIndex = new Map<string, CompanyRecord>();
  const add = <T>(index: Map<string, T>, kind: string, key: string | undefined, record: T) => {
    if (key) index.set(`${kind}|${key}`, record);
  };
  for (const record of companyRecords) {
    const c = record.company;
    add(companyIndex, 'id', c.id, record);
    add(companyIndex, 'slug', c.linkedin && normalizeSlug(c.linkedin), record);
    add(companyIndex, 'host', c.fqdn && normalizeHost(c.fqdn), record);
    for (const region of record.regions.values()) add(companyIndex, 'abn', region.identifiers.abn, record);
  }
  // One map per key, keyed by the record's own strings: a combined `kind|key` index made 80,000 more
  // strings, which the embedded default holds in the service's own heap.
  const personBy = {
    id: new Map<string, PersonRecord>(),
    slug: new Map<string, PersonRecord>(),
    work: new Map<string, PersonRecord>(),
    personal: new Map<string, PersonRecord>(),
  };
  const byCompany = new Map<string, PersonRecord[]>();
  for (const record of personRecords) {
    personBy.id.set(record.id, record);
    personBy.slug.set(record.slug, record);
    if (record.workEmail) personBy.work.set(record.workEmail, record);
    if (record.personalEmail) personBy.personal.set(record.personalEmail, record);
    const companyId = record.employer.company.id ?? '';
    const list = byCompany.get(companyId) ?? [];
    list.push(record);
    byCompany.set(companyId, list);
  }

  return {
    seed,
    companies: companyRecords.map((r) => r.company),
    get people() {
      return personRecords.map((r) => r.person);
    },
    companyRecords,
    personRecords,
    findCompany(by, value) {
      switch (by) {
        case 'id':
          return companyIndex.get(`id|${value.trim()}`);
        case 'ln_slug':
        case 'ln_url':
          return companyIndex.get(`slug|${normalizeSlug(value)}`);
        case 'fqdn':
        case 'website':
          return companyIndex.get(`host|${normalizeHost(value)}`);
        case 'abn':
          return companyIndex.get(`abn|${normalizeDigits(value)}`);
      }
    },
    findPerson(by, value) {
      switch (by) {
        case 'id':
          return personBy.id.get(value.trim());
        case 'ln_slug':
        case 'ln_url':
          return personBy.slug.get(normalizeSlug(value));
        case 'work_email':
          return personBy.work.get(normalizeEmail(value));
        case 'personal_email':
          return personBy.personal.get(normalizeEmail(value));
      }
    },
    peopleAt(companyId) {
      return byCompany.get(companyId) ?? [];
    },
    movePerson(record, to) {
      const from = byCompany.get(record.employer.company.id ?? '') ?? [];
      const was = from.indexOf(record);
      if (was !== -1) from.splice(was, 1);
      const workEmail = record.moveTo(to, (address) => personBy.work.has(address));
      personBy.work.set(workEmail, record);
      const list = byCompany.get(to.company.id ?? '') ?? [];
      const at = list.findIndex((other) => other.id > record.id);
      list.splice(at === -1 ? list.length : at, 0, record);
      byCompany.set(to.company.id ?? '', list);
    },
  };
}

/**
 * A company as seen from one market: employee_count counts the staff in that market, and the
 * registry numbers (ABN/ACN, NZBN, UEN) are those of that market. Where the company has no presence
 * in the market, both are left out rather than reported as zero.
 */
export function companyInMarket(record: CompanyRecord, market: Market): Company {
  const region = record.regions.get(market);
  const { abn: _abn, acn: _acn, nzbn: _nzbn, uen: _uen, ...globalCodes } = record.company.industry_codes ?? {};
  const { employee_count: _count, abn_operation_status: _status, ...rest } = record.company;
  return {
    ...rest,
    ...(region ? { employee_count: region.employeeCount } : {}),
    ...(region?.abnStatus ? { abn_operation_status: region.abnStatus } : {}),
    industry_codes: { ...globalCodes, ...(region?.identifiers ?? {}) },
  };
}
