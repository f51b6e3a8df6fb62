/** Enrichment an admin asks for on one record ("enrich now"): a job a person is waiting for. */
import type { Priority } from '../../core/limiter.js';
import { queueName } from '../jobs.js';
import type { EnqueuePort } from '../ports.js';

export interface EnrichNowDeps {
  /** Stores the job; storing it wakes its lane (waking-enqueue.ts). */
  enqueue: EnqueuePort;
}

/** Enqueues one record as interactive work (its lane wakes as it is stored). */
export async function enrichNow(
  deps: EnrichNowDeps,
  connection: string,
  objectType: string,
  recordId: string,
): Promise<{ queued: boolean }> {
  const priority: Priority = 'interactive';
  const result = await deps.enqueue.enqueue([
    {
      queue: queueName(connection, objectType),
      dedupKey: `manual:${connection}:${objectType}:${recordId}:${Date.now()}`,
      priority,
      data: { connection, objectType, recordId, reason: 'manual', receivedAt: new Date().toISOString() },
    },
  ]);
  return { queued: result.inserted > 0 };
}
