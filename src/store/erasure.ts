/**
 * Privacy deletion: everything we hold about one CRM record or one e-mail address goes, in one
 * transaction, and the caller learns how many rows each table lost (for the deletion receipt).
 */
import type { ConnectionAccounts } from './connection-accounts.js';
import type { Db } from './db.js';
import type { RecordKey } from './enrichment-state.js';

export interface ErasureReport {
  enrichmentState: number;
  auditLog: number;
  lookupCache: number;
  jobs: number;
  receivedEvents: number;
  /** The record's known role and the job changes detected for it. */
  jobChanges: number;
}

export class Erasure {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly accounts: ConnectionAccounts,
  ) {}

  /**
   * The record's state, audit trail, jobs and event keys, plus cached partner answers about the
   * person it matched. E-mail addresses the caller knows the record had are erased as well.
   */
  async eraseRecord(key: RecordKey, options: { emails?: string[] } = {}): Promise<ErasureReport> {
    const s = this.schema;
    const report = await this.db.transaction(async (tx) => {
      const args = [key.connection, key.objectType, key.recordId, this.accounts.of(key.connection)];
      const state = await tx.query<{ partner_id: string | null }>(
        `DELETE FROM "${s}".enrichment_state
          WHERE connection = $1 AND account = $4 AND object_type = $2 AND record_id = $3 RETURNING partner_id`,
        args,
      );
      const audit = await count(
        tx,
        `DELETE FROM "${s}".audit_log WHERE connection = $1 AND account = $4 AND object_type = $2 AND record_id = $3`,
        args,
      );
      const partnerIds = state.rows.map((r) => r.partner_id).filter((id): id is string => !!id);
      const cache = partnerIds.length
        ? await count(tx, `DELETE FROM "${s}".lookup_cache WHERE hit AND strpos(response::text, $1) > 0`, [
            JSON.stringify(partnerIds[0]),
          ])
        : 0;
      const queued = await this.eraseJobs(tx, { record: key });
      const jobChanges =
        (await count(
          tx,
          `DELETE FROM "${s}".record_roles
           WHERE connection = $1 AND account = $4 AND object_type = $2 AND record_id = $3`,
          args,
        )) +
        (await count(
          tx,
          `DELETE FROM "${s}".job_changes
           WHERE connection = $1 AND account = $4 AND object_type = $2 AND record_id = $3`,
          args,
        ));
      return {
        enrichmentState: state.rows.length,
        auditLog: audit,
        lookupCache: cache,
        jobs: queued.jobs,
        receivedEvents: queued.receivedEvents,
        jobChanges,
      };
    });
    for (const email of options.emails ?? []) add(report, await this.eraseEmail(email));
    return report;
  }

  /** Cache entries keyed by or mentioning the address, and state, audit and job rows whose values hold it. */
  async eraseEmail(email: string): Promise<ErasureReport> {
    const s = this.schema;
    const needle = email.trim().toLowerCase();
    if (!needle) return { enrichmentState: 0, auditLog: 0, lookupCache: 0, jobs: 0, receivedEvents: 0, jobChanges: 0 };
    return this.db.transaction(async (tx) => {
      const cache = await count(
        tx,
        `DELETE FROM "${s}".lookup_cache WHERE value = $1 OR strpos(lower(coalesce(response::text, '')), $1) > 0`,
        [needle],
      );
      const state = await count(
        tx,
        `DELETE FROM "${s}".enrichment_state
         WHERE strpos(lower(concat_ws(' ', written::text, match_key, last_error)), $1) > 0`,
        [needle],
      );
      const audit = await count(
        tx,
        `DELETE FROM "${s}".audit_log WHERE strpos(lower(concat_ws(' ', old_value, new_value, reason)), $1) > 0`,
        [needle],
      );
      const queued = await this.eraseJobs(tx, { text: needle });
      return {
        enrichmentState: state,
        auditLog: audit,
        lookupCache: cache,
        jobs: queued.jobs,
        receivedEvents: queued.receivedEvents,
        jobChanges: 0,
      };
    });
  }

  /**
   * Deletes every job (any state, the dead letter included) about one record, or whose data or
   * error text holds `text` (an e-mail address, lower-cased), and the event keys of that record.
   */
  private async eraseJobs(
    tx: Db,
    about: { record: RecordKey } | { text: string },
  ): Promise<{ jobs: number; receivedEvents: number }> {
    const s = this.schema;
    if ('record' in about) {
      const { connection, objectType, recordId } = about.record;
      const account = this.accounts.of(connection);
      // Jobs stored before they named an account belong to whichever account the connection is on.
      const jobs = await tx.query<{ n: number }>(
        `WITH gone AS (DELETE FROM "${s}".job
         WHERE data @> $1::jsonb AND COALESCE(data->>'account', $2) = $2 RETURNING 1)
         SELECT count(*)::int AS n FROM gone`,
        [JSON.stringify({ connection, objectType, recordId }), account],
      );
      const events = await tx.query<{ n: number }>(
        `WITH gone AS (DELETE FROM "${s}".received_event
         WHERE connection = $1 AND account = $4 AND object_type = $2 AND record_id = $3
         RETURNING 1)
         SELECT count(*)::int AS n FROM gone`,
        [connection, objectType, recordId, account],
      );
      return { jobs: jobs.rows[0]?.n ?? 0, receivedEvents: events.rows[0]?.n ?? 0 };
    }
    const jobs = await tx.query<{ n: number }>(
      `WITH gone AS (
         DELETE FROM "${s}".job
         WHERE strpos(lower(concat_ws(' ', data::text, output::text, source_output::text)), $1) > 0
         RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [about.text.toLowerCase()],
    );
    return { jobs: jobs.rows[0]?.n ?? 0, receivedEvents: 0 };
  }
}

async function count(db: Db, deleteSql: string, params: unknown[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH gone AS (${deleteSql} RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    params,
  );
  return rows[0]?.n ?? 0;
}

function add(into: ErasureReport, more: ErasureReport): void {
  for (const k of Object.keys(into) as (keyof ErasureReport)[]) into[k] += more[k];
}
