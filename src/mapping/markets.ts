/**
 * Country names and codes as people type them into a CRM, normalised to the partner's 13 markets; and
 * the market a record's own keys point to when its country is empty (a `.co.nz` address, an ABN).
 */
import { websiteDomain } from '../core/domain.js';
import { MARKETS, type Market } from '../partner/schemas.js';

const NAMES: Record<string, Market> = {
  australia: 'AU',
  aus: 'AU',
  'new zealand': 'NZ',
  nzl: 'NZ',
  aotearoa: 'NZ',
  singapore: 'SG',
  sgp: 'SG',
  malaysia: 'MY',
  mys: 'MY',
  indonesia: 'ID',
  idn: 'ID',
  philippines: 'PH',
  'the philippines': 'PH',
  phl: 'PH',
  'hong kong': 'HK',
  'hong kong sar': 'HK',
  hkg: 'HK',
  japan: 'JP',
  jpn: 'JP',
  vietnam: 'VN',
  'viet nam': 'VN',
  vnm: 'VN',
  'south korea': 'KR',
  korea: 'KR',
  'republic of korea': 'KR',
  'korea, republic of': 'KR',
  kor: 'KR',
  thailand: 'TH',
  tha: 'TH',
  'united states': 'US',
  'united states of america': 'US',
  usa: 'US',
  america: 'US',
  canada: 'CA',
  can: 'CA',
};

const CODES = new Set<string>(MARKETS);

/** The market a country name or code denotes, or undefined when it is none of the 13. */
export function toMarket(country: string | null | undefined): Market | undefined {
  if (!country) return undefined;
  const cleaned = country.trim().toLowerCase().replace(/\./g, '').replace(/\s+/g, ' ');
  if (cleaned === '') return undefined;
  const upper = cleaned.toUpperCase();
  if (cleaned.length === 2 && CODES.has(upper)) return upper as Market;
  return NAMES[cleaned];
}

/** Country-code top-level domains of the markets (`.id` is Indonesia's, `.us` rarely used but the United States'). */
const CC_TLDS: Record<string, Market> = {
  au: 'AU',
  nz: 'NZ',
  sg: 'SG',
  my: 'MY',
  id: 'ID',
  ph: 'PH',
  hk: 'HK',
  jp: 'JP',
  vn: 'VN',
  kr: 'KR',
  th: 'TH',
  us: 'US',
  ca: 'CA',
};

/**
 * The market a domain's country-code top-level domain names (`acme.co.nz`: NZ), or undefined for a
 * generic one (`.com`). Under `.example`, the name reserved for examples and tests (RFC 2606) that the
 * partner sandbox's domains use, the label before it stands for the country code (`acme.nz.example`).
 */
export function marketOfDomain(domain: string): Market | undefined {
  const labels = domain.toLowerCase().replace(/\.$/, '').split('.');
  const tld = labels.at(-1) === 'example' && labels.length > 2 ? labels.at(-2) : labels.at(-1);
  return tld ? CC_TLDS[tld] : undefined;
}

/**
 * The market a record's match keys point to: the country code of its work e-mail's or website's domain,
 * or Australia for an ABN. Undefined when they say nothing (a personal address at a global provider).
 */
export function marketOfKeys(keys: readonly { by: string; value: string }[]): Market | undefined {
  for (const key of keys) {
    if (key.by === 'abn') return 'AU';
    const host =
      key.by === 'work_email'
        ? key.value.split('@')[1]
        : key.by === 'fqdn' || key.by === 'website'
          ? key.value
          : undefined;
    const market = host ? marketOfDomain(websiteDomain(host)) : undefined;
    if (market) return market;
  }
  return undefined;
}
