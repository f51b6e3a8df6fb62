/**
 * The sweeps JOB_CHANGE_CRON runs: every segment the actions file's `sweep` section names, for the
 * connections this service has, one after the other. A segment that cannot be swept (a CRM error, a
 * refused condition) is reported with its reason and does not stop the others.
 */
import { AppError } from '../../core/errors.js';
import type { ScheduledSweep } from '../../mapping/job-change-actions.js';
import type { SweepSummary } from './sweep.js';

export type ScheduledSweepResult = { connection: string; object: string } & (
  { summary: SweepSummary } | { error: string }
);

export async function runScheduledSweeps(
  sweep: { run(body: unknown, now?: Date): Promise<SweepSummary> },
  segments: Readonly<Record<string, readonly ScheduledSweep[]>>,
  connections: readonly string[],
  now: Date,
): Promise<ScheduledSweepResult[]> {
  const results: ScheduledSweepResult[] = [];
  for (const [connection, entries] of Object.entries(segments)) {
    if (!connections.includes(connection)) continue;
    for (const entry of entries) {
      const { object } = entry;
      try {
        results.push({ connection, object, summary: await sweep.run({ connection, ...entry }, now) });
      } catch (error) {
        // The code only: a CRM's message may quote the segment's values.
        results.push({ connection, object, error: error instanceof AppError ? error.code : 'error' });
      }
    }
  }
  return results;
}
