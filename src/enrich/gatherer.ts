/**
 * One gatherer for every batch the engine sends (a lane's writes and company links, a connection's
 * employer domains): items gather in groups by key, and a group goes
 * - at once when it holds `size(key)` items;
 * - when `ready(key)` says nothing more can join it (asked on every add and on `consider()`);
 * - when its oldest item has lingered long enough (each add may name a shorter linger, which brings the
 *   group forward; never a longer one).
 * A group that is due waits for `lull(key)` when one is given (people first: bulk calls go at a lull in
 * people's work); what is added meanwhile joins it. It then goes in sends of at most `size(key)` items, and
 * every `add` resolves with what the send of its item returned (or rejects with why it failed).
 * `flush()` sends every group now, past its linger and lull; `drain()` also waits for every send.
 */
export interface GathererOptions<K, T, R> {
  /** The most items one send carries; a group this large goes at once. */
  size: (key: K) => number;
  /** How long an item waits for others at most, unless its add says less. */
  linger: (key: K) => number;
  /** True when nothing more can join a partial group (nothing that could still be added is under way). */
  ready?: (key: K) => boolean;
  /** Where a due group waits for a lull; without it, a due group goes at once. */
  lull?: (key: K) => Promise<void>;
  /**
   * Merges an item added under an id already gathering into the one kept (one send carries each id once,
   * and every add of it resolves with that send's result).
   */
  merge?: (kept: T, added: T) => T;
  send: (key: K, items: T[]) => Promise<R>;
}

export interface AddOptions {
  /** Items of one id are one item: see `merge`. */
  id?: string;
  /** How long this item may wait for others (default: the group's linger). */
  lingerMs?: number;
}

interface Gathered<T, R> {
  item: T;
  waiters: { resolve: (result: R) => void; reject: (error: unknown) => void }[];
}

interface Group<T, R> {
  items: Gathered<T, R>[];
  byId: Map<string, Gathered<T, R>>;
  timer?: NodeJS.Timeout;
  dueAt: number;
  awaitingLull: boolean;
}

export class Gatherer<K, T, R = void> {
  private readonly groups = new Map<K, Group<T, R>>();
  private readonly sending = new Set<Promise<unknown>>();

  constructor(private readonly options: GathererOptions<K, T, R>) {}

  /** Items gathering under a key (not yet sent). */
  count(key: K): number {
    return this.groups.get(key)?.items.length ?? 0;
  }

  add(key: K, item: T, options: AddOptions = {}): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const group = this.groupOf(key);
      const known = options.id === undefined ? undefined : group.byId.get(options.id);
      if (known) {
        known.item = this.options.merge ? this.options.merge(known.item, item) : known.item;
        known.waiters.push({ resolve, reject });
      } else {
        const gathered = { item, waiters: [{ resolve, reject }] };
        group.items.push(gathered);
        if (options.id !== undefined) group.byId.set(options.id, gathered);
      }
      if (group.items.length >= this.options.size(key) || this.options.ready?.(key)) this.due(key, group, 0);
      else this.due(key, group, options.lingerMs ?? this.options.linger(key));
    });
  }

  /** Something that could have joined a group is over: a group nothing more can join goes now. */
  consider(): void {
    for (const [key, group] of this.groups)
      if (group.items.length > 0 && this.options.ready?.(key)) this.due(key, group, 0);
  }

  /** Sends every group now, past its linger and lull. */
  flush(): void {
    for (const [key, group] of [...this.groups]) this.send(key, group);
  }

  /** Sends everything gathered now and waits for every send under way. */
  async drain(): Promise<void> {
    this.flush();
    while (this.sending.size) await Promise.allSettled([...this.sending]);
  }

  private groupOf(key: K): Group<T, R> {
    let group = this.groups.get(key);
    if (!group) {
      group = { items: [], byId: new Map(), dueAt: Number.POSITIVE_INFINITY, awaitingLull: false };
      this.groups.set(key, group);
    }
    return group;
  }

  /** The group goes within `ms`, or sooner if it is already due sooner. */
  private due(key: K, group: Group<T, R>, ms: number): void {
    if (group.awaitingLull) return;
    const dueAt = Date.now() + ms;
    if (ms > 0) {
      if (group.timer && group.dueAt <= dueAt) return;
      clearTimeout(group.timer);
      group.dueAt = dueAt;
      group.timer = setTimeout(() => this.go(key, group), ms);
      return;
    }
    this.go(key, group);
  }

  private go(key: K, group: Group<T, R>): void {
    clearTimeout(group.timer);
    group.timer = undefined;
    if (!this.options.lull) {
      this.send(key, group);
      return;
    }
    group.awaitingLull = true;
    // A flush meanwhile sends the group without it; the lull then finds it empty.
    void this.options.lull(key).then(() => this.send(key, group));
  }

  private send(key: K, group: Group<T, R>): void {
    clearTimeout(group.timer);
    if (this.groups.get(key) === group) this.groups.delete(key);
    const size = Math.max(1, this.options.size(key));
    const items = group.items.splice(0);
    for (let i = 0; i < items.length; i += size) {
      const batch = items.slice(i, i + size);
      const sent = this.sendBatch(key, batch).finally(() => this.sending.delete(sent));
      this.sending.add(sent);
    }
  }

  private async sendBatch(key: K, batch: Gathered<T, R>[]): Promise<void> {
    try {
      const result = await this.options.send(
        key,
        batch.map((g) => g.item),
      );
      for (const g of batch) for (const w of g.waiters) w.resolve(result);
    } catch (error) {
      for (const g of batch) for (const w of g.waiters) w.reject(error);
    }
  }
}
