/**
 * The settle step: a lane's claimed jobs finished. A record's outcome is stored as state and audit rows in
 * one transaction (outcomeRows, the one place those rows are made), then its jobs are completed; an error
 * puts the jobs it stopped back unspent, retries them or parks them. Jobs are settled only after their
 * record's outcome is stored, so a crash leaves them to be claimed again. Each function returns what it
 * settled, counted by outcome, for the lane to report; a store that refuses throws.
 */
import { logger } from '../../logger.js';
import { dispositionOf, type HeldJobs } from './held-jobs.js';
import type { EnrichJob, JobOutcome } from '../jobs.js';
import type { StatePort } from '../ports.js';
import { reportedOutcome, type SettledRun } from '../record/run-outcome.js';
import { outcomeRows } from '../record/outcome-rows.js';

const log = logger('enrich.lane');

export interface SettleContext {
  /** The lane's claimed jobs, through which the queue is told. */
  held: Pick<HeldJobs, 'complete' | 'release' | 'fail'>;
  state: Pick<StatePort, 'store'>;
  where: { connection: string; objectType: string; refreshAfterDays: number };
  queue: string;
}

/** Jobs settled, by what they came to. */
export type JobCount = { outcome: JobOutcome; count: number };

/** Stores each record's outcome, then completes its jobs. */
export async function settleRuns(ctx: SettleContext, runs: SettledRun[]): Promise<JobCount[]> {
  if (runs.length === 0) return [];
  const { states, audit } = outcomeRows(ctx.where, runs);
  await ctx.state.store(states, audit);
  await ctx.held.complete(runs.flatMap((o) => o.jobs));
  const counts = new Map<JobOutcome, number>();
  for (const o of runs) counts.set(reportedOutcome(o), (counts.get(reportedOutcome(o)) ?? 0) + o.jobs.length);
  return [...counts].map(([outcome, count]) => ({ outcome, count }));
}

/** Completes jobs that need no record outcome (a housekeeping job, an echo), counted as `outcome`. */
export async function completeJobs(ctx: SettleContext, jobs: EnrichJob[], outcome: JobOutcome): Promise<JobCount[]> {
  if (jobs.length === 0) return [];
  await ctx.held.complete(jobs);
  return [{ outcome, count: jobs.length }];
}

/** Puts jobs back unspent, to be claimed again after `delayMs`; not counted. */
export async function releaseJobs(ctx: SettleContext, jobs: EnrichJob[], delayMs: number): Promise<void> {
  if (jobs.length) await ctx.held.release(jobs, delayMs);
}

/**
 * Puts the jobs back unspent, or fails them (retried or parked with the reason), as the error says;
 * `stopping`: the lane shuts down, so work the stopped limiter refused goes back at once.
 */
export async function failJobs(
  ctx: SettleContext,
  jobs: EnrichJob[],
  error: unknown,
  stopping: boolean,
): Promise<JobCount[]> {
  if (jobs.length === 0) return [];
  const disposition = dispositionOf(error, stopping);
  if (disposition.action === 'release') {
    await ctx.held.release(jobs, disposition.delayMs);
    return [{ outcome: 'released', count: jobs.length }];
  }
  const { failure } = disposition;
  await ctx.held.fail(jobs, failure);
  log.warn({ queue: ctx.queue, code: failure.code, jobs: jobs.length, retryable: failure.retryable }, failure.message);
  return [{ outcome: failure.retryable ? 'retried' : 'failed', count: jobs.length }];
}
