/**
 * A lane enriches one object type of one CRM connection, as a loop over steps that return values:
 * claim (claim-loop.ts) a batch of jobs, read (read-step.ts) its records in one state read and one CRM
 * read, run (run-step.ts) each record's lookups and plan, write (write-step.ts) the planned writes of many
 * records in one CRM call, link (link-step.ts) the written records with their companies in one call, and
 * settle (settle-step.ts) each record's outcome and jobs. Between steps, writes and links gather into
 * batches (gatherer.ts), so N records cost about N/batchSize reads and N/batchSize writes. Only the lane
 * moves a record's phase in the ledger, settles, and reports; no step holds the lane. Jobs are settled only
 * after their record's outcome is stored, so a crash leaves them to be claimed again and the second run
 * finds nothing left to write.
 */
import { EventEmitter } from 'node:events';
import type { Priority } from '../../core/limiter.js';
import { forPerson } from '../../core/person-waiting.js';
import { logger } from '../../logger.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import type { CompanyLinkPlan } from '../employers/company-link.js';
import { Gatherer } from '../gatherer.js';
import { type EnrichJob, queueName } from '../jobs.js';
import { OWN_CREATION_RECHECK_MS } from '../own-creation.js';
import { reportedOutcome, runOutcome, type SettledRun } from '../record/run-outcome.js';
import { ClaimLoop } from './claim-loop.js';
import { HeldJobs } from './held-jobs.js';
import type { LaneEvents } from './lane-events.js';
import type { LaneOptions, LaneStopOptions } from './lane-options.js';
import { Ledger } from './ledger.js';
import { linkRecords, type LinkContext, type LinkReport } from './link-step.js';
import { readBatch, type ReadContext } from './read-step.js';
import { plannedProperties, runRecord, type RunContext } from './run-step.js';
import { completeJobs, failJobs, releaseJobs, settleRuns, type JobCount, type SettleContext } from './settle-step.js';
import { housekeep } from './state-only-jobs.js';
import type { PlannedWrite, Work } from './work.js';
import { writeBatch, type WriteContext } from './write-step.js';

export type { LaneOptions, LaneStopOptions } from './lane-options.js';

const log = logger('enrich.lane');

/**
 * Batches of written records a lane may hold while their employers gather (up to the resolver's linger,
 * or while a dead instance's company claims go stale) without holding back its lookups: at 50 lookups a
 * second, twenty seconds of them, a few megabytes.
 */
const WAITING_BATCHES = 10;

/** Jobs that touch only our own records, with no CRM read and no lookup. */
const HOUSEKEEPING: ReadonlySet<string> = new Set(['privacy_deletion', 'merged', 'deleted', 'rejected']);

/** The longest a person's write waits for other people's writes to join it. */
const PERSON_WRITE_LINGER_MS = 250;

/** The longest company links wait for a lull in people's records. */
const LINK_HOLD_MS = 5_000;
/**
 * How long bulk writes wait for a write batch larger than one CRM call to fill (a Salesforce Bulk API 2.0
 * ingest job of 2,000): at the partner's 50 lookups a second, 2,000 records take 40 seconds to look up.
 */
const BULK_JOB_LINGER_MS = 60_000;
/** How long such a batch waits once nothing could join it: the next claim's read may be on its way. */
const BULK_JOB_LULL_MS = 1_000;

type Linkable = { recordId: string; link: CompanyLinkPlan | undefined };

export class Lane extends EventEmitter<LaneEvents> {
  readonly queue: string;
  private readonly ledger: Ledger;
  private readonly held: HeldJobs;
  private readonly claims: ClaimLoop;
  private readonly reading: ReadContext;
  private readonly running: RunContext;
  private readonly writing: WriteContext;
  private readonly settling: SettleContext;
  /** Planned writes, gathered by priority into the lane's CRM write calls. */
  private readonly writes: Gatherer<Priority, PlannedWrite>;
  /** Bulk writes one CRM write call takes (more than `batchSize` where the connector has a bulk job). */
  private readonly bulkWriteSize: number;
  /** Whether bulk writes gather into batches larger than one claim (the connector's bulk jobs). */
  private readonly bulkJobs: boolean;
  /** Since when nothing that could add a bulk write has been under way (batches larger than a claim). */
  private quietSince: number | undefined;
  private quietTimer: NodeJS.Timeout | undefined;
  /** Written records' company links, gathered into shared association calls at a lull in people's work. */
  private readonly links: Gatherer<'links', Linkable, LinkReport>;
  private readonly batches = new Set<Promise<void>>();
  /** Aborted by `stop`, for good: a lane is started once and stopped once, with its service. */
  private readonly stopping = new AbortController();
  private claiming: Promise<void> | undefined;

  constructor(private readonly options: LaneOptions) {
    super();
    this.queue = queueName(options.connector.connection, options.objectType);
    const { connector, objectType } = options;
    const { batchSize, connection } = connector;
    const maxInFlight = Math.max(1, options.maxInFlight ?? 2 * batchSize);
    const lowWater = Math.min(options.lowWater ?? Math.floor(batchSize / 2), maxInFlight - 1);
    const interactiveRoom = options.interactiveRoom ?? Math.max(5, Math.floor(batchSize / 10));
    // How many bulk writes one CRM write takes, where the connector gathers more than it reads (Salesforce:
    // one Bulk API 2.0 ingest job). Records waiting for it, and for the one before it, do not hold back claiming.
    this.bulkWriteSize = Math.max(batchSize, connector.writeBatchSize?.('bulk') ?? batchSize);
    this.bulkJobs = this.bulkWriteSize > batchSize;
    const waitingAllowance = Math.max(WAITING_BATCHES * batchSize, 2 * this.bulkWriteSize);
    this.ledger = new Ledger({ lowWater, waitingAllowance, people: options.people });
    this.held = new HeldJobs(options.queue, this.queue, (error) => this.emit('error', error));
    // A record's run is over: whatever of its jobs is still held (a settle the store refused) loses the
    // heartbeat, so another worker gets it once it is stale.
    this.ledger.on('released', (ids) => this.held.forgetRecords(new Set(ids)));
    this.claims = new ClaimLoop({
      claim: (limit) => options.queue.claim(this.queue, limit),
      ledger: this.ledger,
      limits: { lowWater, maxInFlight, interactiveRoom, batchSize },
      pollMs: options.pollMs ?? 1_000,
      onError: (error) => this.emit('error', error),
    });
    const links: LinkContext = { connector, objectType, employers: options.employers, freeMail: options.freeMail };
    this.reading = { connector, objectType, state: options.state, lookups: options.lookups, created: options.created };
    this.running = { connection, objectType, lookups: options.lookups, links, jobChanges: options.jobChanges };
    this.writing = { connector, objectType, writing: options.writing };
    this.settling = {
      held: this.held,
      state: options.state,
      where: { connection, objectType, refreshAfterDays: options.refreshAfterDays },
      queue: this.queue,
    };
    const bulkLinger = options.maxWriteWaitMs ?? (this.bulkJobs ? BULK_JOB_LINGER_MS : 10_000);
    this.writes = new Gatherer({
      size: (priority) => (priority === 'bulk' ? this.bulkWriteSize : batchSize),
      // Bulk writes wait for a full batch while lookups that could join it still run (several instances
      // share the partner limit, so a batch fills slowly); a person's write waits only for other people's.
      linger: (priority) => (priority === 'interactive' ? PERSON_WRITE_LINGER_MS : bulkLinger),
      ready: (priority) => (priority === 'interactive' ? this.ledger.urgentPlanning === 0 : this.bulkWritesReady()),
      send: (priority, items) => this.writeAndLink(priority, items),
    });
    const people = options.people;
    this.links = new Gatherer({
      size: () => batchSize,
      // Links resolved in the same moment (one employer batch answers many records) join before the call.
      linger: () => 1,
      // Once the lane is stopping, links go at once.
      ...(people ? { lull: () => (this.stopping.signal.aborted ? Promise.resolve() : people.lull(LINK_HOLD_MS)) } : {}),
      // Links are bulk work: the next person's read and write go ahead of them at the CRM's rate limit.
      send: (_key, items) => linkRecords(links, items, 'bulk'),
    });
    this.stopping.signal.addEventListener('abort', () => this.links.flush(), { once: true });
  }

  start(): void {
    if (this.claiming) return;
    this.held.startHeartbeat(this.options.heartbeatMs ?? 5_000);
    this.claiming = (async () => {
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
    await this.claiming;
    this.claiming = undefined;
    const deadline = new Promise<'deadline'>((resolve) =>
      setTimeout(resolve, options.deadlineMs ?? 10_000, 'deadline').unref(),
    );
    const finished = (async () => {
      while (this.batches.size) await Promise.allSettled([...this.batches]);
      await this.writes.drain();
      await this.links.drain();
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
      await releaseJobs(this.settling, left, 0).catch((error: unknown) => this.emit('error', error as Error));
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
    if (later.length) await this.putBack([], later, 1_000);
    if (byRecord.size === 0) return;

    const ids = [...byRecord.keys()];
    const people = ids.filter((id) => byRecord.get(id)!.some((j) => j.priority === 'interactive'));
    this.ledger.hold(ids, new Set(people));
    const jobsOf = (recordIds: string[]) => recordIds.flatMap((id) => byRecord.get(id)!);
    try {
      const mapping = this.options.mapping();
      const read = await readBatch(this.reading, byRecord, mapping);
      if (read.foreignToken) this.emit('foreignToken', { crm: this.options.connector.crm, count: read.foreignToken });
      for (const failed of read.failed) await this.fail(failed.recordIds, jobsOf(failed.recordIds), failed.error);
      await this.complete(read.ours, jobsOf(read.ours), 'echo');
      await this.putBack(read.undecided, jobsOf(read.undecided), OWN_CREATION_RECHECK_MS);
      await this.settle(read.done);
      await Promise.all(read.works.map((work) => this.runOne(work, mapping)));
    } catch (error) {
      // Whatever of the batch is still in its first phase never got to run: its jobs go back to the queue.
      const stuck = ids.filter((id) => this.ledger.phaseOf(id) === 'reading');
      await this.fail(stuck, jobsOf(stuck), error);
    } finally {
      this.writes.consider();
    }
  }

  /** One record's run: its lookups and plan, then its write gathered with others' or, with none, settled. */
  private async runOne(work: Work, mapping: CompiledMapping): Promise<void> {
    const id = work.record.id;
    try {
      this.ledger.move(id, 'planning', work.priority === 'interactive');
      const ran = await runRecord(this.running, work, mapping);
      this.ledger.move(id, 'linking');
      let link: CompanyLinkPlan | undefined;
      if (!ran.writesFirst) {
        const followed = await ran.following;
        if ('error' in followed) throw followed.error;
        link = followed.link;
      }
      const properties = plannedProperties(ran.plan, link);
      if (Object.keys(properties).length > 0 || link?.action === 'associate') {
        this.ledger.move(id, 'waiting');
        const write = { work, recordId: id, plan: ran.plan, properties, link };
        void this.writes.add(work.priority, ran.writesFirst ? { ...write, following: ran.following } : write);
        return;
      }
      const outcome = runOutcome({ recordId: id, jobs: work.jobs, state: work.state }, ran.plan, { link });
      await this.settle([outcome]);
      log.info(
        { queue: this.queue, recordId: id, reason: work.jobs[0]!.data.reason, outcome: reportedOutcome(outcome) },
        ran.plan.kind === 'no_match' ? 'no partner match; nothing written' : 'nothing to write',
      );
    } catch (error) {
      await this.fail([id], work.jobs, error);
    } finally {
      this.writes.consider();
    }
  }

  /**
   * A gathered batch of writes: written in one CRM call, then, once each record's employer is known, linked
   * in a call shared with other batches, then settled. A record whose write failed is failed alone; one
   * whose link could not be found is retried for it (its enrichment is written, so the retry writes nothing).
   */
  /**
   * Whether a partial bulk write batch can go: nothing that could join it is being looked up. A batch
   * larger than one claim (a bulk job) also waits out a short lull, so it is not sent short in the moment
   * between one claimed batch's lookups and the next claim's read.
   */
  private bulkWritesReady(): boolean {
    if (!this.bulkJobs) return this.ledger.mayWrite === 0;
    if (this.ledger.mayWrite + this.ledger.reading > 0) {
      this.quietSince = undefined;
      return false;
    }
    const now = Date.now();
    this.quietSince ??= now;
    const left = this.quietSince + BULK_JOB_LULL_MS - now;
    if (left <= 0 || this.stopping.signal.aborted) return true;
    this.quietTimer ??= setTimeout(() => {
      this.quietTimer = undefined;
      this.writes.consider();
    }, left);
    this.quietTimer.unref();
    return false;
  }

  private async writeAndLink(priority: Priority, items: PlannedWrite[]): Promise<void> {
    const all = items.map((w) => w.recordId);
    try {
      const { written, refused } = await writeBatch(this.writing, items, this.options.mapping(), priority);
      for (const r of refused) await this.fail([r.item.recordId], r.item.work.jobs, r.failure);
      for (const w of written) this.ledger.move(w.recordId, 'written');
      const followed = await Promise.all(
        written.map(async (w) => ({ w, followed: w.following ? await w.following : { link: w.link } })),
      );
      for (const { w, followed: f } of followed) if ('error' in f) await this.fail([w.recordId], w.work.jobs, f.error);
      const linkable = followed.filter(({ followed: f }) => !('error' in f));
      if (linkable.length === 0) return;
      const associations = linkable.filter(({ followed: f }) => f.link?.action === 'associate');
      const reports = await Promise.all(
        associations.map(({ w, followed: f }) => this.links.add('links', { recordId: w.recordId, link: f.link })),
      );
      const failed = reports.find((r) => r.error !== undefined);
      if (failed)
        log.warn(
          { queue: this.queue, records: reports.filter((r) => r.error !== undefined).length, err: failed.error },
          'could not link records with their companies',
        );
      const linkOf = (id: string, planned: CompanyLinkPlan | undefined) =>
        reports.find((r) => r.links.has(id))?.links.get(id) ?? planned;
      const settled = linkable.map(({ w, followed: f }) =>
        runOutcome({ recordId: w.recordId, jobs: w.work.jobs, state: w.work.state }, w.plan, {
          written: w.properties,
          link: linkOf(w.recordId, f.link),
        }),
      );
      if (await this.settle(settled)) this.announce(linkable.map(({ w }) => w));
    } catch (error) {
      await this.fail(
        all,
        items.flatMap((w) => w.work.jobs),
        error,
      );
    } finally {
      this.ledger.release(all);
    }
  }

  /** Settles runs and reports them; a store that refuses fails their jobs instead. True when stored. */
  private async settle(runs: SettledRun[]): Promise<boolean> {
    if (runs.length === 0) return true;
    const ids = runs.map((r) => r.recordId);
    try {
      this.report(await settleRuns(this.settling, runs));
      return true;
    } catch (error) {
      await this.fail(
        ids,
        runs.flatMap((r) => r.jobs),
        error,
      );
      return false;
    } finally {
      this.ledger.release(ids);
    }
  }

  private async complete(recordIds: string[], jobs: EnrichJob[], outcome: 'echo'): Promise<void> {
    if (jobs.length === 0) return;
    try {
      this.report(await completeJobs(this.settling, jobs, outcome));
    } catch (storeError) {
      this.emit('error', storeError as Error);
    } finally {
      this.ledger.release(recordIds);
    }
  }

  private async putBack(recordIds: string[], jobs: EnrichJob[], delayMs: number): Promise<void> {
    if (jobs.length === 0) return;
    try {
      await releaseJobs(this.settling, jobs, delayMs);
    } catch (storeError) {
      this.emit('error', storeError as Error);
    } finally {
      this.ledger.release(recordIds);
    }
  }

  /** Fails or puts back the jobs an error stopped; the records leave the lane. */
  private async fail(recordIds: string[], jobs: EnrichJob[], error: unknown): Promise<void> {
    try {
      this.report(await failJobs(this.settling, jobs, error, this.stopping.signal.aborted));
    } catch (storeError) {
      // The jobs stay claimed; once they lose the heartbeat another worker gets them.
      this.emit('error', storeError as Error);
    } finally {
      if (recordIds.length) this.ledger.release(recordIds);
    }
  }

  private report(counts: JobCount[]): void {
    for (const count of counts) this.emit('job', count);
  }

  /** Every enriched record is logged at info, whichever lane it took; the webhook-to-write times go out. */
  private announce(done: PlannedWrite[]): void {
    for (const w of done) {
      log.info(
        {
          queue: this.queue,
          recordId: w.recordId,
          reason: w.work.jobs[0]!.data.reason,
          priority: w.work.priority,
          written: Object.keys(w.properties),
        },
        'enriched a record',
      );
    }
    const receivedAt = done.flatMap((w) => w.work.jobs.map((j) => j.data.receivedAt).filter((t): t is string => !!t));
    this.emit('written', { receivedAt });
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
        await this.fail([], [job], rejection);
        continue;
      }
      try {
        const outcome = await housekeep(job, this.options.connector.connection, this.options.erasure);
        this.report(await completeJobs(this.settling, [job], outcome));
      } catch (error) {
        await this.fail([], [job], error);
      }
    }
  }
}
