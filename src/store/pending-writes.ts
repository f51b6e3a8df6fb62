/**
 * Identity values a lane is writing to CRM records, kept from just before the CRM call until the
 * record's outcome is settled, so the change events they cause are known as the service's own by every
 * instance (the intake reads them beside the records' states).
 */
import type { ConnectionAccounts } from './connection-accounts.js';
import type { Db } from './db.js';

export class PendingWrites {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly accounts: ConnectionAccounts,
  ) {}

  async add(
    connection: string,
    objectType: string,
    writes: { recordId: string; values: Record<string, string> }[],
  ): Promise<void> {
    if (writes.length === 0) return;
    await this.db.query(
      `INSERT INTO "${this.schema}".pending_write AS p (connection, account, object_type, record_id, vals)
         SELECT $1, $5, $2, w.id, w.vals FROM unnest($3::text[], $4::jsonb[]) AS w(id, vals)
       ON CONFLICT (connection, account, object_type, record_id) DO UPDATE
         SET vals = p.vals || EXCLUDED.vals, written_at = now()`,
      [
        connection,
        objectType,
        writes.map((w) => w.recordId),
        writes.map((w) => JSON.stringify(w.values)),
        this.accounts.of(connection),
      ],
    );
  }

  async get(connection: string, objectType: string, recordIds: string[]): Promise<Map<string, Record<string, string>>> {
    if (recordIds.length === 0) return new Map();
    const { rows } = await this.db.query<{ record_id: string; vals: Record<string, string> | string }>(
      `SELECT record_id, vals FROM "${this.schema}".pending_write
        WHERE connection = $1 AND account = $4 AND object_type = $2 AND record_id = ANY($3::text[])`,
      [connection, objectType, recordIds, this.accounts.of(connection)],
    );
    return new Map(rows.map((r) => [r.record_id, typeof r.vals === 'string' ? JSON.parse(r.vals) : r.vals]));
  }

  /** Drops what settled records no longer need; `db` is the settling transaction. */
  async clear(connection: string, objectType: string, recordIds: string[], db: Db = this.db): Promise<void> {
    if (recordIds.length === 0) return;
    await db.query(
      `DELETE FROM "${this.schema}".pending_write
        WHERE connection = $1 AND account = $4 AND object_type = $2 AND record_id = ANY($3::text[])`,
      [connection, objectType, recordIds, this.accounts.of(connection)],
    );
  }

  /** Forgets writes never settled (their lane died): after a day their change events have come and gone. */
  async prune(days: number): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM "${this.schema}".pending_write
                      WHERE written_at < now() - make_interval(days => $1) RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [days],
    );
    return rows[0]?.n ?? 0;
  }
}
