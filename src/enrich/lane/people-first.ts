/**
 * People first at a CRM's rate limit. A connection's limiter spaces its calls evenly, so a bulk call that
 * can wait (an employer search, a company creation, an association batch) sent while a person's record
 * is between its claim and its write takes a slot that record's read or write then waits for: people
 * created one after another (a form, a sales tool, a person typing) would each wait a call longer.
 * Such bulk calls therefore wait for a lull, a moment when no person's record has been in hand for
 * `lullMs`, and never longer than their hold: people arriving without end delay them, never stop them.
 * One per CRM connection, shared by its lanes (which say when a person's record comes and goes) and its
 * employer resolver.
 */
export class PeopleFirst {
  private people = 0;
  private lastLeftAt = Number.NEGATIVE_INFINITY;
  private readonly waiters = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly lullMs = 200) {}

  /** A person's record was taken in hand. */
  arrive(): void {
    this.people++;
  }

  /** A person's record is written (or its run is over). */
  leave(): void {
    this.people = Math.max(0, this.people - 1);
    if (this.people > 0) return;
    this.lastLeftAt = Date.now();
    this.watch();
  }

  /** Resolves at the next lull, or once `holdMs` have passed, whichever comes first. */
  lull(holdMs: number): Promise<void> {
    if (this.isLull()) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(cap);
        this.waiters.delete(done);
        resolve();
      };
      const cap = setTimeout(done, holdMs);
      this.waiters.add(done);
      this.watch();
    });
  }

  private isLull(): boolean {
    return this.people === 0 && Date.now() - this.lastLeftAt >= this.lullMs;
  }

  /** While someone waits and no person is in hand, wakes them when the lull is reached. */
  private watch(): void {
    if (this.timer || this.people > 0 || this.waiters.size === 0) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        if (this.isLull()) for (const done of [...this.waiters]) done();
        else this.watch();
      },
      Math.max(0, this.lastLeftAt + this.lullMs - Date.now()),
    );
  }
}
