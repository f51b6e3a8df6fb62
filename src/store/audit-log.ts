/**
 * What we changed in the CRM and why: one row per property written (and per person's edit kept beside
 * those writes), and one row per record where nothing was written, saying why. Read back per record, newest first.
 */
import type { ConnectionAccounts } from './connection-accounts.js';
import type { Db } from './db.js';
import { StoreError } from './errors.js';

/**
 * What an audit row says became of a record or one of its properties. Every reader (on-demand, the
 * record card, MCP explain_record, the admin page) counts a property written by `write`.
 */
export type AuditOutcome =
  /** A property written (or, by a creation, given its first value). */
  | 'write'
  /** A person's edit kept beside the values written. */
  | 'kept_person_edit'
  /** A value the CRM would refuse for its length: said without the value. */
  | 'too_long'
  /** Nothing written: the CRM already holds what the partner has, or what was applied last time. */
  | 'unchanged'
  /** Nothing looked up: no match property has a value. */
  | 'skipped'
  /** The partner has no record for the match keys tried. */
  | 'no_match'
  /** The record's company link: */
  | 'not_linked'
  | 'already_linked'
  | 'linked_primary'
  | 'linked'
  | 'link_failed'
  /** A person's new employer, seen by the job-change observer. */
  | 'job_change'
  /** Someone asked for the record's enrichment (the row carries who). */
  | 'requested'
  /** An MCP tool call: answered, refused, or failed with the error's code. */
  | 'ok'
  | 'refused'
  | `error:${string}`;

/**
 * One entry to write: a property written, or (without a property)
 * why nothing was written. Absent and null are the same.
 */
export interface AuditEntry {
  connection: string;
  objectType: string;
  recordId: string;
  /** The property written; absent on a row that explains why nothing was written. */
  property?: string | null;
  oldValue?: string | null;
  newValue?: string | null;
  /** The mapping rule that decided, e.g. `fill_empty`, `overwrite`, `keep_manual_edit`. */
  rule?: string | null;
  /** What became of the record (or the property) in this run. */
  outcome?: AuditOutcome | null;
  /** Why nothing was written (required when `property` is absent). */
  reason?: string | null;
  jobId?: string | null;
  /** Who asked, when not the service itself: `mcp:<client name>` for an assistant's tool call. */
  actor?: string | null;
  at?: Date;
}

/** An entry as read back: every field present, with its id and time. */
export interface AuditRow {
  id: number;
  connection: string;
  objectType: string;
  recordId: string;
  property: string | null;
  oldValue: string | null;
  newValue: string | null;
  rule: string | null;
  outcome: string | null;
  reason: string | null;
  jobId: string | null;
  actor: string | null;
  at: Date;
}

export class AuditLog {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly accounts: ConnectionAccounts,
  ) {}

  private get table(): string {
    return `"${this.schema}".audit_log`;
  }

  async record(entries: AuditEntry[], db: Db = this.db): Promise<number> {
    if (entries.length === 0) return 0;
    entries.forEach((e, i) => {
      if (!e.property && !e.reason) {
        throw new StoreError(
          'invalid_input',
          `audit entry ${i} for record ${e.recordId} has neither a property nor a reason; give one.`,
          { field: 'property' },
        );
      }
    });
    const rows = entries.map((e) => ({
      connection: e.connection,
      account: this.accounts.of(e.connection),
      object_type: e.objectType,
      record_id: e.recordId,
      property: e.property ?? null,
      old_value: e.oldValue ?? null,
      new_value: e.newValue ?? null,
      rule: e.rule ?? null,
      outcome: e.outcome ?? null,
      reason: e.reason ?? null,
      job_id: e.jobId ?? null,
      actor: e.actor ?? null,
      at: (e.at ?? new Date()).toISOString(),
    }));
    const { rows: result } = await db.query<{ n: number }>(
      `WITH ins AS (
         INSERT INTO ${this.table} (connection, account, object_type, record_id, property, old_value, new_value, rule,
           outcome, reason, job_id, actor, at)
         SELECT connection, account, object_type, record_id, property, old_value, new_value, rule, outcome, reason,
           job_id, actor, at
         FROM jsonb_to_recordset($1::jsonb) AS r(connection text, account text, object_type text, record_id text,
           property text, old_value text, new_value text, rule text, outcome text, reason text, job_id text, actor text,
           at timestamptz)
         RETURNING 1)
       SELECT count(*)::int AS n FROM ins`,
      [JSON.stringify(rows)],
    );
    return result[0]?.n ?? 0;
  }

  /** Entries of one record, newest first; pass the last id seen as `beforeId` for the next page. */
  async forRecord(
    key: { connection: string; objectType: string; recordId: string },
    options: { limit?: number; beforeId?: number } = {},
    db: Db = this.db,
  ): Promise<AuditRow[]> {
    const { rows } = await db.query<{
      id: string;
      connection: string;
      object_type: string;
      record_id: string;
      property: string | null;
      old_value: string | null;
      new_value: string | null;
      rule: string | null;
      outcome: string | null;
      reason: string | null;
      job_id: string | null;
      actor: string | null;
      at: Date;
    }>(
      `SELECT * FROM ${this.table}
       WHERE connection = $1 AND account = $6 AND object_type = $2 AND record_id = $3
         AND ($4::bigint IS NULL OR id < $4)
       ORDER BY id DESC LIMIT $5`,
      [
        key.connection,
        key.objectType,
        key.recordId,
        options.beforeId ?? null,
        options.limit ?? 100,
        this.accounts.of(key.connection),
      ],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      connection: r.connection,
      objectType: r.object_type,
      recordId: r.record_id,
      property: r.property,
      oldValue: r.old_value,
      newValue: r.new_value,
      rule: r.rule,
      outcome: r.outcome,
      reason: r.reason,
      jobId: r.job_id,
      actor: r.actor,
      at: new Date(r.at),
    }));
  }
}
