/**
 * GET /__sandbox/sample: identifiers of real records of the dataset, so tests and demos can look
 * something up without knowing the seed's data. Deterministic: the same query gives the same records.
 */
import { MARKETS, type Market } from '../schemas.js';
import type { PartnerDataset } from './dataset.js';
import { SandboxHttpError } from './http-error.js';

const MAX_SAMPLE = 100;

function count(query: URLSearchParams, name: string, fallback: number, max: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > max)
    throw SandboxHttpError.generic(400, `${name} must be a whole number from 0 to ${max}`);
  return Number(raw);
}

export function sampleIdentifiers(dataset: PartnerDataset, query: URLSearchParams) {
  const market = query.get('market');
  if (market !== null && !(MARKETS as readonly string[]).includes(market)) {
    throw SandboxHttpError.generic(400, `market "${market}" is not supported; use one of ${MARKETS.join(', ')}`);
  }
  const n = count(query, 'n', 5, MAX_SAMPLE);
  const offset = count(query, 'offset', 0, Number.MAX_SAFE_INTEGER);
  const inMarket = (m: Market) => market === null || m === market;

  const companies = dataset.companyRecords
    .filter((r) => inMarket(r.home))
    .slice(offset, offset + n)
    .map(({ company, home, regions }) => ({
      id: company.id,
      name: company.name,
      market: home,
      fqdn: company.fqdn,
      website: company.website,
      ln_slug: company.linkedin,
      ln_url: `https://www.linkedin.com/company/${company.linkedin}`,
      ...regions.get(home)?.identifiers,
    }));
  // People with a work e-mail, so every sampled person can be found by each kind of identifier.
  const people = dataset.personRecords
    .filter((r) => inMarket(r.market) && r.workEmail !== undefined)
    .slice(offset, offset + n)
    .map((r) => ({
      id: r.id,
      market: r.market,
      company_id: r.employer.company.id,
      ln_slug: r.slug,
      ln_url: `https://www.linkedin.com/in/${r.slug}`,
      work_email: r.workEmail,
      ...(r.personalEmail ? { personal_email: r.personalEmail } : {}),
    }));
  return { market: market ?? 'all', companies, people };
}
