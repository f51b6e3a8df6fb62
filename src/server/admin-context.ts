/**
 * What the admin API needs from the running service, and nothing more: narrow views of the store (dead
 * letters, record views, the counts behind the charts), the parts it drives, and the operations it asks
 * for. The composition root's parts satisfy it; the admin routes import neither.
 */
import type { Config } from '../config.js';
import type { CrmConnector } from '../core/connector.js';
import type { Priority } from '../core/limiter.js';
import type { Discovery } from '../discovery/discovery.js';
import type { ScheduledDiscoveryResult } from '../discovery/schedule.js';
import type { PartnerLookups } from '../enrich/partner-lookups.js';
import type { EnqueuePort, StatePort } from '../enrich/ports.js';
import type { PartnerClient } from '../partner/client.js';
import type { Backfills } from '../enrich/listing/backfills.js';
import type { FileJobs } from '../enrich/listing/file/file-jobs.js';
import type { DataHealth } from '../enrich/listing/health.js';
import type { MappingRegistry } from '../mapping/registry.js';
import type { Store } from '../store/store.js';
import type { Metrics } from './metrics.js';

export interface AdminContext {
  readonly config: Pick<
    Config,
    'PARTNER_DAILY_LOOKUP_BUDGET' | 'PARTNER_DAILY_LOOKUP_HARD_CAP' | 'JOB_CHANGE_MIN_AGE_DAYS'
  >;
  readonly store: AdminStore;
  readonly ports: { readonly state: StatePort; readonly enqueue: EnqueuePort };
  readonly connectors: readonly CrmConnector[];
  readonly mappings: MappingRegistry;
  readonly partner: Pick<PartnerClient, 'filterOptions' | 'searchPeople'>;
  readonly lookups: PartnerLookups;
  readonly enricher: { wake(connection: string, objectType: string, priority: Priority): void };
  readonly metrics: Metrics;
  /** The admin page's chart counts: flushed before the charts are read, so this instance's latest are in. */
  readonly stats: { flush(): Promise<void> };
  readonly backfills: Backfills;
  readonly files: FileJobs;
  readonly health: Pick<DataHealth, 'start' | 'report' | 'progress'>;
  readonly discovery: Discovery;
  enrichNow(connection: string, objectType: string, recordId: string): Promise<{ queued: boolean }>;
  refreshNow(): Promise<{ refresh: number; catchup: number }>;
  discoverScheduledNow(): Promise<ScheduledDiscoveryResult>;
}

/** The store as the admin API sees it: the reads behind its pages and the few changes it makes. */
export interface AdminStore {
  /** Dead letters (list, replay), queue depths, and the jobs of one record. */
  readonly queue: Pick<Store['queue'], 'deadLetters' | 'replay' | 'counts' | 'lookup' | 'retrying'>;
  /** One record's state and audit history. */
  readonly recordView: Store['recordView'];
  readonly state: Pick<Store['state'], 'countByStatus'>;
  readonly counters: Pick<Store['counters'], 'get' | 'range'>;
  readonly series: Pick<Store['series'], 'read'>;
  readonly coverage: Pick<Store['coverage'], 'of'>;
  readonly companies: Pick<Store['companies'], 'counts' | 'duplicates' | 'nearMatches'>;
  readonly discovery: Pick<Store['discovery'], 'persona' | 'personas' | 'savePersona' | 'deletePersona'>;
  readonly jobChanges: Pick<Store['jobChanges'], 'list' | 'weekly'>;
  readonly cache: Pick<Store['cache'], 'expire'>;
  readonly mappings: Pick<Store['mappings'], 'get' | 'list'>;
}
