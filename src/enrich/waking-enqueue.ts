/**
 * Stored work wakes its lane. Every producer (the intake, the employer resolver, backfills, the job-change
 * sweep, on-demand requests) stores jobs through this port; once they are stored, the lane of each queue
 * they went to is woken once, as interactive when any of its jobs is. No producer holds a way
 * back into the engine: "work stored, wake the lane" is said here only.
 */
import type { Priority } from '../core/limiter.js';
import type { EnqueuePort, NewJob } from './ports.js';

export type WakeLane = (connection: string, objectType: string, priority: Priority) => void;

export function wakingEnqueue(inner: EnqueuePort, wake: WakeLane): EnqueuePort {
  return {
    async enqueue(jobs: NewJob[]) {
      const result = await inner.enqueue(jobs);
      // One wake per lane, interactive if any of its jobs is. A job already waiting under the same key
      // wakes its lane too: the store may have raised its priority, and a wake that finds nothing is cheap.
      const lanes = new Map<string, NewJob>();
      for (const job of jobs) if (lanes.get(job.queue)?.priority !== 'interactive') lanes.set(job.queue, job);
      for (const { data, priority } of lanes.values()) wake(data.connection, data.objectType, priority);
      return result;
    },
  };
}
