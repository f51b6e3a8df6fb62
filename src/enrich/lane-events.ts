/** What a lane reports, for metrics and logs; the service decides what to do with it. */
export type JobOutcome =
  'echo' | 'enriched' | 'unchanged' | 'no_match' | 'skipped' | 'failed' | 'retried' | 'released' | 'erased' | 'merged';

export interface LaneEvents {
  job: [{ outcome: JobOutcome; count: number }];
  written: [{ receivedAt: string[] }];
  error: [Error];
}
