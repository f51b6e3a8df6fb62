import type { RateLimiter } from '../core/limiter.js';
import { windowRule } from './dispatch-window.js';
import { localWindowFor } from './local-dispatch-window.js';
import { parseLimiterOptions, type LimiterOptions } from './limiter-options.js';
import { RedisDispatchWindow } from './redis-dispatch-window.js';
import { SlidingWindowLimiter, type LimiterCounts, type LimiterEvents } from './sliding-window-limiter.js';

export type { LimiterCounts, LimiterEvents, LimiterOptions };

export type SharedRateLimiter = RateLimiter &
  Pick<SlidingWindowLimiter, 'id' | 'on' | 'off' | 'once' | 'counts' | 'check'>;

/**
 * The one rate limiter factory of the project: one limiter per partner API key (50 per 1000 ms),
 * one per CRM connection. No sliding window of `windowMs` ever holds more than `max` dispatches
 * (each counts for `windowMs + marginMs`); with `redisUrl`, across every process using the same `id`.
 * Throws LimiterError `invalid_limiter_options` naming the bad option.
 */
export function createRateLimiter(options: LimiterOptions): SharedRateLimiter {
  const { id, max, windowMs, marginMs, redisUrl, concurrency, maxQueued, catchUpSlots } = parseLimiterOptions(options);
  const rule = windowRule(max, windowMs, marginMs, catchUpSlots);
  let limiter: SlidingWindowLimiter | undefined;
  const window = redisUrl
    ? new RedisDispatchWindow(redisUrl, id, rule, (error) => {
        // An 'error' event with no listener would crash the process; work that needs Redis is
        // rejected with its own error anyway.
        if (limiter && limiter.listenerCount('error') > 0) limiter.emit('error', error);
      })
    : localWindowFor(id, rule);
  limiter = new SlidingWindowLimiter(id, window, marginMs, concurrency, maxQueued);
  return limiter;
}
