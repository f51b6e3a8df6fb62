/**
 * The one place a record's run becomes the outcome it is settled with (state and audit rows come from
 * it in outcome-rows.ts), and the one place that says what the run counts as in the lane's reports.
 */
import type { CompanyLinkPlan } from '../employers/company-link.js';
import type { EnrichJob, JobOutcome } from '../jobs.js';
import type { PipelineState } from '../ports.js';
import type { RecordPlan } from './record-plan.js';
import type { RecordOutcome } from './outcome-rows.js';

/** A record's run as far as settling it needs: its jobs and the state it started from. */
export interface RunStart {
  recordId: string;
  jobs: EnrichJob[];
  state?: PipelineState | undefined;
}

export type SettledRun = RecordOutcome & { jobs: EnrichJob[] };

/**
 * `result`: the plan (written or with nothing to write), or `unchanged` (a refresh found what was
 * applied last time); `done`: what the run wrote and how the record was linked with its company.
 */
export function runOutcome(
  run: RunStart,
  result: RecordPlan | 'unchanged',
  done: { written?: Record<string, string>; link?: CompanyLinkPlan | undefined } = {},
): SettledRun {
  return {
    recordId: run.recordId,
    jobs: run.jobs,
    jobId: run.jobs[0]?.id ?? null,
    ...(run.state ? { previous: run.state } : {}),
    result,
    ...(done.written ? { written: done.written } : {}),
    ...(done.link ? { link: done.link } : {}),
  };
}

/** What a settled run counts as: enriched when it wrote, else what its plan found. */
export function reportedOutcome(outcome: SettledRun): JobOutcome {
  if (outcome.result === 'unchanged') return 'unchanged';
  if (outcome.written && Object.keys(outcome.written).length > 0) return 'enriched';
  if (outcome.link?.action === 'associate') return 'enriched';
  switch (outcome.result.kind) {
    case 'created':
      return 'enriched';
    case 'planned':
      return 'unchanged';
    case 'no_match':
      return 'no_match';
    case 'no_key':
      return 'skipped';
  }
}
