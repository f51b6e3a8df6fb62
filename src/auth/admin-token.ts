/**
 * The admin token check, shared by the admin API and the MCP consent page. The comparison takes the
 * same time whatever the token, and an address that sends wrong tokens is slowed down: past
 * `maxFailures` in `windowMs` every request from it gets 429 with Retry-After (the right token too, or
 * the answer would tell a guesser when it hit), until its oldest failure leaves the window, at most a
 * minute by default.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { logger } from '../logger.js';

const log = logger('auth.admin-token');
const digest = (value: string) => createHash('sha256').update(value).digest();

export interface ThrottleOptions {
  maxFailures?: number;
  windowMs?: number;
  now?: () => number;
}

/** Addresses remembered at most; the oldest are forgotten first, so a flood of addresses cannot grow it. */
const MAX_ADDRESSES = 10_000;

export class FailureThrottle {
  private readonly failures = new Map<string, number[]>();
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(options: ThrottleOptions = {}) {
    this.maxFailures = options.maxFailures ?? 10;
    this.windowMs = options.windowMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Milliseconds the address must wait, or 0 when it may try. */
  waitFor(address: string): number {
    const recent = this.recent(address);
    if (recent.length < this.maxFailures) return 0;
    return recent[recent.length - this.maxFailures]! + this.windowMs - this.now();
  }

  fail(address: string): void {
    const recent = this.recent(address);
    recent.push(this.now());
    this.failures.delete(address);
    this.failures.set(address, recent.slice(-this.maxFailures));
    if (this.failures.size > MAX_ADDRESSES) this.failures.delete(this.failures.keys().next().value!);
  }

  private recent(address: string): number[] {
    const since = this.now() - this.windowMs;
    return (this.failures.get(address) ?? []).filter((t) => t > since);
  }
}

/**
 * The admin token check itself, shared by the admin API and the MCP consent page: one throttle per
 * service, so wrong tokens count the same wherever they are tried.
 */
export class AdminTokenCheck {
  private readonly expected: Buffer;

  constructor(
    adminToken: string,
    readonly throttle = new FailureThrottle(),
  ) {
    this.expected = digest(adminToken);
  }

  /** Milliseconds the address must wait before its next try, or 0. */
  waitFor(address: string): number {
    return this.throttle.waitFor(address);
  }

  /** Whether `token` is the admin token; a wrong one counts against the address. */
  matches(address: string, token: string, where: string): boolean {
    // Hashing both sides gives equal lengths, so timingSafeEqual never short-circuits on length.
    if (timingSafeEqual(digest(token.trim()), this.expected)) return true;
    this.throttle.fail(address);
    log.warn({ address, where }, 'a wrong admin token was sent');
    return false;
  }
}
