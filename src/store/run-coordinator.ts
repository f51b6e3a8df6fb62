/**
 * node-cron 4 asks a RunCoordinator before each tick of a distributed task; the key names the task
 * and the tick. A claim is one INSERT ... ON CONFLICT DO NOTHING, so of all instances asking about
 * the same tick exactly one gets a row back and runs it.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { RunCoordinator } from 'node-cron';
import type { Db } from './db.js';

/** Claims are kept this long past their lease so a late instance cannot claim the same tick again. */
const KEEP_AFTER_EXPIRY = '1 day';

export class PostgresRunCoordinator implements RunCoordinator {
  readonly owner: string;
  private claimsSincePrune = 0;

  constructor(
    private readonly db: Db,
    private readonly schema: string,
    owner?: string,
  ) {
    this.owner = owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  }

  async shouldRun(key: string, ttlMs: number): Promise<boolean> {
    const { rows } = await this.db.query(
      `INSERT INTO "${this.schema}".cron_claim (key, owner, expires_at)
       VALUES ($1, $2, now() + make_interval(secs => $3::double precision / 1000))
       ON CONFLICT (key) DO NOTHING RETURNING key`,
      [key, this.owner, Math.max(ttlMs, 1000)],
    );
    if (++this.claimsSincePrune >= 100) {
      this.claimsSincePrune = 0;
      await this.prune();
    }
    return rows.length === 1;
  }

  /** Who claimed a tick, if anyone. */
  async claimant(key: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ owner: string }>(
      `SELECT owner FROM "${this.schema}".cron_claim WHERE key = $1`,
      [key],
    );
    return rows[0]?.owner;
  }

  async prune(): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM "${this.schema}".cron_claim
       WHERE expires_at < now() - interval '${KEEP_AFTER_EXPIRY}' RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
    );
    return rows[0]?.n ?? 0;
  }
}
