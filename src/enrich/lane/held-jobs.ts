/**
 * The jobs a lane holds (claimed, not yet settled) and what it owes the queue for them: settling each
 * one exactly once, and a heartbeat that vouches for all of them so no other worker is handed them
 * while they wait or work. What an error means for a job (put back unspent, or fail) is decided here too.
 */
import { CrmError } from '../../core/connector.js';
import { LimiterError } from '../../limits/limiter-error.js';
import { failureOf } from './job-failure.js';
import type { EnrichJob } from '../jobs.js';
import { BudgetExhaustedError } from '../partner-lookups.js';
import type { JobFailure, JobQueuePort } from '../ports.js';

/** What to do with the jobs an error stopped. */
export type Disposition = { action: 'release'; delayMs: number } | { action: 'fail'; failure: JobFailure };

/**
 * Waiting is not failing: work that never started (the limiter stopped for a shutdown, or full), a
 * spent budget and a CRM rate limit put the job back without spending an attempt; anything else
 * is a failure, retried or parked by the queue as `retryable` says.
 */
export function dispositionOf(error: unknown, stopping: boolean): Disposition {
  if (stopping && error instanceof LimiterError && error.code === 'limiter_stopped')
    return { action: 'release', delayMs: 0 };
  if (error instanceof LimiterError && error.code === 'limiter_full') return { action: 'release', delayMs: 1_000 };
  if (error instanceof BudgetExhaustedError) return { action: 'release', delayMs: 60_000 };
  if (error instanceof CrmError && error.code === 'rate_limited' && error.retryAfterMs !== undefined)
    return { action: 'release', delayMs: error.retryAfterMs };
  return { action: 'fail', failure: failureOf(error) };
}

export class HeldJobs {
  private readonly held = new Map<string, EnrichJob>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly queue: JobQueuePort,
    private readonly queueName: string,
    private readonly onError: (error: Error) => void,
  ) {}

  get size(): number {
    return this.held.size;
  }

  add(jobs: EnrichJob[]): void {
    for (const job of jobs) this.held.set(job.id, job);
  }

  all(): EnrichJob[] {
    return [...this.held.values()];
  }

  async complete(jobs: EnrichJob[]): Promise<void> {
    await this.queue.complete(this.queueName, jobs);
    this.forget(jobs);
  }

  async release(jobs: EnrichJob[], delayMs: number): Promise<void> {
    await this.queue.release(this.queueName, jobs, delayMs);
    this.forget(jobs);
  }

  async fail(jobs: EnrichJob[], failure: JobFailure): Promise<void> {
    for (const job of jobs) {
      await this.queue.fail(this.queueName, job, failure);
      this.held.delete(job.id);
    }
  }

  /**
   * Stops vouching for these jobs without settling them (their settle failed): once stale, another
   * worker is handed them.
   */
  forget(jobs: Iterable<EnrichJob>): void {
    for (const job of jobs) this.held.delete(job.id);
  }

  /** Stops vouching for every job of these records. */
  forgetRecords(recordIds: ReadonlySet<string>): void {
    for (const [id, job] of this.held) if (recordIds.has(job.data.recordId)) this.held.delete(id);
  }

  startHeartbeat(everyMs: number): void {
    this.stopHeartbeat();
    this.timer = setInterval(() => void this.beat(), everyMs);
    this.timer.unref();
  }

  stopHeartbeat(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async beat(): Promise<void> {
    if (this.held.size === 0) return;
    try {
      await this.queue.heartbeat(this.queueName, this.all());
    } catch (error) {
      // A missed beat is harmless unless the store stays away for the whole stale interval.
      this.onError(error as Error);
    }
  }
}
