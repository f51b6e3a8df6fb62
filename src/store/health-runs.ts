/**
 * Data-health scans (table health_run): the running scan of an object with its cursor and counts so far,
 * and the finished ones, kept for the trend. The counts are the scan's own JSON; the store keeps them as
 * they are given. A running scan's company domains (health_run_domain) count duplicates across pages.
 */
import type { ConnectionAccounts } from './connection-accounts.js';
import type { Db } from './db.js';

export interface HealthRunRow {
  id: string;
  connection: string;
  objectType: string;
  status: 'running' | 'done';
  cursor: string | null;
  counts: unknown;
  startedAt: Date;
  finishedAt: Date | null;
}

interface Raw {
  id: string;
  connection: string;
  object_type: string;
  status: 'running' | 'done';
  cursor: string | null;
  counts: unknown;
  started_at: Date;
  finished_at: Date | null;
}

const toRow = (r: Raw): HealthRunRow => ({
  id: r.id,
  connection: r.connection,
  objectType: r.object_type,
  status: r.status,
  cursor: r.cursor,
  counts: r.counts,
  startedAt: new Date(r.started_at),
  finishedAt: r.finished_at ? new Date(r.finished_at) : null,
});

export class HealthRuns {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly accounts: ConnectionAccounts,
  ) {}

  private get s(): string {
    return `"${this.schema}"`;
  }

  /** The object's running scan, if one is. */
  async running(connection: string, objectType: string): Promise<HealthRunRow | undefined> {
    const { rows } = await this.db.query<Raw>(
      `SELECT * FROM ${this.s}.health_run
       WHERE connection = $1 AND account = $2 AND object_type = $3 AND status = 'running'`,
      [connection, this.accounts.of(connection), objectType],
    );
    return rows[0] ? toRow(rows[0]) : undefined;
  }

  /** Every running scan of every connection's current account (to resume them at start). */
  async allRunning(): Promise<HealthRunRow[]> {
    const { rows } = await this.db.query<Raw>(
      `SELECT * FROM ${this.s}.health_run
       WHERE status = 'running' AND account = COALESCE($1::jsonb ->> connection, '')`,
      [this.accounts.json()],
    );
    return rows.map(toRow);
  }

  /** A new running scan, or the one already running for this object (a second start joins it). */
  async start(id: string, connection: string, objectType: string, counts: unknown): Promise<HealthRunRow> {
    await this.db.query(
      `INSERT INTO ${this.s}.health_run (id, connection, account, object_type, status, counts)
       VALUES ($1, $2, $3, $4, 'running', $5::jsonb) ON CONFLICT DO NOTHING`,
      [id, connection, this.accounts.of(connection), objectType, JSON.stringify(counts)],
    );
    return (await this.running(connection, objectType))!;
  }

  /** Keeps a running scan's cursor and counts after a page; `done` finishes it and drops its domains. */
  async save(id: string, cursor: string | null, counts: unknown, done: boolean): Promise<void> {
    await this.db.query(
      `UPDATE ${this.s}.health_run SET cursor = $2, counts = $3::jsonb,
         status = CASE WHEN $4::boolean THEN 'done' ELSE status END,
         finished_at = CASE WHEN $4::boolean THEN now() ELSE finished_at END
       WHERE id = $1`,
      [id, cursor, JSON.stringify(counts), done],
    );
    if (done) await this.db.query(`DELETE FROM ${this.s}.health_run_domain WHERE run_id = $1`, [id]);
  }

  /** Starts a running scan over from the first page: no cursor, `counts` (empty), no domains seen. */
  async restart(id: string, counts: unknown): Promise<void> {
    await this.db.query(`UPDATE ${this.s}.health_run SET cursor = NULL, counts = $2::jsonb WHERE id = $1`, [
      id,
      JSON.stringify(counts),
    ]);
    await this.db.query(`DELETE FROM ${this.s}.health_run_domain WHERE run_id = $1`, [id]);
  }

  /** Adds a page's company domains to the scan's; how many of them it had seen before (duplicates). */
  async seenDomains(id: string, domains: readonly string[]): Promise<number> {
    if (domains.length === 0) return 0;
    const { rows } = await this.db.query<{ id: string }>(
      `INSERT INTO ${this.s}.health_run_domain (run_id, domain)
       SELECT $1, d FROM unnest($2::text[]) AS d ON CONFLICT DO NOTHING RETURNING run_id AS id`,
      [id, [...domains]],
    );
    return domains.length - rows.length;
  }

  /** The object's scans, newest first (the running one too). */
  async list(connection: string, objectType: string, limit = 50): Promise<HealthRunRow[]> {
    const { rows } = await this.db.query<Raw>(
      `SELECT * FROM ${this.s}.health_run WHERE connection = $1 AND account = $2 AND object_type = $3
       ORDER BY started_at DESC, id LIMIT $4`,
      [connection, this.accounts.of(connection), objectType, limit],
    );
    return rows.map(toRow);
  }
}
