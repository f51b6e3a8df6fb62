/**
 * Per-minute totals and gauge samples for the admin page's charts (table stat_series). Counters are
 * added (several instances share one total); a gauge (name starting with `gauge.`) keeps the highest
 * sample of its minute, so two instances sampling the same shared queue do not double it.
 */
import type { Db } from './db.js';

export const GAUGE_PREFIX = 'gauge.';
const MINUTE_MS = 60_000;

export interface SeriesPoint {
  /** The start of the minute. */
  bucket: Date;
  name: string;
  value: number;
}

/** One name's values per step, oldest first; a counter's missing step is 0, a gauge's is null (no sample). */
export type SeriesValues = Record<string, (number | null)[]>;

export const minuteOf = (at: Date | number): Date =>
  new Date(Math.floor(new Date(at).getTime() / MINUTE_MS) * MINUTE_MS);
export const isGauge = (name: string): boolean => name.startsWith(GAUGE_PREFIX);

export class StatSeries {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
  ) {}

  private get table(): string {
    return `"${this.schema}".stat_series`;
  }

  /** Adds counters and records gauge samples in one statement, however many minutes and names. */
  async add(points: SeriesPoint[]): Promise<void> {
    if (points.length === 0) return;
    const rows = points.map((p) => ({
      bucket: minuteOf(p.bucket).toISOString(),
      name: p.name,
      value: Math.round(p.value),
    }));
    await this.db.query(
      `INSERT INTO ${this.table} AS s (bucket, name, value)
       SELECT bucket, name, value FROM jsonb_to_recordset($1::jsonb) AS r(bucket timestamptz, name text, value bigint)
       ON CONFLICT (bucket, name) DO UPDATE SET value =
         CASE WHEN s.name LIKE '${GAUGE_PREFIX}%' THEN GREATEST(s.value, EXCLUDED.value)
           ELSE s.value + EXCLUDED.value END`,
      [JSON.stringify(merge(rows))],
    );
  }

  /**
   * Every name's values from `from` (inclusive) to `to` (exclusive) in steps of `stepSeconds`:
   * counters summed over each step, gauges at their highest sample in it.
   */
  async read(from: Date, to: Date, stepSeconds: number): Promise<{ steps: Date[]; values: SeriesValues }> {
    const step = stepSeconds * 1000;
    const start = Math.floor(from.getTime() / step) * step;
    const steps: Date[] = [];
    for (let t = start; t < to.getTime(); t += step) steps.push(new Date(t));
    // The step is computed from epoch seconds: portable between Postgres versions (no date_bin) and PGlite.
    const { rows } = await this.db.query<{ at: string; name: string; total: string; peak: string }>(
      `SELECT floor(extract(epoch FROM bucket) / $3)::bigint * $3 AS at, name, sum(value) AS total, max(value) AS peak
       FROM ${this.table} WHERE bucket >= $1 AND bucket < $2 GROUP BY 1, 2`,
      [new Date(start).toISOString(), to.toISOString(), stepSeconds],
    );
    const values: SeriesValues = {};
    for (const row of rows) {
      const index = Math.round((Number(row.at) * 1000 - start) / step);
      if (index < 0 || index >= steps.length) continue;
      const gauge = isGauge(row.name);
      const list = (values[row.name] ??= steps.map(() => (gauge ? null : 0)));
      list[index] = Number(gauge ? row.peak : row.total);
    }
    return { steps, values };
  }

  async prune(keepDays: number): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM ${this.table} WHERE bucket < now() - make_interval(days => $1::int) RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [keepDays],
    );
    return rows[0]?.n ?? 0;
  }
}

/** One row per (minute, name): an upsert may not touch the same row twice in one statement. */
function merge(
  rows: { bucket: string; name: string; value: number }[],
): { bucket: string; name: string; value: number }[] {
  const byKey = new Map<string, { bucket: string; name: string; value: number }>();
  for (const row of rows) {
    const key = `${row.bucket}\u0000${row.name}`;
    const seen = byKey.get(key);
    if (!seen) byKey.set(key, { ...row });
    else seen.value = isGauge(row.name) ? Math.max(seen.value, row.value) : seen.value + row.value;
  }
  return [...byKey.values()];
}
