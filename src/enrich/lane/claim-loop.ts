/**
 * The claiming half of a lane: how many jobs to take and when. Bulk work is claimed in full batches
 * once the records in hand run low, never past maxInFlight; work a person waits for is claimed at once
 * (highest priority first), into a little room above that, so a backlog cannot fill the heap however
 * many webhooks wake the lane. The lane reads the claimed batches from `batches()`.
 */
import { forPerson } from '../../core/person-waiting.js';
import type { Priority } from '../../core/limiter.js';
import type { EnrichJob } from '../jobs.js';
import type { Ledger } from './ledger.js';

/**
 * A burst of new records arrives as several webhook deliveries within moments: while a person's record
 * is already in hand, the next ones wait this long, so one read serves them all. A record that arrives
 * alone is claimed at once.
 */
const INTERACTIVE_LINGER_MS = 40;

export interface ClaimLoopOptions {
  claim(limit: number): Promise<EnrichJob[]>;
  /** The lane's records in hand: its claim weight says how many more to take, its `room` when. */
  ledger: Pick<Ledger, 'claimWeight' | 'peopleWaiting' | 'on' | 'off'>;
  limits: { lowWater: number; maxInFlight: number; interactiveRoom: number; batchSize: number };
  pollMs: number;
  onError(error: Error): void;
}

/**
 * How many jobs the lane claims now: a full batch once the records in hand run low (never past
 * maxInFlight), a few above that when work a person waits for is waiting, otherwise none.
 */
export function claimLimit(l: {
  inFlight: number;
  lowWater: number;
  maxInFlight: number;
  interactiveRoom: number;
  batchSize: number;
  interactiveWaiting: boolean;
}): number {
  if (l.inFlight <= l.lowWater) return Math.max(0, Math.min(l.batchSize, l.maxInFlight - l.inFlight));
  if (l.interactiveWaiting)
    return Math.max(0, Math.min(l.interactiveRoom, l.maxInFlight + l.interactiveRoom - l.inFlight));
  return 0;
}

export class ClaimLoop {
  private running = false;
  private wakeUp: (() => void) | undefined;
  private interactiveWaiting = false;
  private readonly onRoom = () => this.wake();

  constructor(private readonly options: ClaimLoopOptions) {}

  /** Stops claiming; the batches' reader ends once the loop has stopped (work already taken goes on). */
  stop(): void {
    this.running = false;
    this.wakeUp?.();
  }

  /** New work was stored (or room was made); interactive work is claimed even when bulk work fills the lane. */
  wake(priority?: Priority): void {
    if (priority === 'interactive') this.interactiveWaiting = true;
    this.wakeUp?.();
  }

  /** Claimed batches, as they are claimed, until `stop`. */
  async *batches(): AsyncGenerator<EnrichJob[]> {
    const { pollMs, limits, ledger } = this.options;
    this.running = true;
    ledger.on('room', this.onRoom);
    try {
      while (this.running) {
        const jobs = await this.next(limits, pollMs);
        if (jobs) yield jobs;
      }
    } finally {
      ledger.off('room', this.onRoom);
    }
  }

  /** One turn: the jobs claimed, or undefined after sleeping (nothing to claim, no room, or an error). */
  private async next(limits: ClaimLoopOptions['limits'], pollMs: number): Promise<EnrichJob[] | undefined> {
    const { ledger } = this.options;
    try {
      const limit = claimLimit({
        ...limits,
        inFlight: ledger.claimWeight(),
        interactiveWaiting: this.interactiveWaiting,
      });
      if (limit <= 0) {
        this.interactiveWaiting = false;
        await this.sleep(pollMs);
        return undefined;
      }
      if (this.interactiveWaiting && ledger.peopleWaiting > 0)
        await new Promise((r) => setTimeout(r, INTERACTIVE_LINGER_MS));
      const person = this.interactiveWaiting;
      this.interactiveWaiting = false;
      const jobs = await forPerson(person, () => this.options.claim(limit));
      if (jobs.length > 0) return jobs;
      await this.sleep(pollMs);
    } catch (error) {
      this.options.onError(error as Error);
      await this.sleep(pollMs);
    }
    return undefined;
  }

  private sleep(ms: number): Promise<void> {
    if (!this.running) return Promise.resolve();
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
