/**
 * Country names and codes as people type them into a CRM, normalised to the partner's 13 markets.
 */
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
