/**
 * A lane enriches one object type of one CRM connection. It reads the batches its claim loop claims,
 * and runs each batch: housekeeping jobs apart, one state read and (where no fresh listing stands in)
 * one CRM read for the whole batch, then one record run per record (record-run.ts: lookups, plan, company
 * link), whose writes a write buffer gathers into batches for the batch writer (write, link, settle). So
 * N records cost about N/batchSize reads and N/batchSize writes. Every record held is in the ledger,
 * and jobs are settled only after their record's outcome is stored, so a crash leaves them to be claimed
 * again and the second run finds nothing left to write.
 */
import { forPerson } from '../../core/person-waiting.js';
import { EventEmitter } from 'node:events';
import type { CrmRecord } from '../../core/connector.js';
import type { Priority } from '../../core/limiter.js';
import { logger } from '../../logger.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import { BatchWriter } from './batch-writer.js';
import { ClaimLoop } from './claim-loop.js';
import { HeldJobs } from './held-jobs.js';
import { housekeep } from './state-only-jobs.js';
import { type EnrichJob, queueName } from '../jobs.js';
import type { LaneEvents } from './lane-events.js';
import type { LinkContext } from './lane-links.js';
import type { LaneOptions, LaneStopOptions, Work } from './lane-options.js';
import { LaneSettler } from './lane-settler.js';
import { Ledger } from './ledger.js';
import { LinkQueue } from './link-queue.js';
import type { PipelineState } from '../ports.js';
import { propertiesToRead } from '../record/read-properties.js';
import { OWN_CREATION_MARK_MS, OWN_CREATION_RECHECK_MS } from '../own-creation.js';
import { RecordRunner } from './record-run.js';
import { unchangedRefreshes } from '../record/refresh-shortcut.js';
import { runOutcome } from '../record/run-outcome.js';
import { freshSnapshot } from '../record/snapshot.js';
import { WriteBuffer } from './write-buffer.js';

export type { LaneOptions, LaneStopOptions } from './lane-options.js';

const log = logger('enrich.lane');

/**
 * Batches of written records a lane may hold while their employers gather (up to the resolver's linger,
 * or while a dead instance's company claims go stale) without holding back its lookups: at 50 lookups a
 * second, twenty seconds of them, a few megabytes.
 */
const WAITING_BATCHES = 10;

/**
 * How long bulk writes wait for a write batch larger than one CRM call to fill (a Salesforce Bulk API 2.0
 * ingest job of 2,000): at the partner's 50 lookups a second, 2,000 records take 40 seconds to look up.
 */
const BULK_WRITE_LINGER_MS = 60_000;
/** How long lookups must have run dry before such a batch goes short: the next claim's read may be coming. */
const BULK_WRITE_LULL_MS = 1_000;

/** Jobs that touch only our own records, with no CRM read and no lookup. */
const HOUSEKEEPING: ReadonlySet<string> = new Set(['privacy_deletion', 'merged', 'deleted', 'rejected']);

export class Lane extends EventEmitter<LaneEvents> {
  readonly queue: string;
  private readonly ledger: Ledger;
  private readonly held: HeldJobs;
  private readonly settler: LaneSettler;
  private readonly claims: ClaimLoop;
  private readonly buffer: WriteBuffer<Work>;
  private readonly runner: RecordRunner;
  private readonly batches = new Set<Promise<void>>();
  /** Aborted by `stop`, for good: a lane is started once and stopped once, with its service. */
  private readonly stopping = new AbortController();
  private reading: Promise<void> | undefined;

  constructor(private readonly options: LaneOptions) {
    super();
    this.queue = queueName(options.connector.connection, options.objectType);
    const { batchSize, connection } = options.connector;
    const maxInFlight = Math.max(1, options.maxInFlight ?? 2 * batchSize);
    const lowWater = Math.min(options.lowWater ?? Math.floor(batchSize / 2), maxInFlight - 1);
    const interactiveRoom = options.interactiveRoom ?? Math.max(5, Math.floor(batchSize / 10));
    // How many bulk writes one CRM write takes, where the connector gathers more than it reads (Salesforce:
    // one ingest job). Records waiting for it, and for the one before it, do not hold back claiming.
    const writeBatch = Math.max(batchSize, options.connector.writeBatchSize?.('bulk') ?? batchSize);
    this.ledger = new Ledger({
      lowWater,
      waitingAllowance: Math.max(WAITING_BATCHES * batchSize, 2 * writeBatch),
      ...(options.people ? { people: options.people } : {}),
    });
    this.held = new HeldJobs(options.queue, this.queue, (error) => this.emit('error', error));
    // A record's run is over: whatever of its jobs is still held (a settle the store refused) loses the
    // heartbeat, so another worker gets it once it is stale.
    this.ledger.on('released', (ids) => this.held.forgetRecords(new Set(ids)));
    this.settler = new LaneSettler({
      held: this.held,
      state: options.state,
      where: { connection, objectType: options.objectType, refreshAfterDays: options.refreshAfterDays },
      queue: this.queue,
      stopping: this.stopping.signal,
      events: this,
    });
    this.claims = new ClaimLoop({
      claim: (limit) => options.queue.claim(this.queue, limit),
      ledger: this.ledger,
      limits: { lowWater, maxInFlight, interactiveRoom, batchSize },
      pollMs: options.pollMs ?? 1_000,
      onError: (error) => this.emit('error', error),
    });
    const links: LinkContext = {
      connector: options.connector,
      objectType: options.objectType,
      ...(options.employers ? { employers: options.employers } : {}),
      ...(options.freeMail ? { freeMail: options.freeMail } : {}),
    };
    const linkQueue = new LinkQueue({
      links,
      batchSize,
      ...(options.people ? { people: options.people } : {}),
      stopping: this.stopping.signal,
    });
    const writer = new BatchWriter({
      connector: options.connector,
      objectType: options.objectType,
      queue: this.queue,
      mapping: options.mapping,
      links: linkQueue,
      settler: this.settler,
      ledger: this.ledger,
      ...(options.writing ? { writing: options.writing } : {}),
      events: this,
    });
    this.buffer = new WriteBuffer<Work>({
      batchSize: writeBatch,
      // Bulk writes wait for a full batch while lookups that could join it still run (several instances
      // share the partner limit, so a batch fills slowly); a person's write goes at once (see add).
      maxWaitMs: options.maxWriteWaitMs ?? (writeBatch > batchSize ? BULK_WRITE_LINGER_MS : 10_000),
      pending: () => this.ledger.mayWrite,
      lullMs: writeBatch > batchSize ? BULK_WRITE_LULL_MS : 0,
      urgentPending: () => this.ledger.urgentPlanning,
      flush: (writes) => writer.write(writes),
    });
    this.runner = new RecordRunner({
      connection,
      objectType: options.objectType,
      queue: this.queue,
      lookups: options.lookups,
      links,
      ledger: this.ledger,
      settler: this.settler,
      buffer: this.buffer,
      ...(options.jobChanges ? { jobChanges: options.jobChanges } : {}),
    });
  }

  start(): void {
    if (this.reading) return;
    this.held.startHeartbeat(this.options.heartbeatMs ?? 5_000);
    this.reading = (async () => {
      for await (const jobs of this.claims.batches()) this.take(jobs);
    })();
  }

  /** Records held right now (claimed, not yet settled). */
  get holding(): number {
    return this.ledger.held;
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
    this.stopping.abort();
    this.claims.stop();
    await this.reading;
    this.reading = undefined;
    const deadline = new Promise<'deadline'>((resolve) =>
      setTimeout(resolve, options.deadlineMs ?? 10_000, 'deadline').unref(),
    );
    const finished = (async () => {
      while (this.batches.size) await Promise.allSettled([...this.batches]);
      await this.buffer.drain();
      return 'finished' as const;
    })();
    const outcome = await Promise.race([finished, deadline]);
    this.held.stopHeartbeat();
    if (outcome === 'deadline' && this.held.size) {
      const left = this.held.all();
      log.warn(
        { queue: this.queue, jobs: left.length },
        'work still under way at the shutdown deadline is put back for the next instance',
      );
      await this.settler.release(left, 0).catch((error: unknown) => this.emit('error', error as Error));
    }
  }

  /** Claimed jobs: held (the heartbeat vouches for them) and run as one batch. */
  private take(jobs: EnrichJob[]): void {
    this.held.add(jobs);
    // A person's record takes the embedded database ahead of bulk work, and so do the records read with it.
    const person = jobs.some((j) => j.priority === 'interactive');
    const batch = forPerson(person, () => this.runBatch(jobs)).catch((error: unknown) => {
      this.emit('error', error as Error);
    });
    const tracked = batch.finally(() => {
      this.batches.delete(tracked);
      // Jobs of this batch that are neither settled nor still at work (a settle the store
      // refused) lose the heartbeat, so another worker gets them once they are stale.
      this.held.forget(jobs.filter((job) => !this.ledger.has(job.data.recordId)));
    });
    this.batches.add(tracked);
  }

  private async runBatch(jobs: EnrichJob[]): Promise<void> {
    const housekeeping = jobs.filter((j) => HOUSEKEEPING.has(j.data.reason));
    if (housekeeping.length) await this.housekeep(housekeeping);

    // Jobs for a record already in hand wait their turn: two runs side by side would write twice.
    const byRecord = new Map<string, EnrichJob[]>();
    const later: EnrichJob[] = [];
    for (const job of jobs) {
      if (HOUSEKEEPING.has(job.data.reason)) continue;
      if (this.ledger.has(job.data.recordId)) later.push(job);
      else byRecord.set(job.data.recordId, [...(byRecord.get(job.data.recordId) ?? []), job]);
    }
    if (later.length) await this.settler.release(later, 1_000);
    if (byRecord.size === 0) return;

    const ids = [...byRecord.keys()];
    const people = ids.filter((id) => byRecord.get(id)!.some((j) => j.priority === 'interactive'));
    this.ledger.hold(ids, new Set(people));
    const mapping = this.options.mapping();
    try {
      let states: Map<string, PipelineState>;
      let ours: Set<string>;
      let undecided: Set<string>;
      try {
        [states, { ours, undecided }] = await Promise.all([
          this.options.state.getMany(this.options.connector.connection, this.options.objectType, ids),
          this.ownCreations(byRecord),
        ]);
      } catch (error) {
        await this.settler.fail([...byRecord.values()].flat(), error);
        this.ledger.release(ids);
        return;
      }
      if (ours.size) {
        await this.settler.complete(
          [...ours].flatMap((id) => byRecord.get(id)!),
          'echo',
        );
        this.ledger.release([...ours]);
      }
      if (undecided.size) {
        await this.settler.release(
          [...undecided].flatMap((id) => byRecord.get(id)!),
          OWN_CREATION_RECHECK_MS,
        );
        this.ledger.release([...undecided]);
      }
      const running = new Map([...byRecord].filter(([id]) => !ours.has(id) && !undecided.has(id)));
      const unchanged = new Set(await unchangedRefreshes(running, states, mapping, this.options.lookups));
      if (unchanged.size) {
        const runs = [...unchanged].map((id) =>
          runOutcome({ recordId: id, jobs: byRecord.get(id)!, state: states.get(id) }, 'unchanged'),
        );
        await this.settler.settle(runs);
        this.ledger.release([...unchanged]);
      }
      const toRead = ids.filter((id) => !unchanged.has(id) && !ours.has(id) && !undecided.has(id));
      this.countForeignTokenUse(toRead.map((id) => byRecord.get(id)!));
      if (toRead.length === 0) return;
      const records = await this.readBatch(toRead, byRecord, states, mapping, jobs.length);
      await Promise.all(
        records.map((record) => {
          const recordJobs = byRecord.get(record.id)!;
          const priority: Priority = recordJobs.some((j) => j.priority === 'interactive') ? 'interactive' : 'bulk';
          return this.runner.run({ jobs: recordJobs, record, state: states.get(record.id), priority }, mapping);
        }),
      );
    } finally {
      this.buffer.consider();
    }
  }

  /**
   * Jobs made with the service's token (`byThisService`) whose records are to be enriched: not a creation
   * of its own, not a refresh with nothing to do. That is a script reusing the token. Counted on the first
   * claim only, so a retry or a reclaim does not count a change again.
   */
  private countForeignTokenUse(toRun: EnrichJob[][]): void {
    const count = toRun.flat().filter((j) => j.data.byThisService && j.retryCount === 0 && !j.data.reclaims).length;
    if (count) this.emit('foreignToken', { crm: this.options.connector.crm, count });
  }

  /**
   * Records known only by their creation events: `ours`, those the service itself created (an employer's
   * company, a discovered person), which cost no read and no lookup a second time; `undecided`, those not
   * known yet while a creation of this object type is under way on some instance (the CRM announced it
   * before the service recorded it), held back until the creation's ids are kept. A creation the CRM says
   * another maker made is never held.
   */
  private async ownCreations(
    byRecord: Map<string, EnrichJob[]>,
  ): Promise<{ ours: Set<string>; undecided: Set<string> }> {
    const { created, connector, objectType } = this.options;
    const creations = [...byRecord].filter(([, jobs]) => jobs.every((j) => j.data.reason === 'created'));
    if (!created || creations.length === 0) return { ours: new Set(), undecided: new Set() };
    const ours = await created.has(
      connector.connection,
      objectType,
      creations.map(([id]) => id),
    );
    const unknown = creations.filter(([id, jobs]) => !ours.has(id) && !jobs.some((j) => j.data.byAnother));
    const waiting =
      unknown.length > 0 && (await created.underWay(connector.connection, objectType, OWN_CREATION_MARK_MS));
    return { ours, undecided: new Set(waiting ? unknown.map(([id]) => id) : []) };
  }

  /**
   * The records of a batch: from the listing that enqueued them when it is fresh (backfill, sweep),
   * otherwise in one CRM read. Records the CRM no longer has are settled as skipped here.
   */
  private async readBatch(
    toRead: string[],
    byRecord: Map<string, EnrichJob[]>,
    states: Map<string, PipelineState>,
    mapping: CompiledMapping,
    claimed: number,
  ): Promise<CrmRecord[]> {
    const interactive = toRead.some((id) => byRecord.get(id)!.some((j) => j.priority === 'interactive'));
    const priority: Priority = interactive ? 'interactive' : 'bulk';
    const read = propertiesToRead(this.options.connector, this.options.objectType, mapping);
    const snapshots = new Map<string, CrmRecord>();
    for (const id of toRead) {
      const snapshot = freshSnapshot(byRecord.get(id)!, states.get(id), read);
      if (snapshot) snapshots.set(id, snapshot);
    }
    const reads = toRead.filter((id) => !snapshots.has(id));
    log.debug(
      { queue: this.queue, claimed, reading: reads.length, fromSnapshot: snapshots.size, held: this.ledger.held },
      'reading a batch',
    );
    let records: CrmRecord[] = [...snapshots.values()];
    try {
      if (reads.length)
        records.push(...(await this.options.connector.readRecords(this.options.objectType, reads, read, { priority })));
    } catch (error) {
      await this.settler.fail(
        reads.flatMap((id) => byRecord.get(id)!),
        error,
      );
      this.ledger.release(reads);
      records = [...snapshots.values()];
    }
    const found = new Set(records.map((r) => r.id));
    const gone = reads.filter((id) => !found.has(id) && this.ledger.has(id));
    if (gone.length) {
      const skipped = { kind: 'no_key' as const, reason: 'the record no longer exists in the CRM' };
      await this.settler.settle(gone.map((id) => runOutcome({ recordId: id, jobs: byRecord.get(id)! }, skipped)));
      this.ledger.release(gone);
    }
    return records;
  }

  /** Privacy deletions, merges and deletions touch only our own state: no CRM read, no lookup. */
  private async housekeep(jobs: EnrichJob[]): Promise<void> {
    for (const job of jobs) {
      if (job.data.reason === 'rejected') {
        // An item of a delivery that could not be read: straight to the dead letter, with why.
        const rejection = {
          code: 'invalid_event',
          message: job.data.rejection ?? 'the item could not be read',
          retryable: false,
        };
        await this.settler.fail([job], rejection);
        continue;
      }
      try {
        const outcome = await housekeep(job, this.options.connector.connection, this.options.erasure);
        await this.settler.complete([job], outcome);
      } catch (error) {
        await this.settler.fail([job], error);
      }
    }
  }
}
