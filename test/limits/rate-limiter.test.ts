import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { createRateLimiter, type SharedRateLimiter } from '../../src/limits/create-rate-limiter.js';
import { LimiterError } from '../../src/limits/limiter-error.js';
import { REDIS_URL, redisUnavailable } from '../support/redis.js';

const redisSkip = await redisUnavailable(REDIS_URL);
if (redisSkip) {
  console.warn(`skipping the Redis backend: ${redisSkip}`);
  describe.skip(`rate limiter (redis) (skipped: ${redisSkip})`, () => undefined);
}

/** The most timestamps that fall into any half-open window [t, t + windowMs). */
function maxInAnyWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe.each([
  { backend: 'local', redisUrl: undefined },
  ...(redisSkip ? [] : [{ backend: 'redis', redisUrl: REDIS_URL }]),
])('rate limiter ($backend)', ({ redisUrl }) => {
  const open: SharedRateLimiter[] = [];
  const make = (options: { id?: string; max: number; windowMs: number; concurrency?: number }) => {
    const limiter = createRateLimiter({ id: `test:${randomUUID()}`, redisUrl, ...options });
    open.push(limiter);
    return limiter;
  };
  afterAll(async () => {
    await Promise.all(open.map((l) => l.stop()));
  });

  it('two limiters with one id never let more than 50 into any sliding second', async () => {
    const id = `test:${randomUUID()}`;
    const a = make({ id, max: 50, windowMs: 1000 });
    const b = make({ id, max: 50, windowMs: 1000 });
    const times: number[] = [];
    const task = async () => {
      times.push(performance.timeOrigin + performance.now());
    };
    await Promise.all(Array.from({ length: 160 }, (_, i) => (i % 2 ? a : b).schedule('bulk', task)));
    expect(times).toHaveLength(160);
    expect(maxInAnyWindow(times, 1000)).toBeLessThanOrEqual(50);
    // The limit is used, not merely respected: both instances got work through.
    expect(a.counts().dispatched).toBe(80);
    expect(b.counts().dispatched).toBe(80);
  });

  /**
   * Two tasks with a 200 ms window for two (plus `marginMs`), the second held `holdMs` as if stuck on
   * its way out, then two quick ones: how long after the second started the fourth could start.
   */
  const fourthAfterHeldSecond = async (marginMs: number, holdMs: number): Promise<number> => {
    const limiter = createRateLimiter({ id: `test:${randomUUID()}`, redisUrl, max: 2, windowMs: 200, marginMs });
    open.push(limiter);
    const starts: number[] = [];
    const task = (ms: number) => async () => {
      starts.push(performance.now());
      await sleep(ms);
    };
    await Promise.all([limiter.schedule('bulk', task(0)), limiter.schedule('bulk', task(holdMs))]);
    await Promise.all([limiter.schedule('bulk', task(0)), limiter.schedule('bulk', task(0))]);
    return starts[3]! - starts[1]!;
  };

  it('counts a task that came back late as dispatched late', async () => {
    // Counted from its start, the second (held 150 ms) leaves the 200 ms window in time for the fourth
    // to start 200 ms after it; counted from its estimated arrival (150 ms later), 350 ms after it.
    expect(await fourthAfterHeldSecond(0, 150)).toBeGreaterThanOrEqual(300);
  });

  it('counts all of a delay over half the margin, so the margin is still there for what nobody measures', async () => {
    // Each dispatch counts 250 ms (window and margin), paced 125 ms apart. Counted as 120 ms late, the
    // second holds the fourth back until 370 ms after it started; had only the 70 ms past the margin
    // been counted, until 320 ms.
    expect(await fourthAfterHeldSecond(50, 120)).toBeGreaterThanOrEqual(360);
  });

  it('counts the time a task spends before its request leaves as soon as it leaves, not when it returns', async () => {
    const limiter = createRateLimiter({ id: `test:${randomUUID()}`, redisUrl, max: 1, windowMs: 200, marginMs: 0 });
    open.push(limiter);
    const starts: number[] = [];
    // The first holds its slot 150 ms before sending (a slow credit reservation), then waits 400 ms for its answer.
    const held = limiter.schedule('bulk', async (slot) => {
      starts[0] = performance.now();
      await sleep(150);
      slot.sending();
      await sleep(400);
    });
    await sleep(5);
    const next = limiter.schedule('bulk', async (slot) => {
      starts[1] = performance.now();
      slot.sending();
    });
    await Promise.all([held, next]);
    // Counted from its slot, the first lets the second start 200 ms after it; counted from when its
    // request left, 350 ms after it, while the first still waits for its answer.
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(340);
    expect(starts[1]! - starts[0]!).toBeLessThan(550);
  });

  it('runs interactive work ahead of bulk work queued before it', async () => {
    const limiter = make({ max: 5, windowMs: 100 });
    const order: string[] = [];
    const work = (name: string) => async () => {
      order.push(name);
    };
    const bulk = Array.from({ length: 30 }, (_, i) => limiter.schedule('bulk', work(`bulk-${i}`)));
    await new Promise<void>((resolve) => limiter.once('dispatched', () => resolve()));
    const interactive = Array.from({ length: 4 }, (_, i) => limiter.schedule('interactive', work(`interactive-${i}`)));
    await Promise.all([...bulk, ...interactive]);
    const positions = order.flatMap((name, i) => (name.startsWith('interactive') ? [i] : []));
    expect(positions).toHaveLength(4);
    // Only bulk work already given a slot, or waiting for the next one, may run before them.
    expect(Math.max(...positions)).toBeLessThan(5);
  });

  it('runs interactive work ahead of bulk work that another instance sharing the limit has queued', async () => {
    const id = `test:${randomUUID()}`;
    const busy = make({ id, max: 5, windowMs: 250 });
    const other = make({ id, max: 5, windowMs: 250 });
    const order: string[] = [];
    const work = (name: string) => async () => {
      order.push(name);
    };
    const bulk = Array.from({ length: 40 }, (_, i) => busy.schedule('bulk', work(`bulk-${i}`)));
    // Wait until the busy instance has used up the window and its bulk work queues for the next slots.
    while (order.length < 8) await sleep(5);
    const interactive = Array.from({ length: 6 }, (_, i) => other.schedule('interactive', work(`interactive-${i}`)));
    await Promise.all([...bulk, ...interactive]);
    const first = order.indexOf('interactive-0');
    const last = order.indexOf('interactive-5');
    // Between the first and the last interactive task, the other instance's bulk work waited: at most
    // one bulk task (a slot already being claimed) slips in, where a fair share would give it half.
    const bulkBetween = order.slice(first, last).filter((n) => n.startsWith('bulk')).length;
    expect(first).toBeGreaterThanOrEqual(8);
    expect(first - 8).toBeLessThanOrEqual(2);
    expect(bulkBetween).toBeLessThanOrEqual(1);
  });

  it('keeps at most `concurrency` tasks running', async () => {
    const limiter = make({ max: 1000, windowMs: 1000, concurrency: 2 });
    let running = 0;
    let most = 0;
    const task = async () => {
      running++;
      most = Math.max(most, running);
      await sleep(10);
      running--;
    };
    await Promise.all(Array.from({ length: 12 }, () => limiter.schedule('bulk', task)));
    expect(most).toBe(2);
  });

  it('passes results and task errors through unchanged and emits queued and dispatched', async () => {
    const limiter = make({ max: 100, windowMs: 1000 });
    const events: string[] = [];
    limiter.on('queued', (e) => events.push(`queued:${e.priority}`));
    limiter.on('dispatched', (e) => {
      events.push(`dispatched:${e.priority}`);
      expect(e.waitedMs).toBeGreaterThanOrEqual(0);
    });
    await expect(limiter.schedule('interactive', async () => 42)).resolves.toBe(42);
    const boom = new Error('task failed');
    await expect(limiter.schedule('bulk', () => Promise.reject(boom))).rejects.toBe(boom);
    expect(events).toEqual(['queued:interactive', 'dispatched:interactive', 'queued:bulk', 'dispatched:bulk']);
    expect(limiter.counts()).toEqual({ queued: 0, running: 0, dispatched: 2 });
  });

  it(
    'bounds its waiting list: bulk work past maxQueued is refused with limiter_full, ' +
      'interactive work gets twice the room',
    async () => {
      const limiter = createRateLimiter({
        id: `test:${randomUUID()}`,
        redisUrl,
        max: 1,
        windowMs: 60_000,
        maxQueued: 3,
      });
      open.push(limiter);
      // Whatever the window lets through at once runs; the rest wait until the list is full.
      for (let i = 0; i < 10 && limiter.counts().queued < 3; i++) {
        limiter.schedule('bulk', async () => 'ran').catch(() => undefined);
        await sleep(20);
      }
      expect(limiter.counts().queued).toBe(3);
      await expect(limiter.schedule('bulk', async () => 1)).rejects.toMatchObject({
        code: 'limiter_full',
        retryable: true,
      });
      const interactive = [0, 1, 2].map(() => limiter.schedule('interactive', async () => 'ran'));
      for (const p of interactive) p.catch(() => undefined);
      await expect(limiter.schedule('interactive', async () => 1)).rejects.toMatchObject({ code: 'limiter_full' });
      expect(limiter.counts().queued).toBe(6);
    },
  );

  it('rejects queued work with limiter_stopped on stop, and refuses new work', async () => {
    const limiter = createRateLimiter({ id: `test:${randomUUID()}`, redisUrl, max: 1, windowMs: 60_000 });
    const first = limiter.schedule('bulk', async () => 'ran');
    const queued = limiter.schedule('bulk', async () => 'should not run');
    const settled = Promise.allSettled([first, queued]);
    await expect(first).resolves.toBe('ran');
    await limiter.stop();
    const [, second] = await settled;
    expect(second.status).toBe('rejected');
    const error = (second as PromiseRejectedResult).reason;
    expect(error).toBeInstanceOf(LimiterError);
    expect(error.code).toBe('limiter_stopped');
    expect(error.retryable).toBe(true);
    await expect(limiter.schedule('bulk', async () => 1)).rejects.toMatchObject({ code: 'limiter_stopped' });
    expect(limiter.counts().queued).toBe(0);
  });
});

describe('rate limiter options and failures', () => {
  it.each([
    [{ id: 'x', max: 0, windowMs: 1000 }, /max must be a whole number of at least 1/],
    [{ id: 'x', max: 2.5, windowMs: 1000 }, /max must be a whole number/],
    [{ id: 'x', max: 50, windowMs: -1 }, /windowMs must be a whole number/],
    [{ id: 'has a space', max: 50, windowMs: 1000 }, /id must be/],
    [{ id: 'x', max: 50, windowMs: 1000, redisUrl: 'http://127.0.0.1:6379' }, /redisUrl must be a redis:\/\//],
    [{ id: 'x', max: 50, windowMs: 1000, concurrency: 0 }, /concurrency must be a whole number/],
  ])('refuses %o with a message naming the option', (options, message) => {
    let thrown: unknown;
    try {
      createRateLimiter(options);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LimiterError);
    expect((thrown as LimiterError).code).toBe('invalid_limiter_options');
    expect((thrown as LimiterError).kind).toBe('config');
    expect((thrown as LimiterError).message).toMatch(message);
  });

  it('refuses a second local limiter with the same id but another limit', async () => {
    const id = `test:${randomUUID()}`;
    const first = createRateLimiter({ id, max: 50, windowMs: 1000 });
    expect(() => createRateLimiter({ id, max: 10, windowMs: 1000 })).toThrow(/already exists in this process/);
    await first.stop();
    const again = createRateLimiter({ id, max: 10, windowMs: 1000 });
    await again.stop();
  });

  it('fails work with limiter_unavailable, naming the host, when Redis cannot be reached', async () => {
    const limiter = createRateLimiter({
      id: `test:${randomUUID()}`,
      max: 50,
      windowMs: 1000,
      redisUrl: 'redis://127.0.0.1:1',
    });
    const errors: Error[] = [];
    limiter.on('error', (e) => errors.push(e));
    let ran = false;
    await expect(limiter.schedule('interactive', async () => (ran = true))).rejects.toMatchObject({
      code: 'limiter_unavailable',
      message: expect.stringContaining('127.0.0.1:1'),
    });
    expect(ran).toBe(false);
    expect(errors.length).toBeGreaterThan(0);
    await limiter.stop();
  });
});
