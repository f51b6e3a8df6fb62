/**
 * Records crm-enrich created in a CRM, by connection and object type. Their creation events come back
 * signed with the service's own token; only these are the service's own, and every instance knows them.
 */
import type { ConnectionAccounts } from './connection-accounts.js';
import type { Db } from './db.js';

export class CreatedRecords {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly accounts: ConnectionAccounts,
  ) {}

  async add(connection: string, objectType: string, recordIds: string[]): Promise<void> {
    if (recordIds.length === 0) return;
    await this.db.query(
      `INSERT INTO "${this.schema}".created_record (connection, account, object_type, record_id)
         SELECT $1, $4, $2, id FROM unnest($3::text[]) AS id
       ON CONFLICT DO NOTHING`,
      [connection, objectType, recordIds, this.accounts.of(connection)],
    );
  }

  /** Which of these records crm-enrich created. */
  async has(connection: string, objectType: string, recordIds: string[]): Promise<Set<string>> {
    if (recordIds.length === 0) return new Set();
    const { rows } = await this.db.query<{ record_id: string }>(
      `SELECT record_id FROM "${this.schema}".created_record
        WHERE connection = $1 AND account = $4 AND object_type = $2 AND record_id = ANY($3::text[])`,
      [connection, objectType, recordIds, this.accounts.of(connection)],
    );
    return new Set(rows.map((r) => r.record_id));
  }

  /** Forgets records created more than `days` ago: their creation events stopped coming long before. */
  async prune(days: number): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM "${this.schema}".created_record
                      WHERE created_at < now() - make_interval(days => $1) RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [days],
    );
    return rows[0]?.n ?? 0;
  }
}
