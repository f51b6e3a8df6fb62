/**
 * The settling half of a lane: a record's outcome stored as state and audit rows in one transaction
 * (outcomeRows, the one place those rows are made), then its jobs completed and the outcome reported;
 * and what an error means for the jobs it stopped (put back unspent, retried, or parked). Jobs are
 * settled only after their record's outcome is stored, so a crash leaves them to be claimed again.
 */
import type { EventEmitter } from 'node:events';
import { logger } from '../../logger.js';
import { dispositionOf, type HeldJobs } from './held-jobs.js';
import type { EnrichJob } from '../jobs.js';
import type { JobOutcome, LaneEvents } from './lane-events.js';
import type { StatePort } from '../ports.js';
import { reportedOutcome, type SettledRun } from '../record/run-outcome.js';
import { outcomeRows } from '../record/outcome-rows.js';

const log = logger('enrich.lane');

export interface LaneSettlerOptions {
  held: HeldJobs;
  state: StatePort;
  where: { connection: string; objectType: string; refreshAfterDays: number };
  queue: string;
  /** Aborted while the lane shuts down: work the stopped limiter refused goes back at once. */
  stopping: AbortSignal;
  /** Where outcomes are reported (the lane's events). */
  events: Pick<EventEmitter<LaneEvents>, 'emit'>;
}

export class LaneSettler {
  constructor(private readonly options: LaneSettlerOptions) {}

  /** Stores each record's outcome, then settles its jobs and reports what each run came to. */
  async settle(outcomes: SettledRun[]): Promise<void> {
    if (outcomes.length === 0) return;
    const { states, audit } = outcomeRows(this.options.where, outcomes);
    await this.options.state.settle(states, audit);
    await this.options.held.complete(outcomes.flatMap((o) => o.jobs));
    const counts = new Map<JobOutcome, number>();
    for (const o of outcomes) counts.set(reportedOutcome(o), (counts.get(reportedOutcome(o)) ?? 0) + o.jobs.length);
    for (const [outcome, count] of counts) this.report(outcome, count);
  }

  /** Completes jobs that need no record outcome (a housekeeping job), reporting them as `outcome`. */
  async complete(jobs: EnrichJob[], outcome: JobOutcome): Promise<void> {
    await this.options.held.complete(jobs);
    this.report(outcome, jobs.length);
  }

  release(jobs: EnrichJob[], delayMs: number): Promise<void> {
    return this.options.held.release(jobs, delayMs);
  }

  /** Puts the jobs back unspent, or fails them (retried or parked with the reason), as the error says. */
  async fail(jobs: EnrichJob[], error: unknown): Promise<void> {
    if (jobs.length === 0) return;
    const disposition = dispositionOf(error, this.options.stopping.aborted);
    try {
      if (disposition.action === 'release') {
        await this.options.held.release(jobs, disposition.delayMs);
        this.report('released', jobs.length);
        return;
      }
      const { failure } = disposition;
      await this.options.held.fail(jobs, failure);
      this.report(failure.retryable ? 'retried' : 'failed', jobs.length);
      log.warn(
        { queue: this.options.queue, code: failure.code, jobs: jobs.length, retryable: failure.retryable },
        failure.message,
      );
    } catch (storeError) {
      // The jobs stay claimed; once they lose the heartbeat another worker gets them.
      this.options.events.emit('error', storeError as Error);
    }
  }

  private report(outcome: JobOutcome, count: number): void {
    this.options.events.emit('job', { outcome, count });
  }
}
