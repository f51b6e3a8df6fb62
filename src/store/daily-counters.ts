/**
 * Counters per UTC day (partner lookups against the credit budget, cache hits, writes). Each
 * increment is one atomic upsert, so instances sharing a database share the count.
 */
import type { Db } from './db.js';

export function utcDay(at: Date = new Date()): string {
  return at.toISOString().slice(0, 10);
}

export class DailyCounters {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
  ) {}

  private get table(): string {
    return `"${this.schema}".daily_counter`;
  }

  /** Adds `by` to today's (or `day`'s) counter and returns the new value. */
  async increment(name: string, by = 1, day: string = utcDay()): Promise<number> {
    const { rows } = await this.db.query<{ value: string }>(
      `INSERT INTO ${this.table} AS c (day, name, value) VALUES ($1::date, $2, $3)
       ON CONFLICT (day, name) DO UPDATE SET value = c.value + EXCLUDED.value RETURNING value`,
      [day, name, by],
    );
    return Number(rows[0]?.value ?? 0);
  }

  /**
   * Adds one to today's counter only while it is below `limit`, in one statement: concurrent callers,
   * in this process or others, never take it past the limit, not even for a moment. Returns the new
   * value, or undefined when the counter had already reached the limit.
   */
  async reserve(name: string, limit: number, day: string = utcDay()): Promise<number | undefined> {
    if (limit < 1) return undefined;
    const { rows } = await this.db.query<{ value: string }>(
      `INSERT INTO ${this.table} AS c (day, name, value) VALUES ($1::date, $2, 1)
       ON CONFLICT (day, name) DO UPDATE SET value = c.value + 1 WHERE c.value < $3 RETURNING value`,
      [day, name, limit],
    );
    return rows[0] ? Number(rows[0].value) : undefined;
  }

  async get(name: string, day: string = utcDay()): Promise<number> {
    const { rows } = await this.db.query<{ value: string }>(
      `SELECT value FROM ${this.table} WHERE day = $1::date AND name = $2`,
      [day, name],
    );
    return Number(rows[0]?.value ?? 0);
  }

  /** Every counter of one day, by name. */
  async all(day: string = utcDay()): Promise<Record<string, number>> {
    const { rows } = await this.db.query<{ name: string; value: string }>(
      `SELECT name, value FROM ${this.table} WHERE day = $1::date ORDER BY name`,
      [day],
    );
    return Object.fromEntries(rows.map((r) => [r.name, Number(r.value)]));
  }

  /** One counter's value on each day from `fromDay` to `toDay` (inclusive); days without a row are left out. */
  async range(name: string, fromDay: string, toDay: string): Promise<Record<string, number>> {
    const { rows } = await this.db.query<{ day: string; value: string }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, value FROM ${this.table}
       WHERE name = $1 AND day BETWEEN $2::date AND $3::date`,
      [name, fromDay, toDay],
    );
    return Object.fromEntries(rows.map((r) => [r.day, Number(r.value)]));
  }

  async prune(keepDays: number): Promise<void> {
    await this.db.query(`DELETE FROM ${this.table} WHERE day < current_date - $1::int`, [keepDays]);
  }
}
