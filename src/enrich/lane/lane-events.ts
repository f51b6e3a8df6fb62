/** What a lane reports, for metrics and logs; the service decides what to do with it. */
import type { JobOutcome } from '../jobs.js';

/** Today's count of changes made with the service's token that it did not make (admin stats). */
export const FOREIGN_TOKEN_COUNTER = 'foreign_token_changes';

export interface LaneEvents {
  job: [{ outcome: JobOutcome; count: number }];
  written: [{ receivedAt: string[] }];
  /** Changes and creations made with the service's token that the service did not make (a script reusing it). */
  foreignToken: [{ crm: string; count: number }];
  error: [Error];
}
