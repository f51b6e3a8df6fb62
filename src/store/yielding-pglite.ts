/**
 * PGlite that lets the rest of the process run between its statements. PGlite is Postgres compiled to
 * WebAssembly in this process, and its queue of waiting statements is a chain of promises: once one
 * statement is done the next starts in the same turn of the event loop, so a backlog of small
 * statements (a bulk batch's settles, lookups and state writes) ran back to back for 200-300 ms while
 * nothing else did: no webhook was read, no limiter timer fired, no CRM or partner answer was taken in.
 * A person's contact created meanwhile waited for every such run on its way (the webhook, the read,
 * the lookup, the write). Here a statement that starts after the queue has held the event loop for
 * `YIELD_AFTER_MS` first gives it one turn, so the rest of the process waits at most about that long
 * for the database, whatever the backlog. The order of statements and transactions is unchanged (the
 * turn is taken inside PGlite's own queue, with the statement's place held). And since the one session
 * serves everything, a person's statements (src/core/person-waiting.ts) take it before bulk ones waiting.
 */
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { performance } from 'node:perf_hooks';
import { setImmediate as turn } from 'node:timers/promises';
import { personWaits } from '../core/person-waiting.js';

/** How long the database's queue may hold the event loop before it gives a turn to everything else. */
const YIELD_AFTER_MS = 5;

export class YieldingPGlite extends PGlite {
  /** When the queue last gave the event loop a turn (or the event loop last started a statement). */
  private lastTurnAt = performance.now();
  private turnMarked = false;
  /** Whether a top-level statement or transaction holds the session, and who waits for it, people first. */
  private busy = false;
  private readonly waiting: { person: (() => void)[]; bulk: (() => void)[] } = { person: [], bulk: [] };

  /** Opens the database as PGlite.create does (which always makes a plain PGlite). */
  static async open(dataDir?: string, options?: PGliteOptions): Promise<YieldingPGlite> {
    const pglite = new YieldingPGlite(dataDir, options);
    await pglite.waitReady;
    return pglite;
  }

  /**
   * Every top-level statement and transaction takes the session through here: one at a time, the work
   * of a person first (src/core/person-waiting.ts), otherwise in the order they asked.
   */
  override async _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.busy) {
      const queue = personWaits() ? this.waiting.person : this.waiting.bulk;
      await new Promise<void>((resolve) => queue.push(resolve));
    }
    this.busy = true;
    try {
      return await super._runExclusiveTransaction(fn);
    } finally {
      const next = this.waiting.person.shift() ?? this.waiting.bulk.shift();
      if (next) next();
      else this.busy = false;
    }
  }

  override _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T> {
    return super._runExclusiveQuery(async () => {
      if (performance.now() - this.lastTurnAt >= YIELD_AFTER_MS) {
        await turn();
        this.lastTurnAt = performance.now();
      }
      this.markTurns();
      return fn();
    });
  }

  /**
   * Notes the next turn the event loop takes on its own (the queue ran dry, or the statement waited for
   * the disk), so statements that follow it are not made to wait for a turn they do not need.
   */
  private markTurns(): void {
    if (this.turnMarked) return;
    this.turnMarked = true;
    setImmediate(() => {
      this.turnMarked = false;
      this.lastTurnAt = performance.now();
    });
  }
}
