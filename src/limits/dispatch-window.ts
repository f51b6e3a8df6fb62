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
  /** How far behind its schedule the pace may fall and then catch up (CATCH_UP_SLOTS spacings). */
  catchUpMs: number;
}

/**
 * Slots the pace may give at once after it fell behind: a request that left late holds back the one
 * `max` places after it, and the ones after that may then go together, as the log allows, rather than
 * each a spacing later. Without it every late departure was lost for good: with the embedded database
 * holding some credit reservations 50-300 ms, an import kept the key at 0.92 of its limit. The log
 * still holds no more than `max` in any horizon; only the spread within it changes.
 */
export const CATCH_UP_SLOTS = 4;

export function windowRule(max: number, windowMs: number, marginMs: number): WindowRule {
  const horizonMs = windowMs + marginMs;
  const spacingMs = horizonMs / max;
  return { max, horizonMs, spacingMs, catchUpMs: spacingMs * Math.min(CATCH_UP_SLOTS, Math.max(1, max - 1)) };
}
