/**
 * Job changes: the role each person record's last partner lookup showed (what the next one is compared
 * with), every move detected, and what was done about it. A move, the record's new known role and the
 * audit row that tells the record's history are stored in one transaction: a retried run finds the
 * role already moved on and never records the same move twice.
 */
import { z } from 'zod';
import type { AuditEntry, AuditLog } from './audit-log.js';
import type { ConnectionAccounts } from './connection-accounts.js';
import type { Db } from './db.js';
import type { RecordKey } from './enrichment-state.js';

export interface StoredRole {
  personId: string | null;
  companyId: string | null;
  domain: string | null;
  companyName: string | null;
  title: string | null;
  /** `YYYY-MM`. */
  started: string | null;
}

export interface NewJobChange extends RecordKey {
  personId: string | null;
  kind: 'employer' | 'new_role';
  from: { companyId: string | null; domain: string | null; name: string | null };
  to: { companyId: string | null; domain: string | null; name: string | null };
  oldTitle: string | null;
  newTitle: string | null;
  started: string | null;
  reason: string;
}

export interface JobChange extends NewJobChange {
  id: string;
  detectedAt: Date;
  /** By action name, what became of it: `done`, `skipped: <why>`, `failed: <why>`. */
  actions: Record<string, string>;
}

/** What one observed lookup leaves: the record's role from now on, and the move if it was one. */
export interface RoleObservation {
  key: RecordKey;
  role: StoredRole;
  change?: NewJobChange;
  audit?: AuditEntry;
}

const RoleRow = z.object({
  record_id: z.string(),
  person_id: z.string().nullable(),
  company_id: z.string().nullable(),
  domain: z.string().nullable(),
  company_name: z.string().nullable(),
  title: z.string().nullable(),
  started: z.string().nullable(),
});

const ChangeRow = z.object({
  id: z.coerce.string(),
  connection: z.string(),
  object_type: z.string(),
  record_id: z.string(),
  person_id: z.string().nullable(),
  kind: z.enum(['employer', 'new_role']),
  from_company_id: z.string().nullable(),
  from_domain: z.string().nullable(),
  from_company_name: z.string().nullable(),
  to_company_id: z.string().nullable(),
  to_domain: z.string().nullable(),
  to_company_name: z.string().nullable(),
  old_title: z.string().nullable(),
  new_title: z.string().nullable(),
  started: z.string().nullable(),
  reason: z.string(),
  detected_at: z.coerce.date(),
  actions: z.record(z.string(), z.string()),
});

function changeOf(raw: unknown): JobChange {
  const r = ChangeRow.parse(raw);
  return {
    id: r.id,
    connection: r.connection,
    objectType: r.object_type,
    recordId: r.record_id,
    personId: r.person_id,
    kind: r.kind,
    from: { companyId: r.from_company_id, domain: r.from_domain, name: r.from_company_name },
    to: { companyId: r.to_company_id, domain: r.to_domain, name: r.to_company_name },
    oldTitle: r.old_title,
    newTitle: r.new_title,
    started: r.started,
    reason: r.reason,
    detectedAt: r.detected_at,
    actions: r.actions,
  };
}

export class JobChangeStore {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly audit: AuditLog,
    private readonly accounts: ConnectionAccounts,
  ) {}

  /** The known role of each of these records that has one. */
  async roles(connection: string, objectType: string, recordIds: string[]): Promise<Map<string, StoredRole>> {
    if (recordIds.length === 0) return new Map();
    const { rows } = await this.db.query(
      `SELECT record_id, person_id, company_id, domain, company_name, title, started FROM "${this.schema}".record_roles
       WHERE connection = $1 AND account = $4 AND object_type = $2 AND record_id = ANY($3::text[])`,
      [connection, objectType, recordIds, this.accounts.of(connection)],
    );
    return new Map(
      rows.map((raw) => {
        const r = RoleRow.parse(raw);
        return [
          r.record_id,
          {
            personId: r.person_id,
            companyId: r.company_id,
            domain: r.domain,
            companyName: r.company_name,
            title: r.title,
            started: r.started,
          },
        ];
      }),
    );
  }

  /** Stores the record's role, and the move with its audit row when there is one, in one transaction; the move's id. */
  async observe(observation: RoleObservation): Promise<string | undefined> {
    const { key, role, change, audit } = observation;
    return this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO "${this.schema}".record_roles
           (connection, object_type, record_id, person_id, company_id, domain, company_name, title, started, seen_at,
            account)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now(), $10)
         ON CONFLICT (connection, account, object_type, record_id) DO UPDATE SET
           person_id = EXCLUDED.person_id, company_id = EXCLUDED.company_id, domain = EXCLUDED.domain,
           company_name = EXCLUDED.company_name, title = EXCLUDED.title, started = EXCLUDED.started, seen_at = now()`,
        [
          key.connection,
          key.objectType,
          key.recordId,
          role.personId,
          role.companyId,
          role.domain,
          role.companyName,
          role.title,
          role.started,
          this.accounts.of(key.connection),
        ],
      );
      if (!change) return undefined;
      const { rows } = await tx.query<{ id: string }>(
        `INSERT INTO "${this.schema}".job_changes (connection, object_type, record_id, person_id, kind,
           from_company_id, from_domain, from_company_name, to_company_id, to_domain, to_company_name,
           old_title, new_title, started, reason, account)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING id::text AS id`,
        [
          change.connection,
          change.objectType,
          change.recordId,
          change.personId,
          change.kind,
          change.from.companyId,
          change.from.domain,
          change.from.name,
          change.to.companyId,
          change.to.domain,
          change.to.name,
          change.oldTitle,
          change.newTitle,
          change.started,
          change.reason,
          this.accounts.of(change.connection),
        ],
      );
      if (audit) await this.audit.record([audit], tx);
      return rows[0]!.id;
    });
  }

  /** Records what became of one action of a move (added to those already recorded). */
  async recordActions(id: string, actions: Record<string, string>): Promise<void> {
    await this.db.query(
      `UPDATE "${this.schema}".job_changes SET actions = actions || $2::jsonb WHERE id = $1::bigint`,
      [id, JSON.stringify(actions)],
    );
  }

  /** Moves detected at or after `since`, newest first. */
  async list(options: { since: Date; limit: number; connection?: string }): Promise<JobChange[]> {
    const { rows } = await this.db.query(
      `SELECT * FROM "${this.schema}".job_changes WHERE detected_at >= $1 AND ($2::text IS NULL OR connection = $2)
         AND account = COALESCE($4::jsonb ->> connection, '')
       ORDER BY detected_at DESC, id DESC LIMIT $3`,
      [options.since.toISOString(), options.connection ?? null, options.limit, this.accounts.json()],
    );
    return rows.map(changeOf);
  }

  /** How many moves were detected each week (weeks starting Monday, UTC) since `since`, oldest first. */
  async weekly(since: Date): Promise<{ week: string; count: number }[]> {
    const { rows } = await this.db.query<{ week: string; count: number }>(
      `SELECT to_char(date_trunc('week', detected_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS week, count(*)::int AS count
       FROM "${this.schema}".job_changes
       WHERE detected_at >= $1 AND account = COALESCE($2::jsonb ->> connection, '') GROUP BY 1 ORDER BY 1`,
      [since.toISOString(), this.accounts.json()],
    );
    return rows;
  }
}
