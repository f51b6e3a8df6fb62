/**
 * A lane enriches one object type of one CRM connection. It claims jobs in batches, reads their
 * records with one CRM call per batch, looks each record up (interactive work first, through the
 * shared limiter), plans the writes and sends them through a write buffer, so N records cost about
 * N/batchSize reads and N/batchSize writes. A job is settled only after its record's outcome is
 * stored, so a crash leaves it to be claimed again, and the second run finds nothing left to write.
 */
import { EventEmitter } from 'node:events';
import { CrmError, type CrmConnector, type CrmRecord } from '../core/connector.js';
import type { Priority } from '../core/limiter.js';
import type { CompiledMapping } from '../mapping/compile.js';
import { logger } from '../logger.js';
import { type EnrichJob, queueName } from './jobs.js';
import { BudgetExhaustedError, type PartnerLookups } from './partner-lookups.js';
import type { AuditPort, ErasurePort, JobFailure, JobQueuePort, RecordState, StatePort } from './ports.js';
import { type RecordPlan, planRecord } from './record-plan.js';
import { auditFor, stateFor } from './settle.js';
import { WriteBuffer, type BufferedWrite } from './write-buffer.js';
import { isEcho } from './echo.js';
import type { LaneEvents } from './lane-events.js';
import { housekeep } from './housekeeping.js';
import { unchangedRefreshes } from './refresh-shortcut.js';
import { failureOf } from './job-failure.js';
import { freshSnapshot } from './snapshot.js';

const log = logger('enrich.lane');

export interface LaneOptions {
  connector: CrmConnector;
  objectType: string;
  /** Read on every batch, so a newly activated mapping version applies to the next batch. */
  mapping: () => CompiledMapping;
  queue: JobQueuePort;
  state: StatePort;
  audit: AuditPort;
  erasure: ErasurePort;
  lookups: PartnerLookups;
  refreshAfterDays: number;
  /** For person mappings that name the employer's domain: where to send it, so the company is enriched once per domain. */
  companies?: { note(domain: string): void };
  /**
   * The lane claims the next batch once no more than this many records are in flight, so every read
   * is a full batch while the queue has work, and lookups never run dry (default: half a batch).
   */
  lowWater?: number;
  pollMs?: number;
  maxWriteWaitMs?: number;
}

interface Work {
  jobs: EnrichJob[];
  record: CrmRecord;
  state: RecordState | undefined;
  priority: Priority;
  planned?: RecordPlan;
}

export class Lane extends EventEmitter<LaneEvents> {
  readonly queue: string;
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private interactiveWaiting = false;
  private inFlight = 0;
  private pendingLookups = 0;
  private readonly inFlightRecords = new Set<string>();
  private readonly writing = new Map<string, Record<string, string>>();
  private readonly batches = new Set<Promise<void>>();
  private readonly buffer: WriteBuffer<Work>;
  private readonly lowWater: number;

  constructor(private readonly options: LaneOptions) {
    super();
    this.queue = queueName(options.connector.connection, options.objectType);
    this.lowWater = options.lowWater ?? Math.floor(options.connector.batchSize / 2);
    this.buffer = new WriteBuffer<Work>({
      batchSize: options.connector.batchSize,
      maxWaitMs: options.maxWriteWaitMs ?? 2_500,
      pending: () => this.pendingLookups,
      flush: (writes) => this.flush(writes),
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.claimLoop();
  }

  /** New work was stored; interactive work is claimed even when bulk work fills the lane. */
  wake(priority: Priority = 'bulk'): void {
    if (priority === 'interactive') this.interactiveWaiting = true;
    this.wakeUp?.();
  }

  /** Stops claiming, finishes the work in hand and sends its writes. */
  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    await this.loop;
    while (this.batches.size) await Promise.allSettled([...this.batches]);
    await this.buffer.drain();
  }

  private async claimLoop(): Promise<void> {
    const pollMs = this.options.pollMs ?? 1_000;
    while (this.running) {
      try {
        // Work a person waits for is claimed at once (with bulk work filling the batch); bulk work waits
        // until the records in hand run low, so it is read in full batches.
        if (this.inFlight > this.lowWater && !this.interactiveWaiting) {
          await this.sleep(pollMs);
          continue;
        }
        if (this.interactiveWaiting) {
          // A burst of new records arrives as several webhook deliveries within moments: one read serves them all.
          await new Promise((r) => setTimeout(r, INTERACTIVE_LINGER_MS));
        }
        this.interactiveWaiting = false;
        const jobs = await this.options.queue.claim(this.queue, this.options.connector.batchSize);
        if (jobs.length === 0) {
          await this.sleep(pollMs);
          continue;
        }
        const batch = this.processBatch(jobs).catch((error: unknown) => {
          this.emit('error', error as Error);
        });
        const tracked = batch.finally(() => this.batches.delete(tracked));
        this.batches.add(tracked);
      } catch (error) {
        this.emit('error', error as Error);
        await this.sleep(pollMs);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = undefined;
        done();
      };
    });
  }

  private async processBatch(jobs: EnrichJob[]): Promise<void> {
    const { queue } = this.options;
    const housekeeping = jobs.filter((j) => HOUSEKEEPING.has(j.data.reason));
    if (housekeeping.length) await this.housekeep(housekeeping);

    // Jobs for a record already in flight wait their turn: two runs side by side would write twice.
    const byRecord = new Map<string, EnrichJob[]>();
    const later: EnrichJob[] = [];
    for (const job of jobs) {
      if (HOUSEKEEPING.has(job.data.reason)) continue;
      if (this.inFlightRecords.has(job.data.recordId)) later.push(job);
      else byRecord.set(job.data.recordId, [...(byRecord.get(job.data.recordId) ?? []), job]);
    }
    if (later.length) await queue.release(this.queue, later, 1_000);
    if (byRecord.size === 0) return;

    const ids = [...byRecord.keys()];
    for (const id of ids) this.inFlightRecords.add(id);
    this.inFlight += ids.length;
    const mapping = this.options.mapping();
    try {
      let states: Map<string, RecordState>;
      try {
        states = await this.options.state.getMany(this.options.connector.connection, this.options.objectType, ids);
      } catch (error) {
        await this.failJobs([...byRecord.values()].flat(), error);
        this.finish(ids);
        return;
      }
      const echoes = ids.filter((id) => isEcho(byRecord.get(id)!, states.get(id), mapping));
      if (echoes.length) {
        // The CRM tells us about our own write: nothing a person changed, so nothing to read or look up.
        await this.options.queue.complete(this.queue, echoes.flatMap((id) => byRecord.get(id)!));
        this.emit('job', { outcome: 'echo', count: echoes.length });
        this.finish(echoes);
        for (const id of echoes) byRecord.delete(id);
      }
      const unchanged = await unchangedRefreshes(byRecord, states, mapping, this.options.lookups);
      if (unchanged.length) {
        await this.settleUnchanged(unchanged.map((id) => ({ id, jobs: byRecord.get(id)!, state: states.get(id)! })));
        this.finish(unchanged);
      }
      const toRead = [...byRecord.keys()].filter((id) => !unchanged.includes(id));
      if (toRead.length === 0) return;
      const priority: Priority = toRead.some((id) => byRecord.get(id)!.some((j) => j.priority === 'interactive')) ? 'interactive' : 'bulk';
      // Records listed moments ago (backfill, sweep) are planned on the listing's values: no second read.
      const snapshots = new Map(toRead.map((id) => [id, freshSnapshot(byRecord.get(id)!, states.get(id), mapping)] as const).filter((e): e is [string, CrmRecord] => !!e[1]));
      const reads = toRead.filter((id) => !snapshots.has(id));
      log.debug({ queue: this.queue, claimed: jobs.length, reading: reads.length, fromSnapshot: snapshots.size, inFlight: this.inFlight }, 'reading a batch');
      let records: CrmRecord[] = [...snapshots.values()];
      try {
        if (reads.length) records.push(...(await this.options.connector.readRecords(this.options.objectType, reads, [...mapping.propertiesToRead], { priority })));
      } catch (error) {
        await this.failJobs(reads.flatMap((id) => byRecord.get(id)!), error);
        this.finish(reads);
        records = [...snapshots.values()];
      }
      const found = new Set(records.map((r) => r.id));
      const gone = reads.filter((id) => !found.has(id) && this.inFlightRecords.has(id));
      if (gone.length) {
        const result: RecordPlan = { kind: 'no_key', reason: 'the record no longer exists in the CRM' };
        await this.settleWithoutWrite(gone.map((id) => ({ id, jobs: byRecord.get(id)!, result })));
        this.emit('job', { outcome: 'skipped', count: gone.length });
        this.finish(gone);
      }
      await Promise.all(
        records.map((record) => {
          const recordJobs = byRecord.get(record.id)!;
          const recordPriority: Priority = recordJobs.some((j) => j.priority === 'interactive') ? 'interactive' : 'bulk';
          return this.processRecord({ jobs: recordJobs, record, state: states.get(record.id), priority: recordPriority }, mapping);
        }),
      );
    } finally {
      this.buffer.consider();
    }
  }

  private async settleUnchanged(items: { id: string; jobs: EnrichJob[]; state: RecordState }[]): Promise<void> {
    const now = new Date();
    const next = new Date(now.getTime() + this.options.refreshAfterDays * 86_400_000);
    await this.options.state.upsertMany(items.map((i) => ({ ...i.state, lastEnrichedAt: now, nextRefreshAt: next, lastError: null })));
    await this.options.audit.append(
      items.map((i) => ({
        connection: i.state.connection,
        objectType: i.state.objectType,
        recordId: i.id,
        property: null,
        oldValue: null,
        newValue: null,
        rule: null,
        outcome: 'unchanged',
        reason: 'the partner data and the mapping are what was applied last time',
        jobId: i.jobs[0]!.id,
      })),
    );
    await this.options.queue.complete(this.queue, items.flatMap((i) => i.jobs));
    this.emit('job', { outcome: 'unchanged', count: items.reduce((n, i) => n + i.jobs.length, 0) });
  }

  private async processRecord(work: Work, mapping: CompiledMapping): Promise<void> {
    this.pendingLookups++;
    let result: RecordPlan;
    try {
      result = await planRecord(work.record, mapping, this.options.lookups, work.state, work.priority, new Date());
    } catch (error) {
      this.pendingLookups--;
      await this.failJobs(work.jobs, error);
      this.finish([work.record.id]);
      return;
    }
    this.pendingLookups--;
    work.planned = result;
    if (result.kind === 'planned' && this.options.companies) {
      const company = mapping.companyKey(result.hit.data);
      if (company) this.options.companies.note(company.value);
    }
    try {
      if (result.kind === 'planned' && Object.keys(result.plan.writes).length > 0) {
        this.buffer.add(work.record.id, result.plan.writes, work);
        return;
      }
      await this.settleWithoutWrite([{ id: work.record.id, jobs: work.jobs, ...(work.state ? { state: work.state } : {}), result }]);
      if (work.priority === 'interactive') {
        log.info({ queue: this.queue, recordId: work.record.id, outcome: result.kind === 'planned' ? 'unchanged' : result.kind }, result.kind === 'no_match' ? 'no partner match; nothing written' : 'nothing to write');
      }
      this.emit('job', { outcome: result.kind === 'planned' ? 'unchanged' : result.kind === 'no_match' ? 'no_match' : 'skipped', count: work.jobs.length });
      this.finish([work.record.id]);
    } catch (error) {
      await this.failJobs(work.jobs, error);
      this.finish([work.record.id]);
    } finally {
      this.buffer.consider();
    }
  }

  private async flush(writes: BufferedWrite<Work>[]): Promise<void> {
    const priority: Priority = writes.some((w) => w.item.priority === 'interactive') ? 'interactive' : 'bulk';
    for (const w of writes) this.writing.set(w.recordId, w.properties);
    try {
      const results = await this.options.connector.writeRecords(
        this.options.objectType,
        writes.map((w) => ({ id: w.recordId, properties: w.properties })),
        { priority },
      );
      const ok: BufferedWrite<Work>[] = [];
      for (const [i, write] of writes.entries()) {
        const result = results[i];
        if (result?.ok) ok.push(write);
        else {
          const failure: JobFailure = {
            code: result?.error?.code ?? 'write_failed',
            message: result?.error?.message ?? 'the CRM gave no result for this record',
            retryable: result?.error?.retryable ?? true,
          };
          await this.failJobs(write.item.jobs, failure);
        }
      }
      if (ok.length) {
        const now = new Date();
        const { connection } = this.options.connector;
        const { objectType, refreshAfterDays } = this.options;
        const states = ok.map((w) => stateFor(connection, objectType, w.item.record.id, w.item.state, w.item.planned!, w.properties, now, refreshAfterDays));
        const audit = ok.flatMap((w) => auditFor(connection, objectType, w.item.record.id, w.item.planned!, w.item.jobs[0]!.id));
        await this.options.state.upsertMany(states);
        await this.options.audit.append(audit);
        await this.options.queue.complete(this.queue, ok.flatMap((w) => w.item.jobs));
        this.emit('job', { outcome: 'enriched', count: ok.reduce((n, w) => n + w.item.jobs.length, 0) });
        for (const w of ok) {
          const entry = { queue: this.queue, recordId: w.recordId, reason: w.item.jobs[0]!.data.reason, written: Object.keys(w.properties) };
          if (w.item.priority === 'interactive') log.info(entry, 'enriched a record');
          else log.debug(entry, 'enriched a record');
        }
        this.emit('written', { receivedAt: ok.flatMap((w) => w.item.jobs.map((j) => j.data.receivedAt).filter((t): t is string => !!t)) });
      }
    } catch (error) {
      await this.failJobs(writes.flatMap((w) => w.item.jobs), error);
    } finally {
      for (const w of writes) this.writing.delete(w.recordId);
      this.finish(writes.map((w) => w.recordId));
    }
  }

  /** Stores the outcome of records that need no write (state, and audit rows saying why), then settles their jobs. */
  private async settleWithoutWrite(items: { id: string; jobs: EnrichJob[]; state?: RecordState; result: RecordPlan }[]): Promise<void> {
    const { connection } = this.options.connector;
    const { objectType, refreshAfterDays } = this.options;
    const now = new Date();
    await this.options.state.upsertMany(items.map((i) => stateFor(connection, objectType, i.id, i.state, i.result, {}, now, refreshAfterDays)));
    await this.options.audit.append(items.flatMap((i) => auditFor(connection, objectType, i.id, i.result, i.jobs[0]!.id)));
    await this.options.queue.complete(this.queue, items.flatMap((i) => i.jobs));
  }

  /** Privacy deletions, merges and deletions touch only our own state: no CRM read, no lookup. */
  private async housekeep(jobs: EnrichJob[]): Promise<void> {
    for (const job of jobs) {
      try {
        const outcome = await housekeep(job, this.options.connector.connection, this.options.erasure);
        await this.options.queue.complete(this.queue, [job]);
        this.emit('job', { outcome, count: 1 });
      } catch (error) {
        await this.failJobs([job], error);
      }
    }
  }

  private async failJobs(jobs: EnrichJob[], error: unknown): Promise<void> {
    if (jobs.length === 0) return;
    try {
      if (error instanceof BudgetExhaustedError) {
        await this.options.queue.release(this.queue, jobs, 60_000);
        this.emit('job', { outcome: 'released', count: jobs.length });
        return;
      }
      if (error instanceof CrmError && error.code === 'rate_limited' && error.retryAfterMs !== undefined) {
        await this.options.queue.release(this.queue, jobs, error.retryAfterMs);
        this.emit('job', { outcome: 'released', count: jobs.length });
        return;
      }
      const failure = failureOf(error);
      for (const job of jobs) await this.options.queue.fail(this.queue, job, failure);
      this.emit('job', { outcome: failure.retryable ? 'retried' : 'failed', count: jobs.length });
      log.warn({ queue: this.queue, code: failure.code, jobs: jobs.length, retryable: failure.retryable }, failure.message);
    } catch (storeError) {
      // The jobs stay claimed; the queue hands them out again when their claim expires.
      this.emit('error', storeError as Error);
    }
  }

  private finish(ids: string[]): void {
    const before = this.inFlight;
    for (const id of ids) {
      if (this.inFlightRecords.delete(id)) this.inFlight--;
    }
    if (before > this.lowWater && this.inFlight <= this.lowWater) this.wakeUp?.();
  }

  /** Values being written right now, by record: a change event carrying them is our own echo. */
  pendingWrite(recordId: string): Record<string, string> | undefined {
    return this.writing.get(recordId);
  }
}

const INTERACTIVE_LINGER_MS = 40;
/** Jobs that touch only our own records, with no CRM read and no lookup. */
const HOUSEKEEPING: ReadonlySet<string> = new Set(['privacy_deletion', 'merged', 'deleted']);
