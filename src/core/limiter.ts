/**
 * Work that competes for one rate limit. Interactive work (a record a person just created, an admin
 * asking for one record) goes ahead of bulk work (refresh, backfill).
 */
export type Priority = 'interactive' | 'bulk';

/** The slot a task was given. */
export interface DispatchSlot {
  /**
   * The request leaves now (its bytes are written to the socket). A task that says so has the time
   * lost between its slot and its request (reserving a credit, a held event loop) counted against the
   * limit at once, before later slots are given, and nothing after: how long its answer takes to come
   * back no longer matters to the limit. A task that does not say so is judged by its whole duration.
   */
  sending(): void;
}

export interface RateLimiter {
  /** Runs `task` when the limit allows; the returned promise settles with the task's result. */
  schedule<T>(priority: Priority, task: (slot: DispatchSlot) => Promise<T>): Promise<T>;
  /** Waits for queued work to be rejected and releases connections. */
  stop(): Promise<void>;
}
