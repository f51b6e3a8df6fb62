/**
 * GET /company and GET /people: exactly one lookup parameter, an optional market, and the generic
 * error body for everything that goes wrong. The specification names only `ln_slug`; the other
 * parameter names are the project's defaults (see docs/partner-api.md).
 */
import { MARKETS, DEFAULT_MARKET, type Company, type Market, type Person } from '../schemas.js';
import { COMPANY_LOOKUPS, PERSON_LOOKUPS, companyInMarket, type PartnerDataset } from './dataset.js';
import { SandboxHttpError } from './http-error.js';

function singleLookup<T extends string>(query: URLSearchParams, names: readonly T[]): { by: T; value: string } {
  const given = names.filter((name) => query.has(name));
  if (given.length !== 1) {
    const problem =
      given.length === 0
        ? 'no lookup parameter was given'
        : `several lookup parameters were given (${given.join(', ')})`;
    throw SandboxHttpError.generic(400, `${problem}; give exactly one of ${names.join(', ')}`);
  }
  const by = given[0] as T;
  const values = query.getAll(by);
  if (values.length > 1) throw SandboxHttpError.generic(400, `${by} was given ${values.length} times; give it once`);
  const value = (values[0] ?? '').trim();
  if (value === '') throw SandboxHttpError.generic(400, `${by} is empty; give a value to look up`);
  return { by, value };
}

function market(query: URLSearchParams): Market {
  const values = query.getAll('country');
  if (values.length > 1) throw SandboxHttpError.generic(400, 'country was given more than once; give one market code');
  const value = values[0];
  if (value === undefined) return DEFAULT_MARKET;
  if (!(MARKETS as readonly string[]).includes(value)) {
    throw SandboxHttpError.generic(400, `country "${value}" is not supported; use one of ${MARKETS.join(', ')}`);
  }
  return value as Market;
}

export function lookupCompany(dataset: PartnerDataset, query: URLSearchParams): Company {
  const { by, value } = singleLookup(query, COMPANY_LOOKUPS);
  const country = market(query);
  const record = dataset.findCompany(by, value);
  if (!record) throw SandboxHttpError.generic(404, `no company matches the given ${by}`);
  return companyInMarket(record, country);
}

export function lookupPerson(dataset: PartnerDataset, query: URLSearchParams): Person {
  const { by, value } = singleLookup(query, PERSON_LOOKUPS);
  const record = dataset.findPerson(by, value);
  if (!record) throw SandboxHttpError.generic(404, `no person matches the given ${by}`);
  return record.person;
}
