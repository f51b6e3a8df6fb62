/**
 * Work that competes for one rate limit. Interactive work (a record a person just created, an admin
 * asking for one record) goes ahead of bulk work (refresh, backfill).
 */
export type Priority = 'interactive' | 'bulk';

/** The slot a task was given. */
export interface DispatchSlot {
  /**
   * The request leaves now. A task that does work of its own between its slot and its request (such
   * as reserving a credit) calls this right before sending, so time lost in between is counted
   * against the limit before later slots are given, not only once the answer is back.
   */
  sending(): void;
}

export interface RateLimiter {
  /** Runs `task` when the limit allows; the returned promise settles with the task's result. */
  schedule<T>(priority: Priority, task: (slot: DispatchSlot) => Promise<T>): Promise<T>;
  /** Waits for queued work to be rejected and releases connections. */
  stop(): Promise<void>;
}
