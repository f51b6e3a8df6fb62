/**
 * What the running service is made of: every part, built once by the composition root
 * (src/app/compose.ts) and handed to `Service`, which only starts and stops them.
 */
import type { Config } from '../config.js';
import type { CrmConnector } from '../core/connector.js';
import type { EntryPointRegistry } from '../core/entry-point.js';
import type { Discovery } from '../discovery/discovery.js';
import type { ScheduledDiscoveryResult } from '../discovery/schedule.js';
import type { Backfills } from '../enrich/listing/backfills.js';
import type { FileJobs } from '../enrich/listing/file/file-jobs.js';
import type { DataHealth } from '../enrich/listing/health.js';
import type { Enricher } from '../enrich/enricher.js';
import type { Intake } from '../enrich/intake/intake.js';
import type { FeedReader } from '../enrich/intake/feed-reader.js';
import type { ScheduledSweepResult } from '../enrich/job-changes/scheduled-sweep.js';
import type { PartnerLookups } from '../enrich/partner-lookups.js';
import type { StorePorts } from '../enrich/ports.js';
import type { SharedRateLimiter } from '../limits/create-rate-limiter.js';
import type { MappingRegistry } from '../mapping/registry.js';
import type { PartnerClient } from '../partner/client.js';
import type { Metrics } from '../server/metrics.js';
import type { WorkflowCallbackSender } from '../enrich/on-demand/workflow-callback-sender.js';
import type { StatsRecorder } from '../store/stats-recorder.js';
import type { Store } from '../store/store.js';

export interface Parts {
  readonly config: Config;
  readonly store: Store;
  readonly ports: StorePorts;
  readonly limiter: SharedRateLimiter;
  readonly partner: PartnerClient;
  readonly lookups: PartnerLookups;
  readonly connectors: CrmConnector[];
  readonly mappings: MappingRegistry;
  readonly enricher: Enricher;
  /** What incoming events become: the one way into the queue for webhooks. */
  readonly intake: Intake;
  /** Readers of the connections' event feeds (HubSpot's webhooks journal) into the intake. */
  readonly feeds: FeedReader[];
  readonly backfills: Backfills;
  /** Enrichment of uploaded CSV files, each a job with its result file under the data directory. */
  readonly files: FileJobs;
  /** Data-health scans of whole CRM objects. */
  readonly health: DataHealth;
  readonly discovery: Discovery;
  readonly metrics: Metrics;
  /** Counts for the admin page's charts, written to the store every few seconds. */
  readonly stats: StatsRecorder;
  /** Completes the CRM workflow steps that waited for their record's enrichment. */
  readonly callbacks: WorkflowCallbackSender;
  /** What the CRMs call from inside themselves (workflow and flow actions, the record card). */
  readonly entryPoints: EntryPointRegistry;
  /** Enqueues one record as work a person is waiting for (admin "enrich now"). */
  enrichNow(connection: string, objectType: string, recordId: string): Promise<{ queued: boolean }>;
  /** Enqueues stale records and records the CRM changed since the last sweep (the refresh schedule). */
  refreshNow(): Promise<{ refresh: number; catchup: number }>;
  /** Visits the companies flagged with a persona and adds the people who newly fit it (the discovery schedule). */
  discoverScheduledNow(): Promise<ScheduledDiscoveryResult>;
  /** Drops what has outlived its use: expired cache entries, old event keys, counters and cron claims. */
  housekeeping(): Promise<Record<string, number>>;
  /** Sweeps the segments of the job-change actions file's `sweep` section (the JOB_CHANGE_CRON schedule). */
  sweepJobChangesNow(now: Date): Promise<ScheduledSweepResult[]>;
}
