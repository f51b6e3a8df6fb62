/** Jobs that touch only our own records: privacy deletions and deletions erase, merges carry state over. */
import { logger } from '../../logger.js';
import type { EnrichJob } from '../jobs.js';
import type { ErasurePort } from '../ports.js';

const log = logger('enrich.housekeeping');

export async function housekeep(
  job: EnrichJob,
  connection: string,
  erasure: ErasurePort,
): Promise<'merged' | 'erased'> {
  const { recordId, objectType } = job.data;
  if (job.data.reason === 'merged') {
    await erasure.mergeState(connection, objectType, recordId, job.data.mergedIds ?? []);
    return 'merged';
  }
  const erased = await erasure.eraseRecord(connection, objectType, recordId);
  for (const email of job.data.emails ?? []) await erasure.eraseEmail(email);
  log.info({ reason: job.data.reason, erased }, 'erased what was held about a record');
  return 'erased';
}
