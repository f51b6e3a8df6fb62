/** How a lane is set up: what it enriches, the ports it settles through, and how much it holds. */
import type { CrmConnector } from '../../core/connector.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import type { ObservedLookup } from '../job-changes/observer.js';
import type { LinkContext } from './link-step.js';
import type { PartnerLookups } from '../partner-lookups.js';
import type { PeopleFirst } from './people-first.js';
import type {
  AuditPort,
  CreatedRecordsPort,
  ErasurePort,
  JobQueuePort,
  PendingWritesPort,
  StatePort,
} from '../ports.js';

export interface LaneOptions {
  connector: CrmConnector;
  objectType: string;
  /** Read on every batch, so a newly activated mapping version applies to the next batch. */
  mapping: () => CompiledMapping;
  queue: JobQueuePort;
  state: StatePort;
  audit: AuditPort;
  erasure: ErasurePort;
  /** Records the service created: their creation events are its own doings, never enriched again. */
  created?: Pick<CreatedRecordsPort, 'has' | 'underWay'>;
  /** Where the identity values of a write are kept until it is settled (the intake tells their echoes). */
  writing?: Pick<PendingWritesPort, 'add'>;
  lookups: PartnerLookups;
  refreshAfterDays: number;
  /**
   * For person mappings with a \`company\` entry, on connectors that link records with companies: finds
   * or creates each person's employer (once per domain, across instances) so the record is linked to it.
   */
  employers?: LinkContext['employers'];
  /**
   * The connection's people-first gate: the lane says when a person's record comes and goes, and its
   * company links wait for a lull in them.
   */
  people?: PeopleFirst;
  /** Free-mail domains, which never name an employer. */
  freeMail?: { has(domain: string): boolean };
  /**
   * Job changes (src/enrich/job-changes): told of every record's partner lookup, it compares what the
   * lookup shows with the record's known role and records a move. Its one call in the record path.
   */
  jobChanges?: { observe(lookup: ObservedLookup): Promise<unknown> };
  /**
   * The lane claims the next batch once no more than this many records are in flight, so every read
   * is a full batch while the queue has work, and lookups never run dry (default: half a batch).
   */
  lowWater?: number;
  /**
   * The most records the lane holds at once (default: two batches), plus one batch of records whose
   * writes are waiting to go. A backlog waits in Postgres, not in memory: the lane claims only what
   * it can start soon.
   */
  maxInFlight?: number;
  /**
   * Room above maxInFlight for work a person waits for (default: a tenth of a batch, at least 5):
   * a full lane still claims a few jobs at once when one is interactive, highest priority first.
   */
  interactiveRoom?: number;
  /** How often the lane tells the queue it still holds its jobs (default 5 s). */
  heartbeatMs?: number;
  pollMs?: number;
  maxWriteWaitMs?: number;
}

export interface LaneStopOptions {
  /**
   * How long work already under way may take to finish (default 10 s). Jobs not yet started are
   * put back at once; what is still unfinished at the deadline is put back too. Neither spends an attempt.
   */
  deadlineMs?: number;
}
