/**
 * A lane enriches one object type of one CRM connection. Its claim loop (claim-loop.ts) takes jobs in
 * batches; the lane reads their records with one CRM call per batch, looks each record up (interactive
 * work first, through the shared limiter), plans the writes and sends them through a write buffer, so
 * N records cost about N/batchSize reads and N/batchSize writes; its settler (lane-settler.ts) stores
 * each outcome and then settles the jobs, so a crash leaves them to be claimed again, and the second
 * run finds nothing left to write.
 */
import { EventEmitter } from 'node:events';
import type { CrmRecord } from '../core/connector.js';
import type { Priority } from '../core/limiter.js';
import type { CompiledMapping } from '../mapping/compile.js';
import { logger } from '../logger.js';
import { ClaimLoop } from './claim-loop.js';
import { isEcho } from './echo.js';
import { HeldJobs } from './held-jobs.js';
import { housekeep } from './housekeeping.js';
import { type EnrichJob, queueName } from './jobs.js';
import type { LaneEvents } from './lane-events.js';
import { associate, planLink, type LinkContext } from './lane-links.js';
import type { LaneOptions, LaneStopOptions, Work } from './lane-options.js';
import { LaneSettler } from './lane-settler.js';
import type { JobFailure, RecordState } from './ports.js';
import { propertiesToRead } from './read-properties.js';
import { type RecordPlan, planRecord } from './record-plan.js';
import { unchangedRefreshes } from './refresh-shortcut.js';
import { freshSnapshot } from './snapshot.js';
import { WriteBuffer, type BufferedWrite } from './write-buffer.js';

export type { LaneOptions, LaneStopOptions } from './lane-options.js';

const log = logger('enrich.lane');

export class Lane extends EventEmitter<LaneEvents> {
  readonly queue: string;
  private inFlight = 0;
  private pendingLookups = 0;
  private pendingInteractive = 0;
  /** Records whose partner lookups are still running (not yet waiting for their employer or a write). */
  private planning = 0;
  private readonly inFlightRecords = new Set<string>();
  /** Records looked up whose writes wait in the buffer or are being sent. */
  private readonly awaitingWrite = new Set<string>();
  private readonly writing = new Map<string, Record<string, string>>();
  private readonly batches = new Set<Promise<void>>();
  private readonly buffer: WriteBuffer<Work>;
  private readonly lowWater: number;
  private readonly claims: ClaimLoop;
  private readonly settler: LaneSettler;
  private readonly links: LinkContext;
  /** Every job claimed and not yet settled: what the heartbeat vouches for. */
  private readonly held: HeldJobs;
  private stopping = false;

  constructor(private readonly options: LaneOptions) {
    super();
    this.queue = queueName(options.connector.connection, options.objectType);
    const { batchSize, connection } = options.connector;
    const maxInFlight = Math.max(1, options.maxInFlight ?? 2 * batchSize);
    this.lowWater = Math.min(options.lowWater ?? Math.floor(batchSize / 2), maxInFlight - 1);
    const interactiveRoom = options.interactiveRoom ?? Math.max(5, Math.floor(batchSize / 10));
    this.held = new HeldJobs(options.queue, this.queue, (error) => this.emit('error', error));
    this.settler = new LaneSettler({
      held: this.held,
      state: options.state,
      where: { connection, objectType: options.objectType, refreshAfterDays: options.refreshAfterDays },
      queue: this.queue,
      stopping: () => this.stopping,
      report: (outcome, count) => this.emit('job', { outcome, count }),
      onError: (error) => this.emit('error', error),
    });
    this.claims = new ClaimLoop({
      claim: (limit) => options.queue.claim(this.queue, limit),
      take: (jobs) => this.take(jobs),
      inFlight: () => this.claimWeight(),
      limits: { lowWater: this.lowWater, maxInFlight, interactiveRoom, batchSize },
      pollMs: options.pollMs ?? 1_000,
      onError: (error) => this.emit('error', error),
    });
    this.links = { connector: options.connector, objectType: options.objectType, ...(options.employers ? { employers: options.employers } : {}), ...(options.freeMail ? { freeMail: options.freeMail } : {}) };
    this.buffer = new WriteBuffer<Work>({
      batchSize: options.connector.batchSize,
      // Bulk writes wait for a full batch while lookups that could join it still run (several instances
      // share the partner limit, so a batch fills slowly); a person's write goes at once (see add).
      maxWaitMs: options.maxWriteWaitMs ?? 10_000,
      pending: () => this.pendingLookups,
      urgentPending: () => this.pendingInteractive,
      flush: (writes) => this.flush(writes),
    });
  }

  start(): void {
    this.stopping = false;
    this.claims.start();
    this.held.startHeartbeat(this.options.heartbeatMs ?? 5_000);
  }

  /** Records held right now (claimed, not yet settled). */
  get holding(): number {
    return this.inFlight;
  }

  /** New work was stored; interactive work is claimed even when bulk work fills the lane. */
  wake(priority: Priority = 'bulk'): void {
    this.claims.wake(priority);
  }

  /**
   * Stops claiming, and gives the work in hand until the deadline: jobs that have not started
   * (waiting for the limiter) come back to the caller's `release` when the limiter is stopped;
   * the rest finish and their writes are sent. Whatever is still held at the deadline is put back
   * on the queue, unspent, for the next instance.
   */
  async stop(options: LaneStopOptions = {}): Promise<void> {
    this.stopping = true;
    await this.claims.stop();
    const deadline = new Promise<'deadline'>((resolve) => setTimeout(resolve, options.deadlineMs ?? 10_000, 'deadline').unref());
    const finished = (async () => {
      while (this.batches.size) await Promise.allSettled([...this.batches]);
      await this.buffer.drain();
      return 'finished' as const;
    })();
    const outcome = await Promise.race([finished, deadline]);
    this.held.stopHeartbeat();
    if (outcome === 'deadline' && this.held.size) {
      const left = this.held.all();
      log.warn({ queue: this.queue, jobs: left.length }, 'work still under way at the shutdown deadline is put back for the next instance');
      await this.settler.release(left, 0).catch((error: unknown) => this.emit('error', error as Error));
    }
  }

  /** Claimed jobs: held (the heartbeat vouches for them) and processed as one batch. */
  private take(jobs: EnrichJob[]): void {
    this.held.add(jobs);
    const batch = this.processBatch(jobs).catch((error: unknown) => {
      this.emit('error', error as Error);
    });
    const tracked = batch.finally(() => {
      this.batches.delete(tracked);
      // Jobs of this batch that are neither settled nor still at work (a settle the store
      // refused) lose the heartbeat, so another worker gets them once they are stale.
      this.held.forget(jobs.filter((job) => !this.inFlightRecords.has(job.data.recordId)));
    });
    this.batches.add(tracked);
  }

  private async processBatch(jobs: EnrichJob[]): Promise<void> {
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
    if (later.length) await this.settler.release(later, 1_000);
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
        await this.settler.fail([...byRecord.values()].flat(), error);
        this.finish(ids);
        return;
      }
      const echoes = ids.filter((id) => isEcho(byRecord.get(id)!, states.get(id), mapping));
      if (echoes.length) {
        // The CRM tells us about our own write: nothing a person changed, so nothing to read or look up.
        await this.settler.complete(echoes.flatMap((id) => byRecord.get(id)!));
        this.emit('job', { outcome: 'echo', count: echoes.length });
        this.finish(echoes);
        for (const id of echoes) byRecord.delete(id);
      }
      const unchanged = await unchangedRefreshes(byRecord, states, mapping, this.options.lookups);
      if (unchanged.length) {
        const items = unchanged.map((id) => ({ recordId: id, jobs: byRecord.get(id)!, jobId: byRecord.get(id)![0]!.id, previous: states.get(id)!, result: 'unchanged' as const }));
        await this.settler.settle(items);
        this.emit('job', { outcome: 'unchanged', count: items.reduce((n, i) => n + i.jobs.length, 0) });
        this.finish(unchanged);
      }
      const toRead = [...byRecord.keys()].filter((id) => !unchanged.includes(id));
      if (toRead.length === 0) return;
      const records = await this.readBatch(toRead, byRecord, states, mapping, jobs.length);
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

  /**
   * The records of a batch: from the listing that enqueued them when it is fresh (backfill, sweep),
   * otherwise in one CRM read. Records the CRM no longer has are settled as skipped here.
   */
  private async readBatch(toRead: string[], byRecord: Map<string, EnrichJob[]>, states: Map<string, RecordState>, mapping: CompiledMapping, claimed: number): Promise<CrmRecord[]> {
    const priority: Priority = toRead.some((id) => byRecord.get(id)!.some((j) => j.priority === 'interactive')) ? 'interactive' : 'bulk';
    const read = propertiesToRead(this.options.connector, this.options.objectType, mapping);
    const snapshots = new Map(toRead.map((id) => [id, freshSnapshot(byRecord.get(id)!, states.get(id), read)] as const).filter((e): e is [string, CrmRecord] => !!e[1]));
    const reads = toRead.filter((id) => !snapshots.has(id));
    log.debug({ queue: this.queue, claimed, reading: reads.length, fromSnapshot: snapshots.size, inFlight: this.inFlight }, 'reading a batch');
    let records: CrmRecord[] = [...snapshots.values()];
    try {
      if (reads.length) records.push(...(await this.options.connector.readRecords(this.options.objectType, reads, read, { priority })));
    } catch (error) {
      await this.settler.fail(reads.flatMap((id) => byRecord.get(id)!), error);
      this.finish(reads);
      records = [...snapshots.values()];
    }
    const found = new Set(records.map((r) => r.id));
    const gone = reads.filter((id) => !found.has(id) && this.inFlightRecords.has(id));
    if (gone.length) {
      const result: RecordPlan = { kind: 'no_key', reason: 'the record no longer exists in the CRM' };
      await this.settler.settle(gone.map((id) => ({ recordId: id, jobs: byRecord.get(id)!, jobId: byRecord.get(id)![0]!.id, result })));
      this.emit('job', { outcome: 'skipped', count: gone.length });
      this.finish(gone);
    }
    return records;
  }

  private async processRecord(work: Work, mapping: CompiledMapping): Promise<void> {
    const urgent = work.priority === 'interactive';
    this.pendingLookups++;
    if (urgent) this.pendingInteractive++;
    let result: RecordPlan;
    try {
      const marketHint = work.jobs.find((j) => j.data.market)?.data.market;
      this.planning++;
      result = await planRecord(work.record, mapping, this.options.lookups, work.state, work.priority, new Date(), marketHint).finally(() => {
        // The last lookup in hand has answered: employers waiting to share a search cannot gain another.
        if (--this.planning === 0) this.links.employers?.hurry();
      });
      // JOB CHANGES: the record path's one call into src/enrich/job-changes, riding on the lookup just made.
      await this.options.jobChanges?.observe({ connection: this.options.connector.connection, objectType: this.options.objectType,
        record: work.record, plan: result, mapping, jobId: work.jobs[0]!.id });
      const plan = result;
      if (urgent && !this.options.connector.companyLinkInWrite && plan.kind === 'planned' && Object.keys(plan.plan.writes).length > 0) {
        // The person waits for the enrichment, not for the employer to be found or created: the
        // write goes out now and the association follows in the same flush once the company is known.
        work.linking = planLink(this.links, work, plan, mapping).then(
          (link) => void (work.link = link),
          (error: unknown) => void (work.linkError = error),
        );
      } else {
        work.link = await planLink(this.links, work, result, mapping);
      }
    } catch (error) {
      this.pendingLookups--;
      if (urgent) this.pendingInteractive--;
      await this.settler.fail(work.jobs, error);
      this.finish([work.record.id]);
      this.buffer.consider();
      return;
    }
    this.pendingLookups--;
    if (urgent) this.pendingInteractive--;
    work.planned = result;
    try {
      const link = work.link;
      const writes = result.kind === 'planned' ? { ...result.plan.writes } : {};
      // Where the link is a field of the record (Salesforce AccountId), it goes in the same update.
      if (link?.action === 'write') writes[link.property] = link.companyId;
      if (Object.keys(writes).length > 0 || link?.action === 'associate') {
        this.whileCounting(() => this.awaitingWrite.add(work.record.id));
        this.buffer.add(work.record.id, writes, work, work.priority === 'interactive');
        return;
      }
      await this.settler.settle([{ recordId: work.record.id, jobs: work.jobs, jobId: work.jobs[0]!.id, ...(work.state ? { previous: work.state } : {}), result, ...(link ? { link } : {}) }]);
      if (work.priority === 'interactive') {
        log.info({ queue: this.queue, recordId: work.record.id, outcome: result.kind === 'planned' ? 'unchanged' : result.kind }, result.kind === 'no_match' ? 'no partner match; nothing written' : 'nothing to write');
      }
      this.emit('job', { outcome: result.kind === 'planned' ? 'unchanged' : result.kind === 'no_match' ? 'no_match' : 'skipped', count: work.jobs.length });
      this.finish([work.record.id]);
    } catch (error) {
      await this.settler.fail(work.jobs, error);
      this.finish([work.record.id]);
    } finally {
      this.buffer.consider();
    }
  }

  private async flush(writes: BufferedWrite<Work>[]): Promise<void> {
    const priority: Priority = writes.some((w) => w.item.priority === 'interactive') ? 'interactive' : 'bulk';
    for (const w of writes) this.writing.set(w.recordId, w.properties);
    try {
      // A record that only needs its company link (HubSpot association) has nothing to update.
      const updates = writes.filter((w) => Object.keys(w.properties).length > 0);
      const written = updates.length
        ? await this.options.connector.writeRecords(
            this.options.objectType,
            updates.map((w) => ({ id: w.recordId, properties: w.properties })),
            { priority },
          )
        : [];
      const resultOf = new Map(updates.map((w, i) => [w, written[i]]));
      const ok: BufferedWrite<Work>[] = [];
      for (const write of writes) {
        const result = resultOf.get(write);
        if (!resultOf.has(write) || result?.ok) {
          ok.push(write);
          continue;
        }
        const failure: JobFailure = {
          code: result?.error?.code ?? 'write_failed',
          message: result?.error?.message ?? 'the CRM gave no result for this record',
          retryable: result?.error?.retryable ?? true,
        };
        await this.settler.fail(write.item.jobs, failure);
      }
      // Links still being found (records a person waits for) are awaited after the write.
      await Promise.all(ok.map((w) => w.item.linking));
      for (const w of ok.filter((x) => x.item.linkError !== undefined)) {
        // The enrichment is written; the job is retried for the link, and its second run writes nothing new.
        await this.settler.fail(w.item.jobs, w.item.linkError);
        ok.splice(ok.indexOf(w), 1);
      }
      if (ok.length) {
        const linked = await associate(this.links, ok.map((w) => w.item), priority);
        if (linked.error) log.warn({ queue: this.queue, records: linked.failed, err: linked.error }, 'could not link records with their companies');
        await this.settler.settle(
          ok.map((w) => ({ recordId: w.item.record.id, jobs: w.item.jobs, jobId: w.item.jobs[0]!.id, ...(w.item.state ? { previous: w.item.state } : {}), result: w.item.planned!, written: w.properties, ...(w.item.link ? { link: w.item.link } : {}) })),
        );
        this.emit('job', { outcome: 'enriched', count: ok.reduce((n, w) => n + w.item.jobs.length, 0) });
        for (const w of ok) {
          const entry = { queue: this.queue, recordId: w.recordId, reason: w.item.jobs[0]!.data.reason, written: Object.keys(w.properties) };
          if (w.item.priority === 'interactive') log.info(entry, 'enriched a record');
          else log.debug(entry, 'enriched a record');
        }
        this.emit('written', { receivedAt: ok.flatMap((w) => w.item.jobs.map((j) => j.data.receivedAt).filter((t): t is string => !!t)) });
      }
    } catch (error) {
      await this.settler.fail(writes.flatMap((w) => w.item.jobs), error);
    } finally {
      for (const w of writes) this.writing.delete(w.recordId);
      this.finish(writes.map((w) => w.recordId));
    }
  }

  /** Privacy deletions, merges and deletions touch only our own state: no CRM read, no lookup. */
  private async housekeep(jobs: EnrichJob[]): Promise<void> {
    for (const job of jobs) {
      if (job.data.reason === 'rejected') {
        // An item of a delivery that could not be read: straight to the dead letter, with why.
        await this.settler.fail([job], { code: 'invalid_event', message: job.data.rejection ?? 'the item could not be read', retryable: false });
        continue;
      }
      try {
        const outcome = await housekeep(job, this.options.connector.connection, this.options.erasure);
        await this.settler.complete([job]);
        this.emit('job', { outcome, count: 1 });
      } catch (error) {
        await this.settler.fail([job], error);
      }
    }
  }

  private finish(ids: string[]): void {
    this.held.forgetRecords(new Set(ids));
    this.whileCounting(() => {
      for (const id of ids) {
        if (this.inFlightRecords.delete(id)) this.inFlight--;
        this.awaitingWrite.delete(id);
      }
    });
  }

  /** Applies a change to the records in hand, and wakes the claim loop when it brings them down to the low-water mark. */
  private whileCounting(change: () => void): void {
    const before = this.claimWeight();
    change();
    if (before > this.lowWater && this.claimWeight() <= this.lowWater) this.claims.wake();
  }

  /**
   * Records in hand as the claim loop counts them: up to one batch of records waiting for their write
   * keeps no lookup busy and does not count, so the lane claims while a batch fills instead of running
   * dry before every write. Beyond that they count: it holds at most maxInFlight plus one batch.
   */
  private claimWeight(): number {
    return this.inFlight - Math.min(this.awaitingWrite.size, this.options.connector.batchSize);
  }

  /** Values being written right now, by record: a change event carrying them is our own echo. */
  pendingWrite(recordId: string): Record<string, string> | undefined {
    return this.writing.get(recordId);
  }
}

/** Jobs that touch only our own records, with no CRM read and no lookup. */
const HOUSEKEEPING: ReadonlySet<string> = new Set(['privacy_deletion', 'merged', 'deleted', 'rejected']);
