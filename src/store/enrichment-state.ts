/**
 * One row per CRM record we have looked at: what it matched, when, what we wrote, and when it is
 * due for a refresh. The values we last wrote are how a person's edit is told from our own write.
 */
import { z } from 'zod';
import type { ConnectionAccounts } from './connection-accounts.js';
import type { Db } from './db.js';
import { StoreError } from './errors.js';

export const recordStatuses = ['enriched', 'no_match', 'failed', 'skipped'] as const;
export type RecordStatus = (typeof recordStatuses)[number];

export interface RecordKey {
  connection: string;
  objectType: string;
  recordId: string;
}

export interface RecordState extends RecordKey {
  status: RecordStatus;
  partnerId: string | null;
  /** Which identifier found the match, e.g. `email` or `domain`. */
  matchKey: string | null;
  market: string | null;
  lastEnrichedAt: Date | null;
  /** Null: never refresh on schedule. */
  nextRefreshAt: Date | null;
  lastError: string | null;
  /** Hash of the partner data last applied: the same hash again means nothing to write. */
  dataHash: string | null;
  /** Property name to the value we last wrote (column `written`). */
  lastWritten: Record<string, string | null>;
  /** The company record this person record was linked with, and why; null until linked. */
  companyId: string | null;
  companyReason: string | null;
  updatedAt: Date;
}

export type RecordStateInput = RecordKey &
  Partial<Omit<RecordState, keyof RecordKey | 'updatedAt' | 'status'>> & { status: RecordStatus };

/** Rows read back are parsed: a row the code cannot understand is an error, not a silent wrong value. */
const Row = z.object({
  connection: z.string(),
  object_type: z.string(),
  record_id: z.string(),
  status: z.enum(recordStatuses),
  partner_id: z.string().nullable(),
  match_key: z.string().nullable(),
  market: z.string().nullable(),
  last_enriched_at: z.coerce.date().nullable(),
  next_refresh_at: z.coerce.date().nullable(),
  last_error: z.string().nullable(),
  data_hash: z.string().nullable(),
  written: z.record(z.string(), z.string().nullable()),
  company_id: z.string().nullable(),
  company_reason: z.string().nullable(),
  updated_at: z.coerce.date(),
});

function fromRow(raw: unknown): RecordState {
  const r = Row.parse(raw);
  return {
    connection: r.connection,
    objectType: r.object_type,
    recordId: r.record_id,
    status: r.status,
    partnerId: r.partner_id,
    matchKey: r.match_key,
    market: r.market,
    lastEnrichedAt: r.last_enriched_at,
    nextRefreshAt: r.next_refresh_at,
    lastError: r.last_error,
    dataHash: r.data_hash,
    lastWritten: r.written,
    companyId: r.company_id,
    companyReason: r.company_reason,
    updatedAt: r.updated_at,
  };
}

export interface StaleCursor {
  nextRefreshAt: Date;
  recordId: string;
}

export interface StalePage {
  records: Pick<RecordState, 'recordId' | 'nextRefreshAt' | 'partnerId' | 'matchKey' | 'market'>[];
  /** Pass back to get the next page; absent when this page was the last. */
  next?: StaleCursor;
}

export class RecordStateStore {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly accounts: ConnectionAccounts,
  ) {}

  private get table(): string {
    return `"${this.schema}".enrichment_state`;
  }

  /**
   * Inserts or replaces rows in one statement. Fields left out of an input keep their stored value,
   * except `lastWritten`, which is merged property by property.
   */
  async upsertMany(states: RecordStateInput[], db: Db = this.db): Promise<number> {
    if (states.length === 0) return 0;
    const rows = states.map((s) => {
      if (!recordStatuses.includes(s.status)) {
        throw new StoreError(
          'invalid_input',
          `status "${String(s.status)}" of record ${s.recordId} is not one of ${recordStatuses.join(', ')}.`,
          { field: 'status' },
        );
      }
      return {
        connection: s.connection,
        account: this.accounts.of(s.connection),
        object_type: s.objectType,
        record_id: s.recordId,
        status: s.status,
        partner_id: s.partnerId,
        match_key: s.matchKey,
        market: s.market,
        last_enriched_at: s.lastEnrichedAt?.toISOString() ?? null,
        next_refresh_at: s.nextRefreshAt?.toISOString() ?? null,
        last_error: s.lastError,
        data_hash: s.dataHash,
        written: s.lastWritten ?? {},
        company_id: s.companyId,
        company_reason: s.companyReason,
        has: Object.entries(s)
          .filter(([, v]) => v !== undefined)
          .map(([k]) => k),
      };
    });
    const pick = (col: string, field: string) => `CASE WHEN '${field}' = ANY(x.has) THEN x.${col} ELSE cur.${col} END`;
    const { rows: result } = await db.query<{ n: number }>(
      `WITH x AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(
           connection text, account text, object_type text, record_id text, status text, partner_id text,
           match_key text, market text, last_enriched_at timestamptz, next_refresh_at timestamptz, last_error text,
           data_hash text, written jsonb, company_id text, company_reason text, has text[])
       ), up AS (
         INSERT INTO ${this.table} AS t (connection, account, object_type, record_id, status, partner_id,
           match_key, market, last_enriched_at, next_refresh_at, last_error, data_hash, written, company_id,
           company_reason, updated_at)
         SELECT x.connection, x.account, x.object_type, x.record_id, x.status,
           ${pick('partner_id', 'partnerId')}, ${pick('match_key', 'matchKey')}, ${pick('market', 'market')},
           ${pick('last_enriched_at', 'lastEnrichedAt')}, ${pick('next_refresh_at', 'nextRefreshAt')},
           ${pick('last_error', 'lastError')}, ${pick('data_hash', 'dataHash')}, x.written,
           ${pick('company_id', 'companyId')}, ${pick('company_reason', 'companyReason')}, now()
         FROM x LEFT JOIN ${this.table} cur
           ON cur.connection = x.connection AND cur.account = x.account AND cur.object_type = x.object_type
             AND cur.record_id = x.record_id
         ON CONFLICT (connection, account, object_type, record_id) DO UPDATE SET
           status = EXCLUDED.status, partner_id = EXCLUDED.partner_id, match_key = EXCLUDED.match_key,
           market = EXCLUDED.market, last_enriched_at = EXCLUDED.last_enriched_at,
           next_refresh_at = EXCLUDED.next_refresh_at, last_error = EXCLUDED.last_error,
           data_hash = EXCLUDED.data_hash, written = t.written || EXCLUDED.written,
           company_id = EXCLUDED.company_id, company_reason = EXCLUDED.company_reason, updated_at = now()
         RETURNING 1)
       SELECT count(*)::int AS n FROM up`,
      [JSON.stringify(rows)],
    );
    return result[0]?.n ?? 0;
  }

  async get(key: RecordKey, db: Db = this.db): Promise<RecordState | undefined> {
    const { rows } = await db.query(
      `SELECT * FROM ${this.table} WHERE connection = $1 AND account = $4 AND object_type = $2 AND record_id = $3`,
      [key.connection, key.objectType, key.recordId, this.accounts.of(key.connection)],
    );
    return rows[0] === undefined ? undefined : fromRow(rows[0]);
  }

  async getMany(connection: string, objectType: string, recordIds: string[]): Promise<Map<string, RecordState>> {
    if (recordIds.length === 0) return new Map();
    const { rows } = await this.db.query(
      `SELECT * FROM ${this.table}
        WHERE connection = $1 AND account = $4 AND object_type = $2 AND record_id = ANY($3::text[])`,
      [connection, objectType, recordIds, this.accounts.of(connection)],
    );
    return new Map(rows.map((r) => fromRow(r)).map((s) => [s.recordId, s]));
  }

  /**
   * The next `limit` records of one CRM object due for refresh at `now`, oldest due first. A range
   * scan of enrichment_state_due, so its cost does not grow with the table.
   */
  async pickStale(options: {
    connection: string;
    objectType: string;
    limit: number;
    now?: Date;
    after?: StaleCursor;
  }): Promise<StalePage> {
    const now = options.now ?? new Date();
    const after = options.after;
    const account = this.accounts.of(options.connection);
    const { rows } = await this.db.query<{
      record_id: string;
      next_refresh_at: Date;
      partner_id: string | null;
      match_key: string | null;
      market: string | null;
    }>(
      staleQuery(this.table, after !== undefined),
      after
        ? [
            options.connection,
            options.objectType,
            now.toISOString(),
            options.limit,
            after.nextRefreshAt.toISOString(),
            after.recordId,
            account,
          ]
        : [options.connection, options.objectType, now.toISOString(), options.limit, account],
    );
    const records = rows.map((r) => ({
      recordId: r.record_id,
      nextRefreshAt: new Date(r.next_refresh_at),
      partnerId: r.partner_id,
      matchKey: r.match_key,
      market: r.market,
    }));
    const last = records.at(-1);
    return records.length === options.limit && last?.nextRefreshAt
      ? { records, next: { nextRefreshAt: last.nextRefreshAt, recordId: last.recordId } }
      : { records };
  }

  /** Carries state from merged-away records to the survivor, then forgets them (audit rows follow the survivor). */
  async merge(
    connection: string,
    objectType: string,
    survivorId: string,
    mergedIds: string[],
  ): Promise<RecordState | undefined> {
    const others = mergedIds.filter((id) => id !== survivorId);
    if (others.length === 0) return this.get({ connection, objectType, recordId: survivorId });
    const account = this.accounts.of(connection);
    await this.db.transaction(async (tx) => {
      const { rows } = await tx.query(
        `SELECT * FROM ${this.table}
          WHERE connection = $1 AND account = $5 AND object_type = $2 AND record_id = ANY($3::text[])
         ORDER BY (record_id = $4) DESC, last_enriched_at DESC NULLS LAST FOR UPDATE`,
        [connection, objectType, [survivorId, ...others], survivorId, account],
      );
      const states = rows.map((r) => fromRow(r));
      if (states.length === 0) return;
      const survivor = states.find((s) => s.recordId === survivorId);
      const newest = states.filter((s) => s.recordId !== survivorId)[0];
      const base = survivor ?? newest;
      if (!base) return;
      // What we wrote to any of the merged records may now sit on the survivor; the survivor's own wins.
      const lastWritten: Record<string, string | null> = {};
      for (const s of states.slice().reverse()) Object.assign(lastWritten, s.lastWritten);
      Object.assign(lastWritten, survivor?.lastWritten);
      await tx.query(
        `DELETE FROM ${this.table}
          WHERE connection = $1 AND account = $4 AND object_type = $2 AND record_id = ANY($3::text[])`,
        [connection, objectType, others, account],
      );
      await this.upsertMany([{ ...base, recordId: survivorId, lastWritten }], tx);
      await tx.query(
        `UPDATE "${this.schema}".audit_log SET record_id = $3
          WHERE connection = $1 AND account = $5 AND object_type = $2 AND record_id = ANY($4::text[])`,
        [connection, objectType, survivorId, others, account],
      );
    });
    return this.get({ connection, objectType, recordId: survivorId });
  }

  async delete(keys: RecordKey[]): Promise<number> {
    let n = 0;
    for (const key of keys) {
      const { rows } = await this.db.query<{ n: number }>(
        `WITH gone AS (DELETE FROM ${this.table}
           WHERE connection = $1 AND account = $4 AND object_type = $2 AND record_id = $3 RETURNING 1)
         SELECT count(*)::int AS n FROM gone`,
        [key.connection, key.objectType, key.recordId, this.accounts.of(key.connection)],
      );
      n += rows[0]?.n ?? 0;
    }
    return n;
  }

  async countByStatus(
    filter: { connection?: string; objectType?: string } = {},
  ): Promise<Record<RecordStatus, number>> {
    const { rows } = await this.db.query<{ status: RecordStatus; n: number }>(
      `SELECT status, count(*)::int AS n FROM ${this.table}
       WHERE ($1::text IS NULL OR connection = $1) AND ($2::text IS NULL OR object_type = $2)
         AND account = COALESCE($3::jsonb ->> connection, '') GROUP BY status`,
      [filter.connection ?? null, filter.objectType ?? null, this.accounts.json()],
    );
    const counts = Object.fromEntries(recordStatuses.map((s) => [s, 0])) as Record<RecordStatus, number>;
    for (const row of rows) counts[row.status] = row.n;
    return counts;
  }
}

/** Exported for the index test, which EXPLAINs exactly the statement pickStale runs. */
export function staleQuery(table: string, withCursor: boolean): string {
  // Two statements rather than one with an optional cursor: an OR around the row comparison
  // would keep the planner from starting the index scan at the cursor.
  return `SELECT record_id, next_refresh_at, partner_id, match_key, market FROM ${table}
     WHERE connection = $1 AND account = $${withCursor ? 7 : 5} AND object_type = $2
       AND next_refresh_at IS NOT NULL AND next_refresh_at <= $3::timestamptz
       ${withCursor ? 'AND (next_refresh_at, record_id) > ($5::timestamptz, $6::text)' : ''}
     ORDER BY next_refresh_at, record_id LIMIT $4`;
}
