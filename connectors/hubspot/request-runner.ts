/**
 * Every HubSpot call of one connection goes through here: the connection's rate limiter, call
 * counting, and the answer to failures. The SDK's own retry stays off because it ignores Retry-After
 * and cannot tell a ten-secondly 429 (wait and go on) from a DAILY one (stop until the reset).
 */
import { AppError } from '../../src/core/errors.js';
import { networkMessage } from '../../src/core/network-failure.js';
import { CrmError, type ConnectorStats } from '../../src/core/connector.js';
import type { Priority, RateLimiter } from '../../src/core/limiter.js';
import { logger } from '../../src/logger.js';
import { asHubspotFailure, isDailyLimit, nextDailyReset, rateLimitWaitMs, toCrmError } from './http-errors.js';

export interface RequestRunnerOptions {
  limiter: RateLimiter;
  /** Search has its own, lower limit at HubSpot (about 5 per second). */
  searchLimiter?: RateLimiter;
  /** Ten-secondly 429s waited out before giving up with `rate_limited`. */
  maxRateLimitRetries?: number;
  /** 5xx answers and connection failures retried with backoff. */
  maxServerRetries?: number;
  now?: () => number;
  /** The portal's time zone once read (its daily limit resets at midnight there). */
  timeZone?: () => string | undefined;
}

const log = logger('connector.hubspot');

export class HubspotRequestRunner {
  private calls = 0;
  private readonly byOperation: Record<string, number> = {};
  private dailyBlockedUntil = 0;
  private closed = false;

  constructor(private readonly options: RequestRunnerOptions) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  async run<T>(
    operation: string,
    priority: Priority,
    call: () => Promise<T>,
    kind: 'crud' | 'search' = 'crud',
  ): Promise<T> {
    let rateRetries = 0;
    let serverRetries = 0;
    for (;;) {
      if (this.closed) throw new CrmError('hubspot', 'unavailable', 'The HubSpot connector is closed.');
      if (this.now() < this.dailyBlockedUntil) {
        const resetAt = new Date(this.dailyBlockedUntil).toISOString();
        throw new CrmError(
          'hubspot',
          'daily_limit',
          `HubSpot's daily API limit for this portal is spent; no calls are made until ${resetAt}.`,
          undefined,
          resetAt,
          { operation },
        );
      }
      try {
        const counted = () => {
          this.calls++;
          this.byOperation[operation] = (this.byOperation[operation] ?? 0) + 1;
          return call();
        };
        const limited = () => this.options.limiter.schedule(priority, counted);
        return await (kind === 'search' && this.options.searchLimiter
          ? this.options.searchLimiter.schedule(priority, limited)
          : limited());
      } catch (error) {
        if (error instanceof AppError) throw error;
        const failure = asHubspotFailure(error);
        if (!failure) {
          if (serverRetries++ < (this.options.maxServerRetries ?? 2)) {
            await sleep(250 * 2 ** serverRetries);
            continue;
          }
          throw new CrmError(
            'hubspot',
            'unavailable',
            `HubSpot could not be reached for ${operation}: ${networkMessage(error)}. Check HUBSPOT_BASE_URL ` +
              'and the network.',
            undefined,
            undefined,
            { operation },
          );
        }
        if (failure.status === 429 && isDailyLimit(failure)) {
          this.dailyBlockedUntil = Date.parse(nextDailyReset(this.now(), this.options.timeZone?.()));
          const error = toCrmError(failure, operation, this.now(), this.options.timeZone?.());
          log.error(
            { operation, resetAt: error.resetAt },
            'HubSpot daily API limit reached; calls stop until the reset',
          );
          throw error;
        }
        if (failure.status === 429 && rateRetries++ < (this.options.maxRateLimitRetries ?? 4)) {
          const waitMs = rateLimitWaitMs(failure);
          log.warn(
            { operation, waitMs, attempt: rateRetries },
            'HubSpot rate limit answered 429; waiting before the next try',
          );
          await sleep(waitMs);
          continue;
        }
        if (failure.status >= 500 && serverRetries++ < (this.options.maxServerRetries ?? 2)) {
          await sleep(250 * 2 ** serverRetries);
          continue;
        }
        throw toCrmError(failure, operation, this.now(), this.options.timeZone?.());
      }
    }
  }

  stats(): ConnectorStats {
    return { calls: this.calls, byOperation: { ...this.byOperation } };
  }

  close(): void {
    this.closed = true;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
