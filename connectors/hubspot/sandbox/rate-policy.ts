/**
 * HubSpot's API limits for one portal: a rolling ten-second window and a daily allocation, reported on
 * every answer in the X-HubSpot-RateLimit-* headers and enforced with HubSpot's 429 body.
 */
import { nextDailyReset } from '../http-errors.js';

export type SandboxTier = 'starter' | 'pro';

export const TIER_LIMITS: Record<SandboxTier, { perWindow: number; daily: number }> = {
  starter: { perWindow: 100, daily: 250_000 },
  pro: { perWindow: 190, daily: 625_000 },
};

export type RateDecision =
  | { ok: true; headers: Record<string, string> }
  | { ok: false; policyName: 'TEN_SECONDLY_ROLLING' | 'DAILY'; headers: Record<string, string> };

export class RatePolicy {
  private readonly calls: number[] = [];
  private usedToday = 0;
  private day: string;

  constructor(
    readonly perWindow: number,
    readonly windowMs: number,
    readonly daily: number,
    private readonly now: () => number = Date.now,
    /** The portal's zone: the daily allocation resets at midnight there, not in UTC. */
    readonly timeZone = 'UTC',
  ) {
    this.day = this.today();
  }

  /** Counts one call if the limits allow it. */
  take(): RateDecision {
    const now = this.now();
    if (this.today() !== this.day) {
      this.day = this.today();
      this.usedToday = 0;
    }
    while (this.calls.length > 0 && (this.calls[0] ?? 0) <= now - this.windowMs) this.calls.shift();
    if (this.usedToday >= this.daily) return { ok: false, policyName: 'DAILY', headers: this.headers() };
    if (this.calls.length >= this.perWindow)
      return { ok: false, policyName: 'TEN_SECONDLY_ROLLING', headers: this.headers() };
    this.calls.push(now);
    this.usedToday++;
    return { ok: true, headers: this.headers() };
  }

  /** Spends the rest of today's allocation, so the next call meets the DAILY limit. */
  exhaustDaily(): void {
    this.usedToday = this.daily;
  }

  private headers(): Record<string, string> {
    return {
      'X-HubSpot-RateLimit-Max': String(this.perWindow),
      'X-HubSpot-RateLimit-Remaining': String(Math.max(0, this.perWindow - this.calls.length)),
      'X-HubSpot-RateLimit-Interval-Milliseconds': String(this.windowMs),
      'X-HubSpot-RateLimit-Daily': String(this.daily),
      'X-HubSpot-RateLimit-Daily-Remaining': String(Math.max(0, this.daily - this.usedToday)),
    };
  }

  /** Today's calls and allocation, and when it resets (as GET /account-info/v3/api-usage/daily/private-apps tells). */
  usage(): { usageLimit: number; currentUsage: number; resetsAt: string; collectedAt: string } {
    if (this.today() !== this.day) {
      this.day = this.today();
      this.usedToday = 0;
    }
    return {
      usageLimit: this.daily,
      currentUsage: this.usedToday,
      resetsAt: nextDailyReset(this.now(), this.timeZone),
      collectedAt: new Date(this.now()).toISOString(),
    };
  }

  private today(): string {
    return new Intl.DateTimeFormat('en-CA', {
      timeZone: this.timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).format(new Date(this.now()));
  }
}
