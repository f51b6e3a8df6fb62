/**
 * The statements crm-enrich runs against pg-boss's own job table, in one place. pg-boss has no API
 * for these (put a job back without spending an attempt, a heartbeat that moves the expiry, handing
 * back a dead holder's jobs, counts and dead letters read in one query); test/store/job-table.test.ts
 * checks every column used here exists, so a pg-boss upgrade that changes them fails a test, not
 * production.
 */
import type { Db } from './db.js';
import { parkedReason } from './parked-reason.js';
import {
  DEAD_LETTER_QUEUE,
  type ClaimedJob,
  type DeadLetter,
  type QueueCounts,
  type RecordRef,
  type RetryingJob,
} from './queue-types.js';

/** Every column of pg-boss's job table used below. */
export const JOB_TABLE_COLUMNS = [
  'id',
  'name',
  'state',
  'data',
  'retry_count',
  'retry_limit',
  'started_on',
  'heartbeat_on',
  'start_after',
  'created_on',
  'output',
  'source_name',
  'source_output',
  'source_retry_count',
  'source_created_on',
] as const;

export class JobTable {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
  ) {}

  /**
   * An index of crm-enrich's own on pg-boss's table, of the jobs being worked on: reclaimStale looks
   * among them every heartbeat on every instance, and without it read the whole table, backlog and
   * all (15 ms a look with 100,000 jobs waiting). Partial, so a job that waits or is done costs it
   * nothing, and without heartbeat_on, so a heartbeat can still update its row in place (HOT). Made
   * under an advisory lock, so instances starting together do not race.
   */
  async ensureIndexes(): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`crm-enrich job indexes ${this.schema}`]);
      await tx.query(`CREATE INDEX IF NOT EXISTS job_active ON "${this.schema}".job (name) WHERE state = 'active'`);
    });
  }

  /** With no retries left, pg-boss's own fail moves a job to the dead letter and keeps the error. */
  async spendAllAttempts(queue: string, job: Pick<ClaimedJob, 'id' | 'retryCount'>): Promise<void> {
    await this.db.query(
      `UPDATE "${this.schema}".job SET retry_limit = retry_count
       WHERE name = $1 AND id = $2 AND retry_count = $3 AND state = 'active'`,
      [queue, job.id, job.retryCount],
    );
  }

  /**
   * Puts claimed jobs back without spending an attempt (a budget pause, a CRM rate limit), to be
   * handed out again after `delayMs`. Returns how many were still this worker's.
   */
  async release(queue: string, jobs: Pick<ClaimedJob, 'id' | 'retryCount'>[], delayMs: number): Promise<number> {
    if (jobs.length === 0) return 0;
    // pg-boss counts an attempt when it hands out a job that was started before; clearing
    // started_on returns the job as if never claimed.
    const { rows } = await this.db.query<{ n: number }>(
      `WITH back AS (
         UPDATE "${this.schema}".job j
         SET state = 'created', started_on = NULL, heartbeat_on = NULL,
             start_after = now() + make_interval(secs => $3::double precision / 1000)
         FROM jsonb_to_recordset($2::jsonb) AS a(id uuid, "retryCount" int)
         WHERE j.name = $1 AND j.id = a.id AND j.retry_count = a."retryCount" AND j.state = 'active'
         RETURNING 1)
       SELECT count(*)::int AS n FROM back`,
      [queue, JSON.stringify(jobs.map((j) => ({ id: j.id, retryCount: j.retryCount }))), Math.max(0, delayMs)],
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * The holder's heartbeat: says that these claimed jobs are still being worked on (or waiting their
   * turn in this process), so neither reclaimStale nor the expiry hands them to another worker.
   * The expiry then counts from the last heartbeat, so it bounds a silent holder, not a long wait.
   * Fenced to the attempt that was claimed; returns how many were still this worker's.
   */
  async heartbeat(queue: string, jobs: Pick<ClaimedJob, 'id' | 'retryCount'>[]): Promise<number> {
    if (jobs.length === 0) return 0;
    const { rows } = await this.db.query<{ n: number }>(
      `WITH beat AS (
         UPDATE "${this.schema}".job j SET heartbeat_on = now(), started_on = now()
         FROM jsonb_to_recordset($2::jsonb) AS a(id uuid, "retryCount" int)
         WHERE j.name = $1 AND j.id = a.id AND j.retry_count = a."retryCount" AND j.state = 'active'
         RETURNING 1)
       SELECT count(*)::int AS n FROM beat`,
      [queue, JSON.stringify(jobs.map((j) => ({ id: j.id, retryCount: j.retryCount })))],
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * Hands back the jobs whose holder stopped beating for `staleSeconds` (a killed or frozen process)
   * at once and without spending an attempt: a restart is not a failure. A job that comes back this
   * way `maxReclaims` times (it may be what kills its workers) is left to the expiry, which does
   * count an attempt, so a poison job still ends in the dead letter. Any instance may call this;
   * rows are locked with SKIP LOCKED, so two callers never hand out one job twice.
   */
  async reclaimStale(queues: string[], staleSeconds: number, maxReclaims = 3): Promise<number> {
    if (queues.length === 0) return 0;
    const { rows } = await this.db.query<{ n: number }>(
      `WITH stale AS (
         SELECT id FROM "${this.schema}".job
         WHERE name = ANY($1::text[]) AND state = 'active'
           AND heartbeat_on < now() - make_interval(secs => $2::double precision)
           AND COALESCE((data->>'reclaims')::int, 0) < $3
         FOR UPDATE SKIP LOCKED),
       back AS (
         UPDATE "${this.schema}".job j
         SET state = 'created', started_on = NULL, heartbeat_on = NULL, start_after = now(),
             data = jsonb_set(j.data, '{reclaims}', to_jsonb(COALESCE((j.data->>'reclaims')::int, 0) + 1))
         FROM stale WHERE j.id = stale.id AND j.name = ANY($1::text[])
         RETURNING 1)
       SELECT count(*)::int AS n FROM back`,
      [queues, staleSeconds, maxReclaims],
    );
    return rows[0]?.n ?? 0;
  }

  /** Counts by state for every queue (the dead letter included); depth is what waits to run. */
  async counts(): Promise<QueueCounts[]> {
    const { rows } = await this.db.query<{ queue: string; state: string; n: number }>(
      `SELECT name AS queue, state::text AS state, count(*)::int AS n FROM "${this.schema}".job
       GROUP BY name, state ORDER BY name`,
    );
    const byQueue = new Map<string, QueueCounts>();
    for (const row of rows) {
      const c = byQueue.get(row.queue) ?? {
        queue: row.queue,
        created: 0,
        retry: 0,
        active: 0,
        completed: 0,
        failed: 0,
        cancelled: 0,
        depth: 0,
      };
      if (row.state in c) (c as unknown as Record<string, number>)[row.state] = row.n;
      c.depth = c.created + c.retry;
      byQueue.set(row.queue, c);
    }
    return [...byQueue.values()];
  }

  async depth(queue: string): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${this.schema}".job WHERE name = $1 AND state < 'active'`,
      [queue],
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * Jobs waiting or running in every queue but the dead letter, and how long the oldest waiting one has
   * waited (null when none waits): the gauges the admin page charts. One query, whatever the queues.
   */
  async backlog(): Promise<{ depth: number; oldestAgeSeconds: number | null }> {
    const { rows } = await this.db.query<{ depth: number; oldest: number | null }>(
      `SELECT count(*)::int AS depth,
         extract(epoch FROM now() - min(created_on) FILTER (WHERE state < 'active'))::float8 AS oldest
       FROM "${this.schema}".job WHERE name <> $1 AND state <= 'active'`,
      [DEAD_LETTER_QUEUE],
    );
    const oldest = rows[0]?.oldest;
    return {
      depth: rows[0]?.depth ?? 0,
      oldestAgeSeconds: oldest === null || oldest === undefined ? null : Math.max(0, Number(oldest)),
    };
  }

  /** Jobs that used up their attempts, newest first, with the last error each one met. */
  async deadLetters<T extends RecordRef = RecordRef>(
    options: { queue?: string; limit?: number } = {},
  ): Promise<DeadLetter<T>[]> {
    const { rows } = await this.db.query<{
      id: string;
      source_name: string;
      data: T;
      source_output: unknown;
      source_retry_count: number | null;
      source_created_on: Date | null;
      created_on: Date;
    }>(
      `SELECT id, source_name, data, source_output, source_retry_count, source_created_on, created_on
       FROM "${this.schema}".job
       WHERE name = $1 AND state < 'active' AND ($2::text IS NULL OR source_name = $2)
       ORDER BY created_on DESC, id LIMIT $3`,
      [DEAD_LETTER_QUEUE, options.queue ?? null, options.limit ?? 100],
    );
    return rows.map((r) => {
      const attempts = (r.source_retry_count ?? 0) + 1;
      return {
        id: r.id,
        queue: r.source_name,
        data: r.data,
        error: r.source_output,
        parkedReason: parkedReason(r.source_output, attempts),
        attempts,
        firstQueuedAt: r.source_created_on,
        deadAt: r.created_on,
      };
    });
  }

  /** Jobs that failed and wait for another attempt, the next one due first, with the error they met. */
  async retrying<T extends RecordRef = RecordRef>(options: { limit?: number } = {}): Promise<RetryingJob<T>[]> {
    const { rows } = await this.db.query<{
      id: string;
      name: string;
      data: T;
      output: unknown;
      retry_count: number;
      retry_limit: number;
      start_after: Date;
      created_on: Date;
    }>(
      `SELECT id, name, data, output, retry_count, retry_limit, start_after, created_on
       FROM "${this.schema}".job
       WHERE state = 'retry' AND name <> $1
       ORDER BY start_after, id LIMIT $2`,
      [DEAD_LETTER_QUEUE, options.limit ?? 100],
    );
    return rows.map((r) => ({
      id: r.id,
      queue: r.name,
      data: r.data,
      error: r.output,
      // pg-boss counts a retry when it hands the job out again:
      // a job waiting in retry has failed retry_count + 1 times.
      failedAttempts: r.retry_count + 1,
      attemptsLeft: Math.max(0, r.retry_limit - r.retry_count),
      nextAttemptAt: r.start_after,
      firstQueuedAt: r.created_on,
    }));
  }

  /**
   * Where some jobs of one queue stand and what started each (the job's `reason`), for the jobs pg-boss
   * still keeps (a completed job for its retention time); a job it no longer has is left out.
   */
  async lookup(queue: string, ids: string[]): Promise<Map<string, JobStanding>> {
    const uuids = ids.filter((id) => UUID.test(id));
    if (uuids.length === 0) return new Map();
    const { rows } = await this.db.query<{ id: string; state: string; reason: string | null }>(
      `SELECT id::text AS id, state::text AS state, data->>'reason' AS reason FROM "${this.schema}".job
       WHERE name = $1 AND id = ANY($2::uuid[])`,
      [queue, uuids],
    );
    return new Map(rows.map((r) => [r.id, { state: r.state as JobStanding['state'], reason: r.reason }]));
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A job's state as pg-boss names it, and the reason it was queued for. */
export interface JobStanding {
  state: 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';
  reason: string | null;
}
