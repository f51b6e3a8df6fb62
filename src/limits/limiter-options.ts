import { z } from 'zod';
import { LimiterError } from './limiter-error.js';

const whole = (name: string, min: number) =>
  z
    .number({ error: `${name} must be a whole number of at least ${min}` })
    .int(`${name} must be a whole number of at least ${min}`)
    .min(min, `${name} must be a whole number of at least ${min}`);

export const LimiterOptionsSchema = z.object({
  id: z
    .string({ error: 'id must be a string such as partner:1a2b3c4d5e6f' })
    .regex(/^[\w:.-]{1,200}$/, 'id must be 1-200 letters, digits or : . _ - (such as partner:1a2b3c4d5e6f)'),
  max: whole('max', 1),
  windowMs: whole('windowMs', 1),
  redisUrl: z
    .string()
    .refine((v) => URL.canParse(v) && /^rediss?:$/.test(new URL(v).protocol), {
      message: 'redisUrl must be a redis:// or rediss:// URL',
    })
    .optional(),
  /** Most tasks running at once; unset, no limit beyond the rate. */
  concurrency: whole('concurrency', 1).optional(),
  /**
   * Most tasks waiting for a slot (default 2,000): bulk work beyond it is refused with
   * `limiter_full`, so a backlog cannot grow the heap; work a person waits for gets twice the room.
   */
  maxQueued: whole('maxQueued', 1).optional(),
  /**
   * Slots the pace may give at once after it fell behind (default 1): see WindowRule.catchUpMs. For a
   * limiter whose tasks say when their requests leave, which are counted late when they leave late.
   */
  catchUpSlots: whole('catchUpSlots', 1).optional(),
  /** Extra time each dispatch counts against the window; default 3% of windowMs (see defaultMarginMs). */
  marginMs: z
    .number({ error: 'marginMs must be a number of milliseconds, 0 or more' })
    .min(0, 'marginMs must be a number of milliseconds, 0 or more')
    .optional(),
});

export type LimiterOptions = z.input<typeof LimiterOptionsSchema>;

/** The options after checking, with the margin resolved. */
export interface ResolvedLimiterOptions {
  id: string;
  max: number;
  windowMs: number;
  redisUrl?: string;
  concurrency?: number;
  maxQueued: number;
  marginMs: number;
  catchUpSlots: number;
}

/** Tasks that may wait for a slot before bulk work is refused with limiter_full (see maxQueued). */
export const DEFAULT_MAX_QUEUED = 2_000;

/**
 * The time between our dispatch and the request's arrival at the provider varies by a few
 * milliseconds; counting each request for a little longer than the window keeps the provider's
 * own sliding window under the limit. 3% costs 3% of throughput (three processes on two busy cores
 * showed one request too many in a sliding second at 2%).
 */
export function defaultMarginMs(windowMs: number): number {
  return Math.max(1, Math.round(windowMs * 0.03));
}

export function parseLimiterOptions(options: unknown): ResolvedLimiterOptions {
  const parsed = LimiterOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => i.message).join('; ');
    throw new LimiterError('invalid_limiter_options', `Invalid rate limiter options: ${problems}.`);
  }
  const { marginMs, maxQueued, catchUpSlots, ...rest } = parsed.data;
  return {
    ...rest,
    maxQueued: maxQueued ?? DEFAULT_MAX_QUEUED,
    marginMs: marginMs ?? defaultMarginMs(rest.windowMs),
    catchUpSlots: catchUpSlots ?? 1,
  };
}
