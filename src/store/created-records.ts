/**
 * Records crm-enrich created in a CRM, by connection and object type. Their creation events come back
 * signed with the service's own token; only these are the service's own, and every instance knows them.
 * A creation is marked before its call goes out (`begin`), and the mark gives way to the created ids in
 * one statement (`add`): whoever looks sees the mark or the ids, never neither, whenever the CRM's
 * creation event arrives.
 */
import { randomUUID } from 'node:crypto';
import type { ConnectionAccounts } from './connection-accounts.js';
import type { Db } from './db.js';

export class CreatedRecords {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly accounts: ConnectionAccounts,
  ) {}

  /** Marks a creation of `objectType` records as under way, before its call goes out; returns the mark. */
  async begin(connection: string, objectType: string): Promise<string> {
    const mark = randomUUID();
    await this.db.query(
      `INSERT INTO "${this.schema}".creation_under_way (id, connection, account, object_type) VALUES ($1, $2, $3, $4)`,
      [mark, connection, this.accounts.of(connection), objectType],
    );
    return mark;
  }

  /** Keeps the created records' ids and, in the same statement, lifts the creation's mark (if any). */
  async add(connection: string, objectType: string, recordIds: string[], mark?: string): Promise<void> {
    if (recordIds.length === 0 && !mark) return;
    await this.db.query(
      `WITH lifted AS (DELETE FROM "${this.schema}".creation_under_way WHERE id = $5)
       INSERT INTO "${this.schema}".created_record (connection, account, object_type, record_id)
         SELECT $1, $4, $2, id FROM unnest($3::text[]) AS id
       ON CONFLICT DO NOTHING`,
      [connection, objectType, recordIds, this.accounts.of(connection), mark ?? null],
    );
  }

  /** Lifts a creation's mark without ids: the call failed, nothing was created. */
  async abandon(mark: string): Promise<void> {
    await this.db.query(`DELETE FROM "${this.schema}".creation_under_way WHERE id = $1`, [mark]);
  }

  /**
   * Whether a creation of `objectType` records is under way on any instance, one marked less than
   * `withinMs` ago (a mark a dead process left stops counting then).
   */
  async underWay(connection: string, objectType: string, withinMs: number): Promise<boolean> {
    const { rows } = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${this.schema}".creation_under_way
        WHERE connection = $1 AND account = $2 AND object_type = $3
          AND started_at > now() - make_interval(secs => $4)`,
      [connection, this.accounts.of(connection), objectType, withinMs / 1000],
    );
    return (rows[0]?.n ?? 0) > 0;
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
    await this.db.query(
      `DELETE FROM "${this.schema}".creation_under_way WHERE started_at < now() - make_interval(days => 1)`,
    );
    const { rows } = await this.db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM "${this.schema}".created_record
                      WHERE created_at < now() - make_interval(days => $1) RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [days],
    );
    return rows[0]?.n ?? 0;
  }
}
