import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import Bottleneck from 'bottleneck';
import type { Priority, RateLimiter } from '../core/limiter.js';
import type { DispatchWindow } from './dispatch-window.js';
import { LimiterError } from './limiter-error.js';

export interface LimiterEvents {
  /** Work entered the queue; `queued` is how much now waits for a dispatch slot. */
  queued: [{ priority: Priority; queued: number }];
  /** A task was given a slot; `at` is epoch milliseconds with sub-millisecond precision. */
  dispatched: [{ priority: Priority; waitedMs: number; at: number }];
  /** The shared store reported a problem (the affected work is also rejected). */
  error: [Error];
}

export interface LimiterCounts {
  queued: number;
  running: number;
  dispatched: number;
}

// bottleneck runs lower numbers first (0-9, default 5).
const WEIGHT: Record<Priority, number> = { interactive: 1, bulk: 6 };

/**
 * bottleneck holds the queue, the priorities and the concurrency; the dispatch window decides
 * when the next task may start. Claims are made one at a time through a second bottleneck queue
 * (maxConcurrent 1), so the slot that opens next goes to the highest-priority waiting task.
 */
export class SlidingWindowLimiter extends EventEmitter<LimiterEvents> implements RateLimiter {
  private readonly queue: Bottleneck;
  private readonly gate: Bottleneck;
  private readonly abort = new AbortController();
  private stopping?: Promise<void>;
  private waiting = 0;
  private running = 0;
  private dispatchedTotal = 0;

  constructor(
    readonly id: string,
    private readonly window: DispatchWindow,
    concurrency?: number,
  ) {
    super();
    this.queue = new Bottleneck({ maxConcurrent: concurrency ?? null });
    this.gate = new Bottleneck({ maxConcurrent: 1 });
  }

  async schedule<T>(priority: Priority, task: () => Promise<T>): Promise<T> {
    if (this.stopping) throw this.stoppedError();
    const weight = WEIGHT[priority];
    const queuedAt = performance.now();
    let started = false;
    this.waiting++;
    this.emit('queued', { priority, queued: this.waiting });
    try {
      return await this.queue.schedule({ priority: weight }, async () => {
        await this.gate.schedule({ priority: weight }, () => this.claim());
        started = true;
        this.waiting--;
        this.running++;
        this.dispatchedTotal++;
        const now = performance.now();
        this.emit('dispatched', { priority, waitedMs: now - queuedAt, at: performance.timeOrigin + now });
        try {
          return await task();
        } finally {
          this.running--;
        }
      });
    } catch (error) {
      throw error instanceof Bottleneck.BottleneckError ? this.stoppedError(error) : error;
    } finally {
      if (!started) this.waiting--;
    }
  }

  counts(): LimiterCounts {
    return { queued: this.waiting, running: this.running, dispatched: this.dispatchedTotal };
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.abort.abort();
      await Promise.allSettled([
        this.queue.stop({ dropWaitingJobs: true }),
        this.gate.stop({ dropWaitingJobs: true }),
      ]);
      await this.window.close();
    })();
    return this.stopping;
  }

  private async claim(): Promise<void> {
    for (;;) {
      const wait = await this.window.tryClaim();
      if (wait <= 0) return;
      try {
        await sleep(Math.ceil(wait), undefined, { signal: this.abort.signal });
      } catch (error) {
        throw this.stoppedError(error);
      }
    }
  }

  private stoppedError(cause?: unknown): LimiterError {
    return new LimiterError(
      'limiter_stopped',
      `Rate limiter ${this.id} has been stopped; the work was not started. Run it again once the service is up.`,
      { cause },
    );
  }
}
