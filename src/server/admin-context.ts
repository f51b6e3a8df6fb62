/**
 * What the admin API and the MCP server need from the running service, and nothing more: they depend on this
 * interface, the service satisfies it, and neither imports the other.
 */
import type { Config } from '../config.js';
import type { CrmConnector } from '../core/connector.js';
import type { Priority } from '../core/limiter.js';
import type { Discovery } from '../discovery/discovery.js';
import type { ScheduledDiscoveryResult } from '../discovery/schedule.js';
import type { PartnerLookups } from '../enrich/partner-lookups.js';
import type { EnqueuePort, StatePort } from '../enrich/ports.js';
import type { PartnerClient } from '../partner/client.js';
import type { Backfills } from '../enrich/backfills.js';
import type { MappingRegistry } from '../mapping/registry.js';
import type { Store } from '../store/store.js';
import type { Metrics } from './metrics.js';

export interface AdminContext {
  readonly config: Pick<
    Config,
    'PARTNER_DAILY_LOOKUP_BUDGET' | 'PARTNER_DAILY_LOOKUP_HARD_CAP' | 'JOB_CHANGE_MIN_AGE_DAYS'
  >;
  readonly store: Store;
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
  readonly discovery: Discovery;
  enrichNow(connection: string, objectType: string, recordId: string): Promise<{ queued: boolean }>;
  refreshNow(): Promise<{ refresh: number; catchup: number }>;
  discoverScheduledNow(): Promise<ScheduledDiscoveryResult>;
}
