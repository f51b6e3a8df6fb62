/**
 * The thirteen markets as the sandbox sees them: display name, dialling code, legal-entity suffix,
 * naming tradition and states (code, name, main city). Location filter codes are built from these.
 */
import type { Market } from '../schemas.js';

export type NamePool = 'anglo' | 'chinese' | 'malay' | 'filipino' | 'japanese' | 'vietnamese' | 'korean' | 'thai';

export interface MarketInfo {
  label: string;
  dial: string;
  suffixes: readonly string[];
  names: readonly NamePool[];
  states: readonly (readonly [code: string, name: string, city: string])[];
}

export const MARKET_INFO: Record<Market, MarketInfo> = {
  AU: {
    label: 'Australia',
    dial: '+61',
    suffixes: ['Pty Ltd', 'Ltd'],
    names: ['anglo', 'anglo', 'chinese'],
    states: [
      ['NSW', 'New South Wales', 'Sydney'],
      ['VIC', 'Victoria', 'Melbourne'],
      ['QLD', 'Queensland', 'Brisbane'],
      ['WA', 'Western Australia', 'Perth'],
      ['SA', 'South Australia', 'Adelaide'],
      ['TAS', 'Tasmania', 'Hobart'],
      ['ACT', 'Australian Capital Territory', 'Canberra'],
      ['NT', 'Northern Territory', 'Darwin'],
    ],
  },
  NZ: {
    label: 'New Zealand',
    dial: '+64',
    suffixes: ['Limited'],
    names: ['anglo'],
    states: [
      ['AUK', 'Auckland', 'Auckland'],
      ['WGN', 'Wellington', 'Wellington'],
      ['CAN', 'Canterbury', 'Christchurch'],
      ['WKO', 'Waikato', 'Hamilton'],
      ['BOP', 'Bay of Plenty', 'Tauranga'],
      ['OTA', 'Otago', 'Dunedin'],
      ['MWT', 'Manawatu-Whanganui', 'Palmerston North'],
      ['HKB', "Hawke's Bay", 'Napier'],
      ['NTL', 'Northland', 'Whangarei'],
      ['NSN', 'Nelson', 'Nelson'],
      ['TKI', 'Taranaki', 'New Plymouth'],
      ['STL', 'Southland', 'Invercargill'],
    ],
  },
  SG: {
    label: 'Singapore',
    dial: '+65',
    suffixes: ['Pte Ltd'],
    names: ['chinese', 'chinese', 'malay', 'anglo'],
    states: [
      ['CR', 'Central Region', 'Singapore'],
      ['ER', 'East Region', 'Tampines'],
      ['NR', 'North Region', 'Woodlands'],
      ['NER', 'North-East Region', 'Sengkang'],
      ['WR', 'West Region', 'Jurong East'],
    ],
  },
  MY: {
    label: 'Malaysia',
    dial: '+60',
    suffixes: ['Sdn Bhd', 'Berhad'],
    names: ['malay', 'malay', 'chinese'],
    states: [
      ['KUL', 'Kuala Lumpur', 'Kuala Lumpur'],
      ['SGR', 'Selangor', 'Shah Alam'],
      ['PNG', 'Penang', 'George Town'],
      ['JHR', 'Johor', 'Johor Bahru'],
      ['PRK', 'Perak', 'Ipoh'],
      ['SBH', 'Sabah', 'Kota Kinabalu'],
      ['SWK', 'Sarawak', 'Kuching'],
      ['MLK', 'Malacca', 'Malacca City'],
      ['KDH', 'Kedah', 'Alor Setar'],
      ['NSN', 'Negeri Sembilan', 'Seremban'],
    ],
  },
  ID: {
    label: 'Indonesia',
    dial: '+62',
    suffixes: ['Tbk', 'Indonesia'],
    names: ['malay'],
    states: [
      ['JK', 'Jakarta', 'Jakarta'],
      ['JB', 'West Java', 'Bandung'],
      ['JT', 'Central Java', 'Semarang'],
      ['JI', 'East Java', 'Surabaya'],
      ['BA', 'Bali', 'Denpasar'],
      ['SU', 'North Sumatra', 'Medan'],
      ['BT', 'Banten', 'Tangerang'],
      ['YO', 'Yogyakarta', 'Yogyakarta'],
      ['SN', 'South Sulawesi', 'Makassar'],
      ['KT', 'East Kalimantan', 'Samarinda'],
    ],
  },
  PH: {
    label: 'Philippines',
    dial: '+63',
    suffixes: ['Inc.', 'Corporation'],
    names: ['filipino'],
    states: [
      ['NCR', 'Metro Manila', 'Makati'],
      ['CEB', 'Cebu', 'Cebu City'],
      ['DAV', 'Davao del Sur', 'Davao City'],
      ['CAV', 'Cavite', 'Bacoor'],
      ['LAG', 'Laguna', 'Santa Rosa'],
      ['PAM', 'Pampanga', 'San Fernando'],
      ['BTG', 'Batangas', 'Batangas City'],
      ['ILI', 'Iloilo', 'Iloilo City'],
    ],
  },
  HK: {
    label: 'Hong Kong',
    dial: '+852',
    suffixes: ['Limited'],
    names: ['chinese'],
    states: [
      ['HCW', 'Central and Western', 'Central'],
      ['HWC', 'Wan Chai', 'Wan Chai'],
      ['HEA', 'Eastern', 'Quarry Bay'],
      ['KYT', 'Yau Tsim Mong', 'Tsim Sha Tsui'],
      ['KKT', 'Kwun Tong', 'Kwun Tong'],
      ['NST', 'Sha Tin', 'Sha Tin'],
      ['NTW', 'Tsuen Wan', 'Tsuen Wan'],
    ],
  },
  JP: {
    label: 'Japan',
    dial: '+81',
    suffixes: ['K.K.', 'Co., Ltd.'],
    names: ['japanese'],
    states: [
      ['13', 'Tokyo', 'Tokyo'],
      ['27', 'Osaka', 'Osaka'],
      ['14', 'Kanagawa', 'Yokohama'],
      ['23', 'Aichi', 'Nagoya'],
      ['40', 'Fukuoka', 'Fukuoka'],
      ['01', 'Hokkaido', 'Sapporo'],
      ['26', 'Kyoto', 'Kyoto'],
      ['28', 'Hyogo', 'Kobe'],
      ['34', 'Hiroshima', 'Hiroshima'],
      ['04', 'Miyagi', 'Sendai'],
      ['11', 'Saitama', 'Saitama'],
      ['12', 'Chiba', 'Chiba'],
    ],
  },
  VN: {
    label: 'Vietnam',
    dial: '+84',
    suffixes: ['JSC', 'Co., Ltd'],
    names: ['vietnamese'],
    states: [
      ['SG', 'Ho Chi Minh City', 'Ho Chi Minh City'],
      ['HN', 'Hanoi', 'Hanoi'],
      ['DN', 'Da Nang', 'Da Nang'],
      ['HP', 'Hai Phong', 'Hai Phong'],
      ['CT', 'Can Tho', 'Can Tho'],
      ['BD', 'Binh Duong', 'Thu Dau Mot'],
      ['DNA', 'Dong Nai', 'Bien Hoa'],
      ['KH', 'Khanh Hoa', 'Nha Trang'],
    ],
  },
  KR: {
    label: 'South Korea',
    dial: '+82',
    suffixes: ['Co., Ltd.', 'Corp.'],
    names: ['korean'],
    states: [
      ['11', 'Seoul', 'Seoul'],
      ['26', 'Busan', 'Busan'],
      ['28', 'Incheon', 'Incheon'],
      ['27', 'Daegu', 'Daegu'],
      ['29', 'Gwangju', 'Gwangju'],
      ['30', 'Daejeon', 'Daejeon'],
      ['31', 'Ulsan', 'Ulsan'],
      ['41', 'Gyeonggi', 'Suwon'],
      ['50', 'Jeju', 'Jeju City'],
    ],
  },
  TH: {
    label: 'Thailand',
    dial: '+66',
    suffixes: ['Co., Ltd.', 'Public Company Limited'],
    names: ['thai'],
    states: [
      ['10', 'Bangkok', 'Bangkok'],
      ['50', 'Chiang Mai', 'Chiang Mai'],
      ['20', 'Chonburi', 'Pattaya'],
      ['83', 'Phuket', 'Phuket'],
      ['40', 'Khon Kaen', 'Khon Kaen'],
      ['90', 'Songkhla', 'Hat Yai'],
      ['12', 'Nonthaburi', 'Nonthaburi'],
      ['21', 'Rayong', 'Rayong'],
    ],
  },
  US: {
    label: 'United States',
    dial: '+1',
    suffixes: ['Inc.', 'LLC', 'Corp.'],
    names: ['anglo'],
    states: [
      ['CA', 'California', 'San Francisco'],
      ['NY', 'New York', 'New York'],
      ['TX', 'Texas', 'Austin'],
      ['WA', 'Washington', 'Seattle'],
      ['MA', 'Massachusetts', 'Boston'],
      ['IL', 'Illinois', 'Chicago'],
      ['FL', 'Florida', 'Miami'],
      ['GA', 'Georgia', 'Atlanta'],
      ['CO', 'Colorado', 'Denver'],
      ['PA', 'Pennsylvania', 'Philadelphia'],
      ['OR', 'Oregon', 'Portland'],
      ['NC', 'North Carolina', 'Raleigh'],
      ['OH', 'Ohio', 'Columbus'],
      ['AZ', 'Arizona', 'Phoenix'],
      ['MN', 'Minnesota', 'Minneapolis'],
      ['VA', 'Virginia', 'Arlington'],
      ['MI', 'Michigan', 'Detroit'],
      ['UT', 'Utah', 'Salt Lake City'],
    ],
  },
  CA: {
    label: 'Canada',
    dial: '+1',
    suffixes: ['Inc.', 'Ltd.'],
    names: ['anglo'],
    states: [
      ['ON', 'Ontario', 'Toronto'],
      ['QC', 'Quebec', 'Montreal'],
      ['BC', 'British Columbia', 'Vancouver'],
      ['AB', 'Alberta', 'Calgary'],
      ['MB', 'Manitoba', 'Winnipeg'],
      ['SK', 'Saskatchewan', 'Saskatoon'],
      ['NS', 'Nova Scotia', 'Halifax'],
      ['NB', 'New Brunswick', 'Fredericton'],
      ['NL', 'Newfoundland and Labrador', "St. John's"],
      ['PE', 'Prince Edward Island', 'Charlottetown'],
    ],
  },
};

/** Filter code of a state, in the specification's form `state:<state>, <country>:<country code>`. */
export function stateCode(market: Market, stateName: string): string {
  return `state:${stateName}, ${MARKET_INFO[market].label}:${market}`;
}

/** Filter code of a whole market, in the specification's form `country:<country>:<country code>`. */
export function countryCode(market: Market): string {
  return `country:${MARKET_INFO[market].label}:${market}`;
}
