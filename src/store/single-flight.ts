/**
 * Concurrent callers asking for the same key share one call: the partner is asked once and every
 * caller gets the same answer (or the same error). Nothing is kept once the call settles.
 */
export class SingleFlight {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const pending = this.inFlight.get(key);
    if (pending) return pending as Promise<T>;
    const call = (async () => {
      try {
        return await fn();
      } finally {
        this.inFlight.delete(key);
      }
    })();
    this.inFlight.set(key, call);
    return call;
  }

  get size(): number {
    return this.inFlight.size;
  }
}
