/**
 * Workflow steps waiting for their callback (HubSpot custom workflow actions answered "blocked"): one
 * row each until the callback has been sent, so neither a restart nor a CRM outage loses one. Several
 * instances share the table; a row is leased to one of them at a time.
 */
import type { ConnectionAccounts } from './connection-accounts.js';
import type { Db } from './db.js';

/** A pending callback's row as stored. */
interface CallbackRow {
  callback_id: string;
  connection: string;
  object_type: string;
  record_id: string;
  since_audit_id: string;
  job_id: string | null;
  outputs: Record<string, string | number | boolean> | null;
  attempts: number;
  created_at: Date;
}

export interface PendingCallback {
  callbackId: string;
  connection: string;
  objectType: string;
  recordId: string;
  /** The record's newest audit row when the step was asked for; the run after it is the step's outcome. */
  sinceAuditId: number;
  jobId: string | null;
  /** The output fields once the outcome is known; null while the run has not settled. */
  outputs: Record<string, string | number | boolean> | null;
  attempts: number;
  createdAt: Date;
}

export class WorkflowCallbacks {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly accounts: ConnectionAccounts,
  ) {}

  private get table(): string {
    return `"${this.schema}".workflow_callback`;
  }

  /** Keeps a step to complete later; the same callback id again (HubSpot resending the step) changes nothing. */
  async add(
    entry: Pick<PendingCallback, 'callbackId' | 'connection' | 'objectType' | 'recordId' | 'sinceAuditId' | 'jobId'>,
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO ${this.table} (callback_id, connection, object_type, record_id, since_audit_id, job_id, account)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (callback_id) DO NOTHING`,
      [
        entry.callbackId,
        entry.connection,
        entry.objectType,
        entry.recordId,
        entry.sinceAuditId,
        entry.jobId,
        this.accounts.of(entry.connection),
      ],
    );
  }

  /**
   * Up to `limit` steps due for a look, leased for `leaseMs`: another instance does not take them
   * meanwhile, and one that stopped mid-way leaves them to be taken again when the lease runs out.
   */
  async lease(limit: number, leaseMs: number): Promise<PendingCallback[]> {
    const { rows } = await this.db.query<CallbackRow>(
      `UPDATE ${this.table} SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
       WHERE callback_id IN (
         SELECT callback_id FROM ${this.table} WHERE completed_at IS NULL AND next_attempt_at <= now()
           AND account = COALESCE($3::jsonb ->> connection, '')
         ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING callback_id, connection, object_type, record_id,
         since_audit_id, job_id, outputs, attempts, created_at`,
      [limit, leaseMs, this.accounts.json()],
    );
    return rows.map((r) => ({
      callbackId: r.callback_id,
      connection: r.connection,
      objectType: r.object_type,
      recordId: r.record_id,
      sinceAuditId: Number(r.since_audit_id),
      jobId: r.job_id,
      outputs: r.outputs,
      attempts: r.attempts,
      createdAt: new Date(r.created_at),
    }));
  }

  /** The outcome is known; the callback is sent next. */
  async setOutputs(callbackId: string, outputs: Record<string, string | number | boolean>): Promise<void> {
    await this.db.query(`UPDATE ${this.table} SET outputs = $2::jsonb WHERE callback_id = $1`, [
      callbackId,
      JSON.stringify(outputs),
    ]);
  }

  /** Looks again after `delayMs`; a failed send counts an attempt and says why. */
  async later(callbackId: string, delayMs: number, failure?: string): Promise<void> {
    await this.db.query(
      `UPDATE ${this.table} SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000),
         attempts = attempts + CASE WHEN $3::text IS NULL THEN 0 ELSE 1 END, last_error = coalesce($3, last_error)
       WHERE callback_id = $1`,
      [callbackId, delayMs, failure ?? null],
    );
  }

  /** Done: the callback was sent, or given up on (`failure` says why). */
  async finish(callbackId: string, failure?: string): Promise<void> {
    await this.db.query(
      `UPDATE ${this.table} SET completed_at = now(), last_error = coalesce($2, last_error) WHERE callback_id = $1`,
      [callbackId, failure ?? null],
    );
  }

  /** One step's row as it stands (the admin and tests look at it). */
  async get(
    callbackId: string,
  ): Promise<(PendingCallback & { completedAt: Date | null; lastError: string | null }) | undefined> {
    const { rows } = await this.db.query<CallbackRow & { completed_at: Date | null; last_error: string | null }>(
      `SELECT * FROM ${this.table} WHERE callback_id = $1`,
      [callbackId],
    );
    const r = rows[0];
    if (!r) return undefined;
    return {
      callbackId: r.callback_id,
      connection: r.connection,
      objectType: r.object_type,
      recordId: r.record_id,
      sinceAuditId: Number(r.since_audit_id),
      jobId: r.job_id,
      outputs: r.outputs,
      attempts: r.attempts,
      createdAt: new Date(r.created_at),
      completedAt: r.completed_at ? new Date(r.completed_at) : null,
      lastError: r.last_error,
    };
  }

  /** Forgets steps completed more than `days` ago. */
  async prune(days: number): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM ${this.table} WHERE completed_at < now() - make_interval(days => $1) RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [days],
    );
    return rows[0]?.n ?? 0;
  }
}
