/**
 * HubSpot workflow steps, by callbackId: every step asked for (so a step sent again runs once, and is
 * answered as it was the first time), and those answered "blocked" until their callback has been sent,
 * so neither a restart nor a CRM outage loses one. Several instances share the table; a blocked row is
 * leased to one of them at a time.
 */
import type { OnDemandOutcome } from '../core/entry-point.js';
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

/** A step as the request that asks for it finds it. */
export interface ClaimedStep {
  /** true: this request made the row, and is the step's first. */
  first: boolean;
  sinceAuditId: number;
  jobId: string | null;
  /** What the step was answered, once a request has answered it: its outcome, or `pending` (BLOCK). */
  answer: OnDemandOutcome | 'pending' | undefined;
}

interface StepRow {
  since_audit_id: string;
  job_id: string | null;
  blocked: boolean;
  outcome: OnDemandOutcome | null;
}

const answerOf = (row: StepRow): OnDemandOutcome | 'pending' | undefined =>
  row.blocked ? 'pending' : (row.outcome ?? undefined);

export class WorkflowCallbacks {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly accounts: ConnectionAccounts,
  ) {}

  private get table(): string {
    return `"${this.schema}".workflow_callback`;
  }

  /**
   * The step's row, made by the first request for its callback id (not yet blocked, so no callback is
   * sent for it); a later request for the same id finds the first's row as it stands.
   */
  async claim(
    entry: Pick<PendingCallback, 'callbackId' | 'connection' | 'objectType' | 'recordId' | 'sinceAuditId'>,
  ): Promise<ClaimedStep> {
    const { rows } = await this.db.query<StepRow & { first: boolean }>(
      `WITH made AS (
         INSERT INTO ${this.table} (callback_id, connection, object_type, record_id, since_audit_id, account, blocked)
         VALUES ($1, $2, $3, $4, $5, $6, false) ON CONFLICT (callback_id) DO NOTHING
         RETURNING since_audit_id, job_id, blocked, outcome
       )
       SELECT since_audit_id, job_id, blocked, outcome, true AS first FROM made
       UNION ALL
       SELECT since_audit_id, job_id, blocked, outcome, false AS first FROM ${this.table}
         WHERE callback_id = $1 AND NOT EXISTS (SELECT 1 FROM made)`,
      [
        entry.callbackId,
        entry.connection,
        entry.objectType,
        entry.recordId,
        entry.sinceAuditId,
        this.accounts.of(entry.connection),
      ],
    );
    const row = rows[0]!;
    return { first: row.first, sinceAuditId: Number(row.since_audit_id), jobId: row.job_id, answer: answerOf(row) };
  }

  /** The job the step's run is. */
  async setJob(callbackId: string, jobId: string): Promise<void> {
    await this.db.query(`UPDATE ${this.table} SET job_id = $2 WHERE callback_id = $1 AND job_id IS NULL`, [
      callbackId,
      jobId,
    ]);
  }

  /**
   * Records what the step is answered: its outcome (done, no callback owed) or `pending` (blocked: due
   * for its callback now). The first request to answer decides; the answer returned is the one kept, so
   * a request racing another for the same step answers as that one did.
   */
  async conclude(callbackId: string, result: OnDemandOutcome | 'pending'): Promise<OnDemandOutcome | 'pending'> {
    const pending = result === 'pending';
    const { rows } = await this.db.query<StepRow>(
      `WITH done AS (
         UPDATE ${this.table} SET blocked = $2, next_attempt_at = now(),
           outcome = $3::jsonb, completed_at = CASE WHEN $2 THEN NULL ELSE now() END
         WHERE callback_id = $1 AND NOT blocked AND outcome IS NULL
         RETURNING since_audit_id, job_id, blocked, outcome
       )
       SELECT * FROM done
       UNION ALL
       SELECT since_audit_id, job_id, blocked, outcome FROM ${this.table}
         WHERE callback_id = $1 AND NOT EXISTS (SELECT 1 FROM done)`,
      [callbackId, pending, pending ? null : JSON.stringify(result)],
    );
    const row = rows[0];
    return (row && answerOf(row)) ?? result;
  }

  /**
   * Up to `limit` steps due for a look, leased for `leaseMs`: another instance does not take them
   * meanwhile, and one that stopped mid-way leaves them to be taken again when the lease runs out.
   */
  async lease(limit: number, leaseMs: number): Promise<PendingCallback[]> {
    const { rows } = await this.db.query<CallbackRow>(
      `UPDATE ${this.table} SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
       WHERE callback_id IN (
         SELECT callback_id FROM ${this.table} WHERE blocked AND completed_at IS NULL AND next_attempt_at <= now()
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

  /**
   * Forgets steps completed more than `days` ago, and steps never answered (their request stopped
   * mid-way) asked for that long ago; HubSpot sends a step again for three days at most.
   */
  async prune(days: number): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM ${this.table} WHERE completed_at < now() - make_interval(days => $1)
         OR (NOT blocked AND completed_at IS NULL AND created_at < now() - make_interval(days => $1)) RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [days],
    );
    return rows[0]?.n ?? 0;
  }
}
