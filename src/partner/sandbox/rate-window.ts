/**
 * Per-key sliding one-second windows. `served` holds the requests the key was served; a request
 * arriving when 50 were served in the last second is refused. Refused requests do not count, so a
 * caller that backs off is never punished for its own retries. `arrivals` holds every request, served
 * or refused, to report the busiest second a caller produced (how the limiter is judged).
 */
const WINDOW_MS = 1000;

export interface KeyStats {
  served: number;
  rejected: number;
  /** The most requests that arrived (served or refused) in any sliding one-second window. */
  maxWindow: number;
}

class TimeQueue {
  private times: number[] = [];
  private head = 0;

  /** Drops entries at or before `now - WINDOW_MS` and returns how many remain. */
  countSince(now: number): number {
    while (this.head < this.times.length && (this.times[this.head] ?? 0) <= now - WINDOW_MS) this.head++;
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
    return this.times.length - this.head;
  }

  push(now: number): void {
    this.times.push(now);
  }

  oldest(): number | undefined {
    return this.times[this.head];
  }
}

interface KeyState extends KeyStats {
  servedTimes: TimeQueue;
  arrivalTimes: TimeQueue;
}

export type Admission = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class RateWindow {
  private keys = new Map<string, KeyState>();

  constructor(
    private readonly limitPerSecond: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  admit(key: string): Admission {
    const now = this.clock();
    let state = this.keys.get(key);
    if (!state) {
      state = { served: 0, rejected: 0, maxWindow: 0, servedTimes: new TimeQueue(), arrivalTimes: new TimeQueue() };
      this.keys.set(key, state);
    }
    state.arrivalTimes.push(now);
    state.maxWindow = Math.max(state.maxWindow, state.arrivalTimes.countSince(now));
    if (state.servedTimes.countSince(now) >= this.limitPerSecond) {
      state.rejected++;
      const oldest = state.servedTimes.oldest() ?? now;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000)) };
    }
    state.servedTimes.push(now);
    state.served++;
    return { allowed: true };
  }

  stats(): Record<string, KeyStats> {
    return Object.fromEntries(
      [...this.keys].map(([key, { served, rejected, maxWindow }]) => [key, { served, rejected, maxWindow }]),
    );
  }

  reset(): void {
    this.keys.clear();
  }
}
