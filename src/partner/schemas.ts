/**
 * zod schemas for every resource of the partner API (see the provider's specification).
 *
 * The specification does not say which fields are required, and gives some value types as
 * inconsistent, so every field is optional, the inconsistent ones take a string or a number, and
 * objects keep keys we do not know (`z.looseObject`): a field the provider adds tomorrow breaks nothing.
 */
import { z } from 'zod';

export const MARKETS = ['AU', 'NZ', 'SG', 'MY', 'ID', 'PH', 'HK', 'JP', 'VN', 'KR', 'TH', 'US', 'CA'] as const;
export const Market = z.enum(MARKETS);
export type Market = z.infer<typeof Market>;
export const DEFAULT_MARKET: Market = 'AU';

const str = z.string();
const int = z.number();
const strOrNum = z.union([z.string(), z.number()]);
const strList = z.array(z.string());

export const SENIORITIES = {
  1: 'Board Member / Company Director',
  2: 'Owner / Founder',
  3: 'C-Suite / Partner',
  4: 'VP/Director / Head of',
  5: 'Manager',
  6: 'Other',
  7: 'No Data Available',
} as const;

export const DEPARTMENTS = {
  1: 'General Management',
  2: 'Sales',
  3: 'Trades',
  4: 'Operations',
  5: 'Engineering & Technical',
  6: 'Human Resources',
  7: 'Customer Service',
  8: 'Medicine & Healthcare',
  9: 'Research & Analysis',
  10: 'Legal',
  11: 'Marketing',
  12: 'Education & Training',
  13: 'Consulting',
  14: 'Finance',
  15: 'Product',
  16: 'Other',
  17: 'No Data Available',
} as const;

// ---- Company ---------------------------------------------------------------------------------

export const CompanySocialMedia = z.looseObject({
  twitter: str.optional(),
  youtube: str.optional(),
  facebook: str.optional(),
  linkedin: str.optional(),
  instagram: str.optional(),
});

export const IndustryCodes = z.looseObject({
  sic: str.optional(),
  duns: str.optional(),
  naics: str.optional(),
  anzsic: str.optional(),
  abn: str.optional(),
  acn: str.optional(),
  nzbn: str.optional(),
  uen: str.optional(),
});

export const NextGenSocialProfile = z.looseObject({
  profile_name: str.optional(),
  handle: str.optional(),
  followers: int.optional(),
  videos: int.optional(),
  likes: int.optional(),
  views: int.optional(),
  subscribers: int.optional(),
  following: int.optional(),
  verified: z.boolean().optional(),
  joined: str.optional(),
});

export const ReviewsRating = z.looseObject({
  ceo_approval: str.optional(),
  total_reviews: int.optional(),
  rating: z
    .looseObject({
      ceo_approval_rating: str.optional(),
      career_opportunities_rating: str.optional(),
      compensation_and_benefits_rating: str.optional(),
      culture_and_values_rating: str.optional(),
      diversity_and_inclusion_rating: str.optional(),
      senior_management_rating: str.optional(),
      work_life_balance_rating: str.optional(),
    })
    .optional(),
  overall_rating: str.optional(),
  employee_rating_id: str.optional(),
  recommend_to_friend: int.optional(),
  // The specification shows `url` as a number; a URL is normally a string, so take both.
  url: strOrNum.optional(),
});

export const WebTraffic = z.looseObject({
  summary: z
    .looseObject({
      avg_visit_duration: str.optional(),
      total_web_visitors: int.optional(),
      bounce_rate: int.optional(),
      pages_per_visit: int.optional(),
    })
    .optional(),
  traffic_share: z
    .looseObject({
      countries: z.record(z.string(), z.unknown()).optional(),
      organic: int.optional(),
      paid: int.optional(),
    })
    .optional(),
  marketing_channels_distribution: z
    .looseObject({
      Direct: int.optional(),
      Referrals: int.optional(),
      Search: int.optional(),
      Social: int.optional(),
      Mail: int.optional(),
    })
    .optional(),
});

export const NextGen = z.looseObject({
  id: str.optional(),
  website: str.optional(),
  social_media: z
    .looseObject({
      youtube: NextGenSocialProfile.optional(),
      instagram: NextGenSocialProfile.optional(),
      linkedin: NextGenSocialProfile.optional(),
      facebook: NextGenSocialProfile.optional(),
    })
    .optional(),
  reviews_rating: ReviewsRating.optional(),
  web_traffic: WebTraffic.optional(),
});

export const Company = z.looseObject({
  id: str.optional(),
  name: str.optional(),
  website: str.optional(),
  fqdn: str.optional(),
  description: str.optional(),
  tagline: str.optional(),
  linkedin: str.optional(),
  employee_count: int.optional(),
  year_founded: int.optional(),
  hq_location: str.optional(),
  hq_country: str.optional(),
  company_size: str.optional(),
  company_type: str.optional(),
  abn_operation_status: str.optional(),
  locations: strList.optional(),
  industries: strList.optional(),
  revenue: str.optional(),
  phones: strList.optional(),
  emails: strList.optional(),
  social_media: CompanySocialMedia.optional(),
  industry_codes: IndustryCodes.optional(),
  keywords: strList.optional(),
  org_registers: z.looseObject({ vc: str.optional() }).optional(),
  states: strList.optional(),
  nextGen: NextGen.optional(),
});
export type Company = z.infer<typeof Company>;

// ---- Person ----------------------------------------------------------------------------------

export const EmailEntry = z.looseObject({ value: str.optional(), deliverability: str.optional() });
export type EmailEntry = z.infer<typeof EmailEntry>;

export const PhoneEntry = z.looseObject({ value: str.optional(), is_dnd: z.boolean().optional() });
export type PhoneEntry = z.infer<typeof PhoneEntry>;

export const PersonSocialProfile = z.looseObject({
  handle: strOrNum.optional(),
  connections: strOrNum.optional(),
  followers: strOrNum.optional(),
  stars: strOrNum.optional(),
});

export const CurrentCompany = z.looseObject({
  id: str.optional(),
  name: str.optional(),
  size: str.optional(),
  website: str.optional(),
  linkedin: str.optional(),
  industry: strList.optional(),
  main_phones: strList.optional(),
  other_phones: strList.optional(),
  mobile_phones: strList.optional(),
});

export const SecondaryPosition = z.looseObject({
  company_id: str.optional(),
  company_name: str.optional(),
  company_size: str.optional(),
  company_website: str.optional(),
  company_linkedin: str.optional(),
  company_industry: str.optional(),
  cleaned_position: str.optional(),
  time_in_current_role: str.optional(),
  seniority: str.optional(),
  department: str.optional(),
  month_joined: int.optional(),
  // The specification gives year_joined as a string here and as an integer on the person.
  year_joined: strOrNum.optional(),
});

export const Person = z.looseObject({
  id: str.optional(),
  name: str.optional(),
  first_name: str.optional(),
  last_name: str.optional(),
  middle_name: str.optional(),
  headline: str.optional(),
  description: str.optional(),
  position: str.optional(),
  current_company: CurrentCompany.optional(),
  time_in_current_role: str.optional(),
  month_joined: int.optional(),
  year_joined: int.optional(),
  emails: z
    .looseObject({
      personal: z.array(EmailEntry).optional(),
      work: z.array(EmailEntry).optional(),
    })
    .optional(),
  phones: z.array(PhoneEntry).optional(),
  linkedin: str.optional(),
  social_media: z
    .looseObject({
      linkedin: PersonSocialProfile.optional(),
      github: PersonSocialProfile.optional(),
      twitter: PersonSocialProfile.optional(),
      facebook: PersonSocialProfile.optional(),
      youtube: PersonSocialProfile.optional(),
      pintrest: PersonSocialProfile.optional(),
    })
    .optional(),
  location: strList.optional(),
  department: str.optional(),
  seniority: str.optional(),
  gender: str.optional(),
  skills: strList.optional(),
  education: z
    .looseObject({
      field: str.optional(),
      degree: str.optional(),
      date_range: str.optional(),
      school_name: str.optional(),
    })
    .optional(),
  keywords: strList.optional(),
  secondary_position: z.array(SecondaryPosition).optional(),
});
export type Person = z.infer<typeof Person>;

// ---- People search ---------------------------------------------------------------------------

export const PersonSearchResult = z.looseObject({
  person_id: str.optional(),
  position: str.optional(),
  company_name: str.optional(),
  linkedin: str.optional(),
  has_email: z.boolean().optional(),
  has_personal_email: z.boolean().optional(),
  has_phone: z.boolean().optional(),
  has_dnd_phone: z.boolean().optional(),
  has_mobile: z.boolean().optional(),
});
export type PersonSearchResult = z.infer<typeof PersonSearchResult>;
export const PersonSearchResponse = z.array(PersonSearchResult);

/** Body of POST /people/search. The specification types every field as a string. */
export const PeopleSearchRequest = z.object({
  companyId: z.string().optional(),
  selectedCountry: Market.optional(),
  position: z.string().optional(),
  seniority: z.string().optional(),
  department: z.string().optional(),
  from: z.string().optional(),
  size: z.string().optional(),
  filters: z.record(z.string(), z.array(z.string())).optional(),
  country: z.array(Market).optional(),
});
export type PeopleSearchRequest = z.infer<typeof PeopleSearchRequest>;

// ---- Filter options --------------------------------------------------------------------------

export const MarketEntry = z.looseObject({ code: str, label: str });
export type MarketEntry = z.infer<typeof MarketEntry>;

export const FILTER_KINDS = ['list', 'list_or_range', 'industry', 'location', 'hq_location', 'text'] as const;
export const FILTER_ENDPOINTS = ['company_search', 'people_search', 'people_in_company_search'] as const;

export const FilterValue = z.looseObject({ code: str, label: str });
export const FilterPage = z.looseObject({ offset: int, size: int, total: int });

export const FilterOption = z.looseObject({
  identifier: str,
  label: str,
  group: z.enum(['company', 'people']),
  kind: z.enum(FILTER_KINDS),
  counts: z.enum(['per_market', 'worldwide']).optional(),
  endpoints: z.array(z.enum(FILTER_ENDPOINTS)),
  accepts: str,
  values: z.array(FilterValue).optional(),
  page: FilterPage.optional(),
});
export type FilterOption = z.infer<typeof FilterOption>;

export const FilterOptionsResponse = z.looseObject({
  markets: z.array(MarketEntry),
  filters: z.array(FilterOption),
});
export type FilterOptionsResponse = z.infer<typeof FilterOptionsResponse>;

// ---- Errors ----------------------------------------------------------------------------------

/** The generic error body: `{ error: <status>, message }`. */
export const GenericErrorBody = z.looseObject({ error: int, message: str });
export type GenericErrorBody = z.infer<typeof GenericErrorBody>;

/** The filter-options (and search filter) error body: `{ error: { code, reason } }`. */
export const FilterErrorBody = z.looseObject({ error: z.looseObject({ code: str, reason: str }) });
export type FilterErrorBody = z.infer<typeof FilterErrorBody>;
