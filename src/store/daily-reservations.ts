/**
 * Reserve, then spend: a caller takes its share of a daily limit (records discovery may create, partner
 * credits) from a daily counter in one statement before it spends any of it, and gives back what it did
 * not use. Concurrent callers, in this process or on other instances, can neither all pass a check made
 * before any of them counted, nor take the counter past the limit even for a moment.
 *
 * A reservation held by a process that dies is not given back: it stays counted until the day ends,
 * which can leave part of a limit unused but never lets it be passed.
 */
import type { Db } from './db.js';
import { utcDay } from './daily-counters.js';

export class DailyReservations {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
  ) {}

  private get table(): string {
    return `"${this.schema}".daily_counter`;
  }

  /**
   * Takes up to `wanted` from today's counter `name` without taking it past `limit`; the reservation
   * holds what it got (0 when the limit is reached). The grant is computed from the counter's value as
   * the upsert's row lock leaves it, and returned by the same statement (see migration 009).
   */
  async reserve(name: string, wanted: number, limit: number, day: string = utcDay()): Promise<Reservation> {
    if (!Number.isInteger(wanted) || wanted < 0) {
      throw new RangeError(`wanted: must be a whole number of at least 0, got ${wanted}`);
    }
    if (wanted === 0) return new Reservation(this, name, day, 0);
    const { rows } = await this.db.query<{ last_grant: string }>(
      `INSERT INTO ${this.table} AS c (day, name, value, last_grant)
       VALUES ($1::date, $2, LEAST($3::bigint, GREATEST($4::bigint, 0)), LEAST($3::bigint, GREATEST($4::bigint, 0)))
       ON CONFLICT (day, name) DO UPDATE
         SET value = c.value + LEAST($3::bigint, GREATEST($4::bigint - c.value, 0)),
             last_grant = LEAST($3::bigint, GREATEST($4::bigint - c.value, 0))
       RETURNING last_grant`,
      [day, name, wanted, limit],
    );
    return new Reservation(this, name, day, Number(rows[0]?.last_grant ?? 0));
  }

  /** Gives `count` back to the counter of the day it was reserved on. */
  async release(name: string, count: number, day: string): Promise<void> {
    if (count <= 0) return;
    await this.db.query(
      `UPDATE ${this.table} SET value = GREATEST(value - $3::bigint, 0) WHERE day = $1::date AND name = $2`,
      [day, name, count],
    );
  }
}

/** A share of a daily limit held by one caller: taken one at a time, what is left given back by `close`. */
export class Reservation {
  private used = 0;
  private closed = false;

  constructor(
    private readonly store: Pick<DailyReservations, 'release'>,
    readonly name: string,
    readonly day: string,
    readonly granted: number,
  ) {}

  /** Units taken and not put back. */
  get spent(): number {
    return this.used;
  }

  get left(): number {
    return this.closed ? 0 : this.granted - this.used;
  }

  /** Spends one of the reserved units; false when none is left. */
  take(): boolean {
    if (this.left <= 0) return false;
    this.used++;
    return true;
  }

  /** Returns a unit that was taken but not spent after all (a request the partner did not serve). */
  putBack(): void {
    if (this.used > 0) this.used--;
  }

  /** Gives back every unit not spent; later calls do nothing. */
  async close(): Promise<void> {
    if (this.closed) return;
    const unused = this.granted - this.used;
    this.closed = true;
    await this.store.release(this.name, unused, this.day);
  }
}
