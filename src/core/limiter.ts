/**
 * Work that competes for one rate limit. Interactive work (a record a person just created, an admin
 * asking for one record) goes ahead of bulk work (refresh, backfill).
 */
export type Priority = 'interactive' | 'bulk';

export interface RateLimiter {
  /** Runs `task` when the limit allows; the returned promise settles with the task's result. */
  schedule<T>(priority: Priority, task: () => Promise<T>): Promise<T>;
  /** Waits for queued work to be rejected and releases connections. */
  stop(): Promise<void>;
}
