/**
 * The group commit's statement: event keys and their jobs stored together, in one statement.
 *
 * pg-boss's own insert reads its jobs from one JSON document (json_to_recordset over the whole batch),
 * and crm-enrich used to wrap it to store the keys first. Written out here instead, the jobs come in
 * as arrays bound to parameters: Postgres spends about a tenth less per event, and a commit sends half
 * the bytes (docs/benchmarks.md, ingest). The columns and the values taken from the queue's policy are
 * pg-boss's (pg-boss 12's insertJobs); test/store/job-insert.test.ts stores one job each way and
 * compares every column, so a pg-boss upgrade that changes them fails a test, not production.
 */
import type { Db } from './db.js';

/** Columns of pg-boss's queue table read by the insert. */
export const QUEUE_TABLE_COLUMNS = [
  'name',
  'policy',
  'retry_limit',
  'retry_delay',
  'retry_backoff',
  'retry_delay_max',
  'expire_seconds',
  'retention_seconds',
  'deletion_seconds',
  'dead_letter',
  'heartbeat_seconds',
] as const;

export interface NewJob {
  id: string;
  /** sha256 of the event's key, hex; undefined for a job without one (never deduplicated). */
  keyHash?: string;
  data: { connection: string; objectType: string; recordId: string; account?: string };
  priority: number;
  startAfter?: Date;
}

/**
 * Each key goes into received_event; a job is inserted only when its key was new there or it has
 * none. A statement is atomic, so an event is stored with its job or not at all (and neither without
 * the queue's row, which JobQueue.ensureQueue makes first). Returns the ids of the jobs inserted.
 * Keys must be distinct within the call (the caller keeps the first).
 *
 * Unlike pg-boss's, the job insert has no ON CONFLICT: its ids are new, and pg-boss's partial unique
 * indexes apply only to policies other than the standard one crm-enrich's queues use, so a conflict
 * cannot happen, and would be an error rather than a job silently dropped. Without it Postgres probes
 * the primary key once per job instead of twice.
 */
export async function insertJobs(db: Db, schema: string, queue: string, jobs: NewJob[]): Promise<Set<string>> {
  if (jobs.length === 0) return new Set();
  const s = `"${schema}"`;
  const { rows } = await db.query<{ id: string }>(
    `WITH e AS (
       SELECT * FROM unnest($2::uuid[], $3::text[], $4::jsonb[], $5::int[], $6::timestamptz[])
         AS e(id, key_hash, data, priority, start_after)
     ), q AS (
       SELECT ${QUEUE_TABLE_COLUMNS.join(', ')} FROM ${s}.queue WHERE name = $1
     ), fresh AS (
       INSERT INTO ${s}.received_event (key_hash, connection, account, object_type, record_id, queue)
       SELECT key_hash, data->>'connection', COALESCE(data->>'account', ''),
         data->>'objectType', data->>'recordId', q.name
       FROM e, q WHERE key_hash IS NOT NULL
       ON CONFLICT (key_hash) DO NOTHING
       RETURNING key_hash
     )
     INSERT INTO ${s}.job (
       id, name, data, priority, start_after, created_on, expire_seconds, deletion_seconds, keep_until,
       retry_limit, retry_delay, retry_backoff, retry_delay_max, policy, dead_letter, heartbeat_seconds
     )
     SELECT e.id, q.name, e.data, e.priority, a.start_after, ${s}.job_now(), q.expire_seconds, q.deletion_seconds,
       a.start_after + q.retention_seconds * interval '1s',
       q.retry_limit, q.retry_delay, q.retry_backoff, q.retry_delay_max, q.policy, q.dead_letter, q.heartbeat_seconds
     FROM e, q, LATERAL (SELECT COALESCE(e.start_after, ${s}.job_now()) AS start_after) a
     WHERE e.key_hash IS NULL OR e.key_hash IN (SELECT key_hash FROM fresh)
     RETURNING id`,
    [
      queue,
      jobs.map((j) => j.id),
      jobs.map((j) => j.keyHash ?? null),
      jobs.map((j) => JSON.stringify(j.data)),
      jobs.map((j) => j.priority),
      jobs.map((j) => j.startAfter?.toISOString() ?? null),
    ],
  );
  return new Set(rows.map((r) => r.id));
}
