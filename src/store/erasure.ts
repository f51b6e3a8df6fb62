/**
 * Privacy deletion: everything we hold about one CRM record or one e-mail address goes, in one
 * transaction, and the caller learns how many rows each table lost (for the deletion receipt).
 */
import type { Db } from './db.js';
import type { RecordKey } from './enrichment-state.js';
import type { JobQueue } from './queue.js';

export interface ErasureReport {
  enrichmentState: number;
  auditLog: number;
  lookupCache: number;
  jobs: number;
  receivedEvents: number;
}

export class Erasure {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly queue: JobQueue,
  ) {}

  /**
   * The record's state, audit trail, jobs and event keys, plus cached partner answers about the
   * person it matched. E-mail addresses the caller knows the record had are erased as well.
   */
  async eraseRecord(key: RecordKey, options: { emails?: string[] } = {}): Promise<ErasureReport> {
    const s = this.schema;
    const report = await this.db.transaction(async (tx) => {
      const args = [key.connection, key.objectType, key.recordId];
      const state = await tx.query<{ partner_id: string | null }>(
        `DELETE FROM "${s}".enrichment_state WHERE connection = $1 AND object_type = $2 AND record_id = $3 RETURNING partner_id`,
        args,
      );
      const audit = await count(tx, `DELETE FROM "${s}".audit_log WHERE connection = $1 AND object_type = $2 AND record_id = $3`, args);
      const partnerIds = state.rows.map((r) => r.partner_id).filter((id): id is string => !!id);
      const cache = partnerIds.length
        ? await count(tx, `DELETE FROM "${s}".lookup_cache WHERE hit AND strpos(response::text, $1) > 0`, [JSON.stringify(partnerIds[0])])
        : 0;
      const queued = await this.queue.erase(tx, { record: key });
      return { enrichmentState: state.rows.length, auditLog: audit, lookupCache: cache, jobs: queued.jobs, receivedEvents: queued.receivedEvents };
    });
    for (const email of options.emails ?? []) add(report, await this.eraseEmail(email));
    return report;
  }

  /** Cache entries keyed by or mentioning the address, and state, audit and job rows whose values hold it. */
  async eraseEmail(email: string): Promise<ErasureReport> {
    const s = this.schema;
    const needle = email.trim().toLowerCase();
    if (!needle) return { enrichmentState: 0, auditLog: 0, lookupCache: 0, jobs: 0, receivedEvents: 0 };
    return this.db.transaction(async (tx) => {
      const cache = await count(
        tx,
        `DELETE FROM "${s}".lookup_cache WHERE value = $1 OR strpos(lower(coalesce(response::text, '')), $1) > 0`,
        [needle],
      );
      const state = await count(
        tx,
        `DELETE FROM "${s}".enrichment_state WHERE strpos(lower(concat_ws(' ', written::text, match_key, last_error)), $1) > 0`,
        [needle],
      );
      const audit = await count(
        tx,
        `DELETE FROM "${s}".audit_log WHERE strpos(lower(concat_ws(' ', old_value, new_value, reason)), $1) > 0`,
        [needle],
      );
      const queued = await this.queue.erase(tx, { text: needle });
      return { enrichmentState: state, auditLog: audit, lookupCache: cache, jobs: queued.jobs, receivedEvents: queued.receivedEvents };
    });
  }
}

async function count(db: Db, deleteSql: string, params: unknown[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`WITH gone AS (${deleteSql} RETURNING 1) SELECT count(*)::int AS n FROM gone`, params);
  return rows[0]?.n ?? 0;
}

function add(into: ErasureReport, more: ErasureReport): void {
  for (const k of Object.keys(into) as (keyof ErasureReport)[]) into[k] += more[k];
}
