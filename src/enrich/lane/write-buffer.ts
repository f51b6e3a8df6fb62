/**
 * Collects planned writes of one lane and sends them in as few CRM calls as the latency allows:
 * a full batch goes at once; a partial one goes when no lookup that could join it is still running
 * (for `lullMs`), when its oldest write has waited `maxWaitMs`, or at once when a person waits for one
 * of its writes.
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
  /**
   * How long none may be pending before a partial batch goes for want of them (default 0: at once). A
   * batch larger than one claim bridges the moment between one claimed batch's lookups and the next's.
   */
  lullMs?: number;
  /** Of those, how many a person waits for: an urgent write waits only for these (default none). */
  urgentPending?: () => number;
  /** The longest an urgent write waits for other urgent ones to join it (default 250 ms). */
  urgentMaxWaitMs?: number;
  flush: (writes: BufferedWrite<T>[]) => Promise<void>;
}

export class WriteBuffer<T> {
  private writes: BufferedWrite<T>[] = [];
  private timer: NodeJS.Timeout | undefined;
  private urgentTimer: NodeJS.Timeout | undefined;
  private lullTimer: NodeJS.Timeout | undefined;
  /** When a lookup that could add a write was last seen running. */
  private busyAt = 0;
  /** When the oldest write a person waits for was added, while one is buffered. */
  private urgentSince: number | undefined;
  private readonly flushing = new Set<Promise<void>>();

  constructor(private readonly options: WriteBufferOptions<T>) {}

  get size(): number {
    return this.writes.length;
  }

  /**
   * `urgent`: a person waits for this write. It goes, with whatever else is buffered, as soon as no
   * other urgent lookup is still running (those would join it), and within urgentMaxWaitMs.
   */
  add(recordId: string, properties: Record<string, string>, item: T, urgent = false): void {
    this.writes.push({ recordId, properties, item, addedAt: Date.now() });
    if (urgent) this.urgentSince ??= Date.now();
    this.consider();
  }

  /** Called whenever a lookup settles: with nothing left in flight, a partial batch need not wait. */
  consider(): void {
    if (this.writes.length >= this.options.batchSize) {
      this.flushNow();
      return;
    }
    if (this.options.pending() > 0) this.busyAt = Date.now();
    else if (this.writes.length > 0 && Date.now() - this.busyAt >= (this.options.lullMs ?? 0)) {
      this.flushNow();
      return;
    } else if (this.writes.length > 0)
      this.lullTimer ??= setTimeout(
        () => {
          this.lullTimer = undefined;
          this.consider();
        },
        this.busyAt + (this.options.lullMs ?? 0) - Date.now(),
      );
    if (this.urgentSince !== undefined) {
      if ((this.options.urgentPending?.() ?? 0) === 0) {
        this.flushNow();
        return;
      }
      this.urgentTimer ??= setTimeout(
        () => {
          this.urgentTimer = undefined;
          this.flushNow();
        },
        Math.max(0, this.urgentSince + (this.options.urgentMaxWaitMs ?? 250) - Date.now()),
      );
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
    if (this.urgentTimer) {
      clearTimeout(this.urgentTimer);
      this.urgentTimer = undefined;
    }
    if (this.lullTimer) {
      clearTimeout(this.lullTimer);
      this.lullTimer = undefined;
    }
    this.urgentSince = undefined;
    while (this.writes.length) {
      const batch = this.writes.splice(0, this.options.batchSize);
      const flight = this.options.flush(batch).finally(() => this.flushing.delete(flight));
      this.flushing.add(flight);
    }
  }
}
