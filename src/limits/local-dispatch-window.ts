import { performance } from 'node:perf_hooks';
import { URGENT_GRACE_MS, type DispatchWindow, type WindowRule } from './dispatch-window.js';
import { LimiterError } from './limiter-error.js';

/**
 * The dispatch rule, kept in memory:
 *
 * 1. A log of the last `max` dispatch times, sorted. A dispatch is allowed only when the one `max`
 *    places back is at least `horizonMs` old, so no window of `horizonMs` ever holds more than `max`.
 *    This is the strict guarantee; it depends on no timer being punctual. An entry can be moved
 *    later (`postpone`) when the request turned out to reach the provider later than claimed.
 * 2. A pace (the theoretical arrival time of the generic cell rate algorithm): dispatches are
 *    spread `spacingMs` apart, so requests do not reach the provider in bursts whose arrival
 *    jitter could crowd a window. A late timer does not push later slots back (the pace advances
 *    from its own schedule, not from the late moment), and a pace that fell behind (a slot held back
 *    by a late departure in the log) catches up by up to `catchUpMs` worth of slots at once: that
 *    is what keeps the rate near the limit.
 * 3. Priority across the limiters sharing the window: a bulk claim waits while an interactive claim
 *    of any of them is waiting for its turn (see DispatchWindow.tryClaim).
 */
export class LocalDispatchWindow implements DispatchWindow {
  private readonly log: { ticket: string; at: number }[] = [];
  private nextAt = 0;
  /** Limiters whose interactive work waits for a slot, and until when that keeps bulk claims back. */
  private readonly urgent = new Map<string, number>();

  constructor(
    private readonly rule: WindowRule,
    private readonly now: () => number = () => performance.now(),
  ) {}

  tryClaim(ticket: string, urgentFor?: string): Promise<number> {
    return Promise.resolve(this.claimAt(ticket, urgentFor));
  }

  /** The synchronous claim, at the window's clock. */
  claimAt(ticket: string, urgentFor?: string): number {
    const { max, horizonMs, spacingMs, catchUpMs } = this.rule;
    const now = this.now();
    while (this.log.length > 0 && this.log[0]!.at <= now - horizonMs) this.log.shift();
    for (const [holder, until] of this.urgent) if (until <= now) this.urgent.delete(holder);
    let wait = this.nextAt - now;
    if (this.log.length >= max) wait = Math.max(wait, this.log[this.log.length - max]!.at + horizonMs - now);
    // Bulk waits while interactive work is waiting for a slot anywhere, asking again a slot's spacing
    // later: the interactive claim usually takes its slot well before its mark runs out.
    if (urgentFor === undefined)
      for (const until of this.urgent.values()) wait = Math.max(wait, Math.min(until - now, spacingMs));
    if (wait > 0) {
      if (urgentFor !== undefined) this.urgent.set(urgentFor, now + wait + URGENT_GRACE_MS);
      return wait;
    }
    if (urgentFor !== undefined) this.urgent.delete(urgentFor);
    this.insert({ ticket, at: now });
    if (this.log.length > max) this.log.shift();
    this.nextAt = Math.max(this.nextAt, now - catchUpMs) + spacingMs;
    return 0;
  }

  postpone(ticket: string, byMs: number): Promise<void> {
    const index = this.log.findIndex((e) => e.ticket === ticket);
    if (index >= 0) {
      const [entry] = this.log.splice(index, 1);
      this.insert({ ticket, at: entry!.at + byMs });
    }
    return Promise.resolve();
  }

  /** Keeps the log sorted: a postponed entry may be later than a newer claim. */
  private insert(entry: { ticket: string; at: number }): void {
    let to = this.log.length;
    while (to > 0 && this.log[to - 1]!.at > entry.at) to--;
    this.log.splice(to, 0, entry);
  }

  /** In-process: always reachable. */
  async check(): Promise<void> {}

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const shared = new Map<string, { window: LocalDispatchWindow; rule: WindowRule; users: number }>();

/**
 * Limiters created with the same id in one process share one window: the limit belongs to the
 * key, not to whichever part of the service happened to build a limiter for it.
 */
export function localWindowFor(id: string, rule: WindowRule): DispatchWindow {
  let entry = shared.get(id);
  if (entry && (entry.rule.max !== rule.max || entry.rule.horizonMs !== rule.horizonMs)) {
    throw new LimiterError(
      'invalid_limiter_options',
      `Rate limiter ${id} already exists in this process with max ${entry.rule.max} per ` +
        `${entry.rule.horizonMs} ms (window plus margin); use the same options or another id.`,
    );
  }
  if (!entry) {
    entry = { window: new LocalDispatchWindow(rule), rule, users: 0 };
    shared.set(id, entry);
  }
  entry.users++;
  const held = entry;
  let closed = false;
  return {
    tryClaim: (ticket, urgentFor) => held.window.tryClaim(ticket, urgentFor),
    postpone: (ticket, byMs) => held.window.postpone(ticket, byMs),
    check: () => held.window.check(),
    close: async () => {
      if (closed) return;
      closed = true;
      if (--held.users === 0) shared.delete(id);
    },
  };
}
