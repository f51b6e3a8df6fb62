/**
 * Collects planned writes of one lane and sends them in as few CRM calls as the latency allows:
 * a full batch goes at once; a partial one goes when no lookup that could join it is still running,
 * or when its oldest write has waited `maxWaitMs`.
 */
export interface BufferedWrite<T> {
  recordId: string;
  properties: Record<string, string>;
  item: T;
  addedAt: number;
}

export interface WriteBufferOptions<T> {
  batchSize: number;
  maxWaitMs: number;
  /** How many records are still being looked up and may add a write soon. */
  pending: () => number;
  flush: (writes: BufferedWrite<T>[]) => Promise<void>;
}

export class WriteBuffer<T> {
  private writes: BufferedWrite<T>[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly flushing = new Set<Promise<void>>();

  constructor(private readonly options: WriteBufferOptions<T>) {}

  get size(): number {
    return this.writes.length;
  }

  add(recordId: string, properties: Record<string, string>, item: T): void {
    this.writes.push({ recordId, properties, item, addedAt: Date.now() });
    this.consider();
  }

  /** Called whenever a lookup settles: with nothing left in flight, a partial batch need not wait. */
  consider(): void {
    if (this.writes.length >= this.options.batchSize || (this.writes.length > 0 && this.options.pending() === 0)) {
      this.flushNow();
      return;
    }
    if (this.writes.length > 0 && !this.timer) {
      const wait = Math.max(0, this.writes[0]!.addedAt + this.options.maxWaitMs - Date.now());
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flushNow();
      }, wait);
    }
  }

  /** Sends everything buffered now and waits for every flush under way. */
  async drain(): Promise<void> {
    this.flushNow();
    while (this.flushing.size) await Promise.allSettled([...this.flushing]);
  }

  private flushNow(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.writes.length) {
      const batch = this.writes.splice(0, this.options.batchSize);
      const flight = this.options.flush(batch).finally(() => this.flushing.delete(flight));
      this.flushing.add(flight);
    }
  }
}
