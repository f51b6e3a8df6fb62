/**
 * Salesforce's concurrent long-running request limit: an org's API requests that have run for 20
 * seconds or longer count against it (25 in a production org or sandbox, 5 in a Developer Edition or
 * trial org); while that many run, a new request is refused with 403 REQUEST_LIMIT_EXCEEDED
 * "ConcurrentPerOrgLongTxn Limit exceeded." until fewer do. Shorter requests are not limited.
 *
 * Requests become long here by `answerDelayMs` (every API answer waits that long), and other
 * integrations of the org can be made to hold some of the slots (`hold`), as they do in a real org.
 */
export interface LongRunningOptions {
  /** Long-running requests the org allows at once (Salesforce: 25, Developer Edition 5). */
  limit?: number;
  /** When a running request counts as long-running (Salesforce: 20 s). */
  afterMs?: number;
  /** How long every API request takes to answer (default 0). */
  answerDelayMs?: number;
}

export class LongRunningRequests {
  readonly limit: number;
  readonly afterMs: number;
  answerDelayMs: number;
  /** Requests refused for the limit since the start. */
  refused = 0;
  private readonly running = new Set<{ since: number }>();
  private held = 0;

  constructor(options: LongRunningOptions = {}) {
    this.limit = options.limit ?? 25;
    this.afterMs = options.afterMs ?? 20_000;
    this.answerDelayMs = options.answerDelayMs ?? 0;
  }

  /** Whether a new request is refused now; counts the refusal. */
  refuses(now = Date.now()): boolean {
    let long = this.held;
    for (const request of this.running) if (now - request.since >= this.afterMs) long++;
    if (long < this.limit) return false;
    this.refused++;
    return true;
  }

  /** A request starts; the function returned ends it. */
  begin(now = Date.now()): () => void {
    const request = { since: now };
    this.running.add(request);
    return () => void this.running.delete(request);
  }

  /** Other integrations of the org hold `n` long-running requests (0 lets them go). */
  hold(n: number): void {
    this.held = n;
  }
}
