/**
 * Where the record of recent dispatches lives: in this process, or in Redis when several
 * processes share one limit. Both apply the same rule (see local-dispatch-window.ts).
 */
export interface DispatchWindow {
  /**
   * Claims a dispatch now, recorded under `ticket`, when the rule allows it and returns 0;
   * otherwise the milliseconds to wait before asking again.
   *
   * `urgentFor` names the limiter asking for interactive work. While such a claim waits for the
   * window, every limiter sharing it holds its bulk claims back until that slot is taken (or the
   * waiting claim is not renewed for URGENT_GRACE_MS past its turn, its process gone): a person's
   * work on one instance is not queued behind a backfill running on another.
   */
  tryClaim(ticket: string, urgentFor?: string): Promise<number>;
  /** Counts the dispatch recorded under `ticket` as `byMs` later than it was claimed. */
  postpone(ticket: string, byMs: number): Promise<void>;
  /** Throws when the store of the window cannot be reached (for readiness reports). */
  check(): Promise<void>;
  close(): Promise<void>;
}

/** How long past its turn a waiting interactive claim keeps bulk claims back without being renewed. */
export const URGENT_GRACE_MS = 50;

export interface WindowRule {
  max: number;
  /** The window plus the margin: how long each dispatch counts against the limit. */
  horizonMs: number;
  /** horizonMs / max: the even pace that uses the whole allowance without bursts. */
  spacingMs: number;
  /**
   * How far behind its schedule the pace may fall and then catch up: slots given at once after it fell
   * behind. A request that left late holds back the one `max` places after it; with room to catch up, the
   * ones after that go together, as the log allows, rather than each a spacing later, and the late
   * departure is not lost for good. The log still holds no more than `max` in any horizon; only the
   * spread within it changes. One spacing (a single slot) unless the limiter is told otherwise.
   */
  catchUpMs: number;
}

export function windowRule(max: number, windowMs: number, marginMs: number, catchUpSlots = 1): WindowRule {
  const horizonMs = windowMs + marginMs;
  const spacingMs = horizonMs / max;
  return { max, horizonMs, spacingMs, catchUpMs: spacingMs * Math.min(catchUpSlots, Math.max(1, max - 1)) };
}
