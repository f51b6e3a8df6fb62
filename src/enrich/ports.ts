/**
 * What the pipeline needs from the store, as narrow interfaces. The service binds them to the
 * Postgres store; nothing in src/enrich/ writes SQL.
 */
import type { AuditEntry } from '../store/audit-log.js';
import type { RecordState } from '../store/enrichment-state.js';
import type { LookupSubject } from '../store/lookup-cache.js';
import type { EnrichJob } from './jobs.js';

export interface JobFailure {
  code: string;
  message: string;
  /** false sends the job straight to the dead letter: no retry can succeed. */
  retryable: boolean;
}

export interface JobQueuePort {
  /** Up to `max` waiting jobs of one queue, highest priority first; they stay claimed until settled. */
  claim(queue: string, max: number): Promise<EnrichJob[]>;
  complete(queue: string, jobs: EnrichJob[]): Promise<void>;
  fail(queue: string, job: EnrichJob, failure: JobFailure): Promise<void>;
  /** Puts claimed jobs back without spending an attempt (budget pause, CRM rate limit), to run after `delayMs`. */
  release(queue: string, jobs: EnrichJob[], delayMs: number): Promise<void>;
  /** Says the holder is alive and still on these jobs, so no other worker is handed them. */
  heartbeat(queue: string, jobs: EnrichJob[]): Promise<void>;
}

/**
 * A record's state as the pipeline sees it: the store's row (src/store/enrichment-state.ts) without its
 * update time, and with only the values we wrote (`lastWritten` without the nulls the store's may hold).
 */
export type PipelineState = Omit<RecordState, 'updatedAt' | 'lastWritten'> & {
  lastWritten: Record<string, string>;
};

export interface StatePort {
  getMany(connection: string, objectType: string, recordIds: string[]): Promise<Map<string, PipelineState>>;
  upsertMany(rows: PipelineState[]): Promise<void>;
  /**
   * Stores record states and the audit rows that explain them in
   * one transaction, so no reader sees one without the other.
   */
  store(rows: PipelineState[], audit: AuditEntry[]): Promise<void>;
}

/** An audit log entry, as the store defines it: the pipeline writes them, it never reads them back. */
export type { AuditEntry, AuditOutcome } from '../store/audit-log.js';

export interface AuditPort {
  append(entries: AuditEntry[]): Promise<void>;
}

export interface CacheKey {
  kind: LookupSubject;
  by: string;
  value: string;
  market: string;
}

export type CachedLookup = { found: true; data: Record<string, unknown> } | { found: false };

export interface LookupCachePort {
  get(key: CacheKey): Promise<CachedLookup | undefined>;
  put(key: CacheKey, entry: CachedLookup): Promise<void>;
}

export interface CounterPort {
  /** Adds to today's counter (UTC day) and returns the new value. */
  increment(name: string, by?: number): Promise<number>;
  /** Adds one while today's counter is below `limit`; the new value, or undefined at the limit. */
  reserve(name: string, limit: number): Promise<number | undefined>;
  get(name: string): Promise<number>;
}

export interface ErasurePort {
  eraseRecord(connection: string, objectType: string, recordId: string): Promise<Record<string, number>>;
  eraseEmail(email: string): Promise<Record<string, number>>;
  mergeState(connection: string, objectType: string, survivorId: string, mergedIds: string[]): Promise<void>;
}

export interface NewJob {
  queue: string;
  dedupKey: string;
  data: import('./jobs.js').EnrichJobData;
  priority: import('../core/limiter.js').Priority;
}

export interface EnqueuePort {
  /** Stores jobs in one round trip; a dedup key seen before adds nothing. */
  enqueue(jobs: NewJob[]): Promise<{ inserted: number; duplicates: number; ids?: string[] }>;
}

export interface StaleCursor {
  nextRefreshAt: Date;
  recordId: string;
}

export interface StalePort {
  /** Records of one object due for refresh, oldest due first, after a cursor (for paging). */
  pickStale(
    connection: string,
    objectType: string,
    limit: number,
    now: Date,
    after?: StaleCursor,
  ): Promise<{ records: StaleCursor[]; next?: StaleCursor }>;
  /** Which of these records we hold state for. */
  known(connection: string, objectType: string, recordIds: string[]): Promise<Set<string>>;
}

export interface KeyValuePort {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
}

/** Identity values being written to CRM records, until their outcome is settled (then cleared with it). */
export interface PendingWritesPort {
  add(
    connection: string,
    objectType: string,
    writes: { recordId: string; values: Record<string, string> }[],
  ): Promise<void>;
  get(connection: string, objectType: string, recordIds: string[]): Promise<Map<string, Record<string, string>>>;
}

/**
 * Records crm-enrich created in a CRM (an employer's company, a discovered person), shared by every
 * instance: its own creations. A creation is marked under way before its call goes out, and the mark
 * gives way to the ids in one step, so a creation event finds one or the other whenever it comes.
 */
export interface CreatedRecordsPort {
  /** Marks a creation as under way, before its call goes out; returns the mark. */
  begin(connection: string, objectType: string): Promise<string>;
  /** Keeps the ids the CRM gave and lifts the creation's mark, in one step. */
  add(connection: string, objectType: string, recordIds: string[], mark?: string): Promise<void>;
  /** Lifts a mark whose creation failed. */
  abandon(mark: string): Promise<void>;
  /** Which of these records crm-enrich created. */
  has(connection: string, objectType: string, recordIds: string[]): Promise<Set<string>>;
  /** Whether a creation of this object type was marked under way less than `withinMs` ago, on any instance. */
  underWay(connection: string, objectType: string, withinMs: number): Promise<boolean>;
}

/**
 * Every port the pipeline and its jobs use, as the composition root binds them to the store
 * (src/app/store-ports.ts).
 */
export interface StorePorts {
  queue: JobQueuePort;
  enqueue: EnqueuePort;
  state: StatePort;
  audit: AuditPort;
  cache: LookupCachePort;
  counters: CounterPort;
  erasure: ErasurePort;
  stale: StalePort;
  kv: KeyValuePort;
  created: CreatedRecordsPort;
  writing: PendingWritesPort;
}
