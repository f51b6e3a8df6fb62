import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DispatchSlot, Priority, RateLimiter } from '../core/limiter.js';
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

interface Waiting {
  priority: Priority;
  queuedAt: number;
  admit: (ticket: string, claimedFrom: number) => void;
  fail: (error: Error) => void;
}

/** How many recent task durations give the fastest round trip. */
const RECENT_TASKS = 32;
/** Tasks before the fastest round trip is trusted as a baseline. */
const WARM_UP_TASKS = 8;

/**
 * One dispatch loop hands out slots in priority order: it waits for a free running place (when
 * `concurrency` is set) and for the dispatch window, then gives the slot to the first interactive
 * task, else the first bulk task. The choice is made when the slot opens, so interactive work
 * that arrives while bulk work waits goes first.
 *
 * (bottleneck's queue was the first choice, but its local store submits jobs one at a time,
 * yielding to a timer for each: with 1,000 bulk jobs queued, an interactive job ran after all
 * of them, 2.3 s later. Priorities have to hold when a backfill has queued thousands.)
 *
 * A request can reach the provider later than it was claimed (a stalled event loop, a busy
 * machine, a slow network), and the provider counts arrivals. A task that took longer than the
 * fastest recent one by more than half the margin was probably held up on its way out, so its log
 * entry is moved later by all of that delay: the request `max` places behind it then waits for it,
 * and the margin is still there for what no one measures (the network, the provider's own queue).
 * (Moving it by only what exceeds the margin left none: four requests held up some 60 ms reached
 * the provider at once, and a second later the 51st arrived half a millisecond too early.)
 * A task that says when its request leaves (`slot.sending()`, as its bytes are written) has the time
 * before that counted at once: a stall between the slot and the send (a slow credit reservation, a long
 * pause of the event loop) moves the entry before later slots are given, not a round trip after; and its
 * answer's time is not counted at all (an answer read late, after a pause, says nothing of when the
 * request arrived), so the key is not left idle for delays that never reached the provider.
 */
export class SlidingWindowLimiter extends EventEmitter<LimiterEvents> implements RateLimiter {
  private readonly queues: Record<Priority, Waiting[]> = { interactive: [], bulk: [] };
  private readonly placeFreed: Array<() => void> = [];
  private readonly abort = new AbortController();
  private readonly instance = randomUUID();
  private readonly durations: number[] = [];
  private loop?: Promise<void>;
  private stopping?: Promise<void>;
  private tickets = 0;
  private running = 0;
  private dispatchedTotal = 0;

  constructor(
    readonly id: string,
    private readonly window: DispatchWindow,
    private readonly marginMs: number,
    private readonly concurrency = Number.POSITIVE_INFINITY,
    private readonly maxQueued = Number.POSITIVE_INFINITY,
  ) {
    super();
  }

  async schedule<T>(priority: Priority, task: (slot: DispatchSlot) => Promise<T>): Promise<T> {
    if (this.stopping) throw this.stoppedError();
    const queued = this.queuedCount();
    if (queued >= (priority === 'bulk' ? this.maxQueued : 2 * this.maxQueued)) {
      throw new LimiterError(
        'limiter_full',
        `Rate limiter ${this.id} already has ${queued} tasks waiting; this ${priority} task was not queued. ` +
          'Its job waits in the queue and is tried again shortly.',
      );
    }
    const { ticket, claimedFrom } = await new Promise<{ ticket: string; claimedFrom: number }>((resolve, reject) => {
      const queuedAt = performance.now();
      this.queues[priority].push({
        priority,
        queuedAt,
        admit: (t, from) => resolve({ ticket: t, claimedFrom: from }),
        fail: reject,
      });
      this.emit('queued', { priority, queued: this.queuedCount() });
      this.loop ??= this.dispatch().finally(() => (this.loop = undefined));
    });
    let left = false;
    const slot: DispatchSlot = {
      sending: () => {
        if (left) return;
        left = true;
        this.depart(ticket, performance.now() - claimedFrom);
      },
    };
    try {
      return await task(slot);
    } finally {
      this.running--;
      this.placeFreed.shift()?.();
      // A task that said when its request left was counted then; what came after cannot crowd the provider.
      if (!left) this.taskDone(ticket, performance.now() - claimedFrom);
    }
  }

  /** Throws LimiterError `limiter_unavailable` when the shared store (Redis) cannot be reached. */
  check(): Promise<void> {
    return this.window.check();
  }

  counts(): LimiterCounts {
    return { queued: this.queuedCount(), running: this.running, dispatched: this.dispatchedTotal };
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.abort.abort();
      for (const waiting of [...this.queues.interactive.splice(0), ...this.queues.bulk.splice(0)]) {
        waiting.fail(this.stoppedError());
      }
      for (const wake of this.placeFreed.splice(0)) wake();
      await this.loop;
      await this.window.close();
    })();
    return this.stopping;
  }

  private queuedCount(): number {
    return this.queues.interactive.length + this.queues.bulk.length;
  }

  private async dispatch(): Promise<void> {
    while (this.queuedCount() > 0 && !this.abort.signal.aborted) {
      if (this.running >= this.concurrency) {
        await new Promise<void>((resolve) => this.placeFreed.push(resolve));
        continue;
      }
      const ticket = `${this.instance}:${this.tickets++}`;
      const askedAt = performance.now();
      let wait: number;
      try {
        // Interactive work at the head of the queue asks as such: other instances' bulk work waits for it.
        wait = await this.window.tryClaim(ticket, this.queues.interactive.length > 0 ? this.instance : undefined);
      } catch (error) {
        this.next()?.fail(error as Error);
        continue;
      }
      if (wait > 0) {
        await sleep(Math.ceil(wait), undefined, { signal: this.abort.signal }).catch(() => undefined);
        continue;
      }
      const waiting = this.next();
      if (!waiting) return;
      this.running++;
      this.dispatchedTotal++;
      const now = performance.now();
      this.emit('dispatched', {
        priority: waiting.priority,
        waitedMs: now - waiting.queuedAt,
        at: performance.timeOrigin + now,
      });
      // The duration counts from before the claim, so it includes the claim's trip to the store.
      waiting.admit(ticket, askedAt);
    }
  }

  private next(): Waiting | undefined {
    return this.queues.interactive.shift() ?? this.queues.bulk.shift();
  }

  /**
   * The request leaves `sinceAskedMs` after its slot was asked for: more than a tenth of the margin
   * later, and its entry is moved to now, so the log holds when it left and the whole margin is left
   * for what no one measures (the network, the provider's own queue). (Measured against the quickest recent
   * departure, a stretch of slow ones, as when the embedded database holds every credit reservation,
   * made the slow normal: requests that left 100 ms late were counted 30 ms late, and the partner saw 52
   * in a second.)
   */
  private depart(ticket: string, sinceAskedMs: number): void {
    if (sinceAskedMs <= this.marginMs / 10 || this.stopping) return;
    this.postpone(ticket, sinceAskedMs);
  }

  /** A task that never said when its request left is done `durationMs` after its slot was asked for. */
  private taskDone(ticket: string, durationMs: number): void {
    const lateBy = durationMs - baseline(this.durations, durationMs);
    if (lateBy <= this.marginMs / 2 || this.stopping) return;
    this.postpone(ticket, lateBy);
  }

  private postpone(ticket: string, byMs: number): void {
    this.window.postpone(ticket, byMs).catch((error: Error) => {
      if (this.listenerCount('error') > 0) this.emit('error', error);
    });
  }

  private stoppedError(): LimiterError {
    return new LimiterError(
      'limiter_stopped',
      `Rate limiter ${this.id} has been stopped; the work was not started. Run it again once the service is up.`,
    );
  }
}

/**
 * The quickest of the recent times (then adds `latest` to them). Until a few are known there is no
 * baseline, and the first requests of a process are the slow ones (a new connection, the HTTP client
 * loading): all of such a task's time counts as possible delay on its way out.
 */
function baseline(recent: number[], latest: number): number {
  const fastest = recent.length >= WARM_UP_TASKS ? Math.min(...recent) : 0;
  recent.push(latest);
  if (recent.length > RECENT_TASKS) recent.shift();
  return fastest;
}
