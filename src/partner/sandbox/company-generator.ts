/**
 * Generates the sandbox's companies. Each has a home market and, for multinationals, a presence in
 * up to three more; employee counts and registry numbers are kept per market because GET /company
 * answers with the data of the requested region.
 */
import { MARKETS, type Company, type Market } from '../schemas.js';
import { COMPANY_TYPES, FOUNDED_BANDS, REVENUE_BANDS, SIZE_BANDS } from './catalogue.js';
import { MARKET_INFO, countryCode, stateCode } from './geography.js';
import { INDUSTRY_DIVISIONS } from './industries.js';
import type { Prng } from './prng.js';
import { abnFromAcn, makeAcn, makeNzbn, makeUen } from './registry-numbers.js';
import { INDUSTRY_NOUNS, NAME_PREFIXES, NAME_QUALIFIERS } from './words.js';
import { makeNextGen } from './next-gen.js';

export interface RegionData {
  employeeCount: number;
  identifiers: { abn?: string; acn?: string; nzbn?: string; uen?: string };
  abnStatus?: string;
}

export interface CompanyRecord {
  /** The company as GET /company returns it for its home market. */
  company: Company;
  home: Market;
  regions: Map<Market, RegionData>;
  /** Codes of the list filters (and industry and location codes) that this company matches. */
  facets: Record<string, string[]>;
  globalEmployees: number;
  founded: number;
  /** Domain of the website, used for work e-mail addresses. */
  domain: string;
  /** The name without its legal-entity suffix, as people write it in a headline. */
  shortName: string;
}

const MARKET_WEIGHTS: Record<Market, number> = {
  AU: 20,
  NZ: 6,
  SG: 10,
  MY: 8,
  ID: 8,
  PH: 7,
  HK: 7,
  JP: 8,
  VN: 6,
  KR: 6,
  TH: 6,
  US: 12,
  CA: 6,
};
const WEIGHTED_MARKETS: Market[] = MARKETS.flatMap((m) => Array<Market>(MARKET_WEIGHTS[m]).fill(m));
const SIZE_WEIGHTS = [30, 28, 18, 9, 6, 5, 2, 2];
const WEIGHTED_SIZES = SIZE_WEIGHTS.flatMap((w, i) => Array<number>(w).fill(i));
const VC_STAGES = [
  'Not venture-backed',
  'Not venture-backed',
  'Not venture-backed',
  'Seed',
  'Series A',
  'Series B',
  'Series C',
];

function kebab(text: string): string {
  return text
    .toLowerCase()
    .replace(/&/g, 'and')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

export function generateCompany(prng: Prng, index: number, usedNames: Set<string>): CompanyRecord {
  const home: Market = index < MARKETS.length ? (MARKETS[index] as Market) : prng.pick(WEIGHTED_MARKETS);
  const info = MARKET_INFO[home];
  const division = prng.pick(INDUSTRY_DIVISIONS);
  const sub = prng.pick(division.subdivisions);
  const letter = division.code.slice(3);

  let base = `${prng.pick(NAME_PREFIXES)} ${prng.pick(INDUSTRY_NOUNS[letter] ?? ['Services'])}`;
  if (usedNames.has(base)) base = `${base} ${prng.pick(NAME_QUALIFIERS)}`;
  if (usedNames.has(base)) base = `${base} ${index}`;
  usedNames.add(base);
  const slug = kebab(base);
  const domain = `${slug}.${home.toLowerCase()}.example`;
  const name = `${base} ${prng.pick(info.suffixes)}`;

  const sizeBand = SIZE_BANDS[prng.pick(WEIGHTED_SIZES)] ?? SIZE_BANDS[0]!;
  const globalEmployees = prng.int(sizeBand[1], Math.min(sizeBand[2], sizeBand[1] * 4));
  const founded = prng.chance(0.1) ? prng.int(1900, 1949) : prng.int(1950, 2023);
  const isMnc = globalEmployees > 200 && prng.chance(0.5);
  const otherMarkets = isMnc
    ? prng.sample(
        MARKETS.filter((m) => m !== home),
        prng.int(1, 3),
      )
    : [];

  const regions = new Map<Market, RegionData>();
  const homeCount = otherMarkets.length > 0 ? Math.ceil(globalEmployees * 0.6) : globalEmployees;
  regions.set(home, { employeeCount: homeCount, ...regionIdentifiers(prng, home, founded) });
  let remaining = globalEmployees - homeCount;
  otherMarkets.forEach((market, i) => {
    const count = i === otherMarkets.length - 1 ? remaining : Math.floor(remaining / 2);
    remaining -= count;
    regions.set(market, { employeeCount: Math.max(1, count), ...regionIdentifiers(prng, market, founded) });
  });

  const homeStates = prng.sample(info.states, prng.chance(0.3) ? prng.int(2, 3) : 1);
  const hq = homeStates[0] ?? info.states[0]!;
  const locationStates: [Market, string, string][] = [
    ...homeStates.map(([, s, city]) => [home, s, city] as [Market, string, string]),
    ...otherMarkets.map((m) => {
      const [, s, city] = prng.pick(MARKET_INFO[m].states);
      return [m, s, city] as [Market, string, string];
    }),
  ];
  const revenueIndex = Math.min(
    REVENUE_BANDS.length - 1,
    Math.max(0, SIZE_BANDS.indexOf(sizeBand) - 1 + prng.int(0, 1)),
  );
  const revenue = REVENUE_BANDS[revenueIndex]!;
  const companyType =
    globalEmployees > 1000 && prng.chance(0.4) ? COMPANY_TYPES[1] : prng.pick(COMPANY_TYPES.slice(0, 5));
  const customer = prng.pick(['b2b', 'b2b', 'b2c', 'both'] as const);
  const keywords = [
    sub.label.toLowerCase(),
    ...prng.sample(
      [
        'innovation',
        'sustainability',
        'quality',
        'family owned',
        'award winning',
        'export',
        'digital',
        'customer first',
        'local',
      ],
      prng.int(1, 3),
    ),
  ];
  const phoneDigits = prng.digits(9);
  const region = regions.get(home)!;
  const website = `https://www.${domain}`;

  const company: Company = {
    id: `co_${home.toLowerCase()}${String(index + 1).padStart(6, '0')}`,
    name,
    website,
    fqdn: domain,
    description:
      `${name} provides ${sub.label.toLowerCase()} to ` +
      `${customer === 'b2c' ? 'consumers' : 'businesses'} from ${hq[2]}, ${info.label}. Founded in ` +
      `${founded}, it employs about ${globalEmployees} people.`,
    tagline:
      `${prng.pick(['Trusted', 'Better', 'Smarter', 'Reliable', 'Modern'])} ` +
      `${sub.label.toLowerCase()}, ` +
      `${prng.pick(['done right', 'for everyone', 'since ' + founded, 'that lasts'])}`,
    linkedin: slug,
    employee_count: region.employeeCount,
    year_founded: founded,
    hq_location: `${hq[2]}, ${hq[1]}, ${info.label}`,
    hq_country: info.label,
    company_size: sizeBand[0],
    company_type: companyType[1],
    locations: locationStates.map(([m, s, city]) => `${city}, ${s}, ${MARKET_INFO[m].label}`),
    industries: [division.label, sub.label],
    revenue: revenue[1],
    phones: [`${info.dial} ${phoneDigits.slice(0, 1)} ${phoneDigits.slice(1, 5)} ${phoneDigits.slice(5)}`],
    emails: [`info@${domain}`, `sales@${domain}`],
    social_media: {
      twitter: slug.replace(/-/g, ''),
      youtube: slug,
      facebook: slug,
      linkedin: slug,
      instagram: slug.replace(/-/g, '_'),
    },
    industry_codes: {
      sic: prng.digits(4),
      duns: prng.digits(9),
      naics: prng.digits(6),
      ...(home === 'AU' || home === 'NZ' ? { anzsic: `${sub.code.slice(4)}${prng.digits(2)}` } : {}),
      ...region.identifiers,
    },
    keywords,
    org_registers: { vc: prng.pick(VC_STAGES) },
    states: homeStates.map(([code]) => code),
    nextGen: makeNextGen(prng, slug, website, name, home),
  };
  if (region.abnStatus) company.abn_operation_status = region.abnStatus;

  const foundedBand = FOUNDED_BANDS.find(([, , from, to]) => founded >= from && founded <= to)![0];
  const facets: Record<string, string[]> = {
    industry: [division.code, sub.code],
    location: locationStates.map(([m, s]) => stateCode(m, s)),
    hq_location: [countryCode(home), stateCode(home, hq[1])],
    revenue: [revenue[0]],
    company_type: [companyType[0]],
    year_founded: [foundedBand],
    is_mnc: [isMnc ? 'yes' : 'no'],
    b2b_vs_b2c: [customer],
    target_market: [isMnc ? 'global' : prng.pick(['local', 'national', 'regional'])],
    multiple_locations: [locationStates.length > 1 ? 'yes' : 'no'],
    job_posts: [prng.chance(0.35) ? 'hiring' : 'not-hiring'],
  };
  return { company, home, regions, facets, globalEmployees, founded, domain, shortName: base };
}

function regionIdentifiers(prng: Prng, market: Market, founded: number): Omit<RegionData, 'employeeCount'> {
  if (market === 'AU') {
    const acn = makeAcn(prng);
    return { identifiers: { abn: abnFromAcn(acn), acn }, abnStatus: prng.chance(0.95) ? 'Active' : 'Cancelled' };
  }
  if (market === 'NZ') return { identifiers: { nzbn: makeNzbn(prng) } };
  if (market === 'SG') return { identifiers: { uen: makeUen(prng, founded) } };
  return { identifiers: {} };
}
