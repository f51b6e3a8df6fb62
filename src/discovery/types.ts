/** The words of discovery: what a caller asks, what a preview and a run give back, and what discovery is built from. */
import type { Priority } from '../core/limiter.js';
import type { CrmConnector } from '../core/connector.js';
import type { PersonSearchResult } from '../partner/schemas.js';
import type { PartnerLookups } from '../enrich/partner-lookups.js';
import type { CounterPort, CreatedRecordsPort, LookupCachePort, StatePort } from '../enrich/ports.js';
import type { DailyReservations } from '../store/daily-reservations.js';
import type { DiscoveryStore } from '../store/discovery.js';
import type { PersonaFilters } from './persona-filters.js';
import type { MappingSource } from './target.js';

export interface DiscoveryRequest {
  crm: string;
  companyId: string;
  /** Persona filters as given (checked against the catalogue), or a saved persona's name. */
  filters?: unknown;
  persona?: string;
  limit?: number;
  /** Leave out people whose phone is on a do-not-disturb register (off unless set). */
  skipDoNotDisturb?: boolean;
}

export type CandidateAction = 'create' | 'link' | 'skip';

export interface Candidate {
  personId: string;
  position: string | null;
  /** The persona's seniority and department the search that found this person asked for. */
  seniority: string | null;
  department: string | null;
  profile: string | null;
  hasEmail: boolean;
  hasPhone: boolean;
  hasMobile: boolean;
  hasDndPhone: boolean;
  action: CandidateAction;
  /**
   * Skip reasons: already_discovered, already_contact, linked_elsewhere,
   * no_email, do_not_disturb, over_daily_limit (those over the run's limit are counted in beyondLimit).
   */
  code: string;
  reason: string;
  /** The CRM record, for link and skip actions that found one. */
  recordId: string | null;
  /** Whether acting on this person spends a credit (a lookup not in the cache). */
  credit: boolean;
}

export interface DiscoveryPreview {
  crm: string;
  company: { id: string; name: string | null; partnerId: string; market: string };
  persona: string | null;
  filters: PersonaFilters;
  description: string;
  limit: number;
  /** People found who fit the persona but are past the run's limit: counted here, not listed in candidates. */
  beyondLimit: number;
  dailyRemaining: number;
  candidates: Candidate[];
  credits: number;
  counts: Record<CandidateAction, number>;
}

export interface DiscoveryOutcome {
  personId: string;
  /** The person's name, once their profile was looked up (people created); absent otherwise. */
  name?: string | null;
  action: 'created' | 'linked' | 'skipped';
  code: string;
  reason: string;
  recordId: string | null;
}

export interface DiscoveryRunResult {
  crm: string;
  company: DiscoveryPreview['company'];
  created: number;
  linked: number;
  skipped: number;
  credits: number;
  /** Set when the run stopped at a limit before acting on every candidate. */
  stopped: { reason: 'run_limit' | 'daily_limit' | 'budget' | 'partner_error'; message: string } | null;
  people: DiscoveryOutcome[];
}

export interface DiscoveryProgress {
  total: number;
  done: number;
  created: number;
  linked: number;
  skipped: number;
}

export interface DiscoveryPartner {
  searchPeople(request: Record<string, string>, options: { priority?: Priority }): Promise<PersonSearchResult[]>;
  filterOptions(
    query: { identifiers?: string[] },
    options: { priority?: Priority },
  ): Promise<{ filters: { identifier: string; values?: { code: string; label: string }[] }[] }>;
}

export interface DiscoveryOptions {
  connectors: readonly CrmConnector[];
  mappings: MappingSource;
  partner: DiscoveryPartner;
  lookups: PartnerLookups;
  cache: LookupCachePort;
  counters: CounterPort;
  /** A run's records (against `dailyMax`) and credits (against `dailyBudget`) are reserved here before it acts. */
  reservations: Pick<DailyReservations, 'reserve'>;
  store: DiscoveryStore;
  state: StatePort;
  /** Where the ids of created people are kept, so their creation events are known as the service's own. */
  created: Pick<CreatedRecordsPort, 'begin' | 'add' | 'abandon'>;
  /** Largest `limit` one run may ask for; the default limit. */
  runMax: number;
  defaultLimit: number;
  /** Records discovery may create per UTC day, across instances. */
  dailyMax: number;
  /** Bulk work stops at this many partner lookups a day (PARTNER_DAILY_LOOKUP_BUDGET); so does discovery. */
  dailyBudget: number;
  refreshAfterDays: number;
  /** This instance, for claims. */
  holder: string;
}
