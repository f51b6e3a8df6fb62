/**
 * The claiming half of a lane: how many jobs to take and when. Bulk work is claimed in full batches
 * once the records in hand run low, never past maxInFlight; work a person waits for is claimed at once
 * (highest priority first), into a little room above that, so a backlog cannot fill the heap however
 * many webhooks wake the lane. Claimed jobs go to `take`, which runs them on its own.
 */
import type { Priority } from '../core/limiter.js';
import type { EnrichJob } from './jobs.js';

/** A burst of new records arrives as several webhook deliveries within moments: one read serves them all. */
const INTERACTIVE_LINGER_MS = 40;

export interface ClaimLoopOptions {
  claim(limit: number): Promise<EnrichJob[]>;
  /** Hands claimed jobs over; they are in flight from now on. */
  take(jobs: EnrichJob[]): void;
  /** Records in flight right now. */
  inFlight(): number;
  limits: { lowWater: number; maxInFlight: number; interactiveRoom: number; batchSize: number };
  pollMs: number;
  onError(error: Error): void;
}

/**
 * How many jobs the lane claims now: a full batch once the records in hand run low (never past
 * maxInFlight), a few above that when work a person waits for is waiting, otherwise none.
 */
export function claimLimit(l: { inFlight: number; lowWater: number; maxInFlight: number; interactiveRoom: number; batchSize: number; interactiveWaiting: boolean }): number {
  if (l.inFlight <= l.lowWater) return Math.max(0, Math.min(l.batchSize, l.maxInFlight - l.inFlight));
  if (l.interactiveWaiting) return Math.max(0, Math.min(l.interactiveRoom, l.maxInFlight + l.interactiveRoom - l.inFlight));
  return 0;
}

export class ClaimLoop {
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private interactiveWaiting = false;

  constructor(private readonly options: ClaimLoopOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops claiming; resolves once the loop has stopped (work already taken goes on). */
  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    await this.loop;
  }

  /** New work was stored (or room was made); interactive work is claimed even when bulk work fills the lane. */
  wake(priority?: Priority): void {
    if (priority === 'interactive') this.interactiveWaiting = true;
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    const { pollMs, limits } = this.options;
    while (this.running) {
      try {
        const limit = claimLimit({ ...limits, inFlight: this.options.inFlight(), interactiveWaiting: this.interactiveWaiting });
        if (limit <= 0) {
          this.interactiveWaiting = false;
          await this.sleep(pollMs);
          continue;
        }
        if (this.interactiveWaiting) await new Promise((r) => setTimeout(r, INTERACTIVE_LINGER_MS));
        this.interactiveWaiting = false;
        const jobs = await this.options.claim(limit);
        if (jobs.length === 0) {
          await this.sleep(pollMs);
          continue;
        }
        this.options.take(jobs);
      } catch (error) {
        this.options.onError(error as Error);
        await this.sleep(pollMs);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = undefined;
        done();
      };
    });
  }
}
