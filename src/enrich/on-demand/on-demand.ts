/**
 * Enrichment asked for from inside a CRM (a workflow step, the record card, a flow) by someone who
 * waits for its outcome. The record goes through the queue like any other job (same lanes, budget and
 * audit); the outcome is read back from the store, never from the lanes' memory: the audit rows of the
 * run that settled after the request, or the job's own state when it failed without a run.
 */
import { randomUUID } from 'node:crypto';
import type { OnDemandOutcome, OnDemandTrigger } from '../../core/entry-point.js';
import type { Priority } from '../../core/limiter.js';
import type { RecordKey } from '../../store/enrichment-state.js';
import { queueName } from '../jobs.js';
import type { AuditEntry, EnqueuePort } from '../ports.js';

/** Who asked, as the audit trail names it. */
export const TRIGGER_ACTORS: Record<OnDemandTrigger, string> = {
  workflow: 'hubspot:workflow',
  card: 'hubspot:card',
  flow: 'salesforce:flow',
};

export interface OnDemandDeps {
  /** Stores the job; storing it wakes its lane (waking-enqueue.ts). */
  enqueue: EnqueuePort;
  /** One record's newest audit rows, newest first (the store's recordView). */
  audit(key: RecordKey, limit: number): Promise<RunRow[]>;
  note(entries: AuditEntry[]): Promise<void>;
  jobs(queue: string, ids: string[]): Promise<Map<string, JobStanding>>;
  /** Between looks at the store while waiting (default 150 ms). */
  pollMs?: number;
}

/** The parts of an audit row read here (the store's AuditRow has them). */
export interface RunRow {
  id: number;
  jobId: string | null;
  actor: string | null;
  outcome: string | null;
}

/** A job as the queue still keeps it (pg-boss's state). */
export interface JobStanding {
  state: string;
}

/**
 * What a request leaves to wait on: the newest audit row before it
 * and its job (null when an earlier identical request queued it).
 */
export interface Ticket extends RecordKey {
  sinceAuditId: number;
  jobId: string | null;
}

export interface OnDemandRequest extends RecordKey {
  trigger: OnDemandTrigger;
}

/** The record's newest audit row: a run settles after it. */
export async function latestAuditId(deps: OnDemandDeps, key: RecordKey): Promise<number> {
  return (await deps.audit(key, 1))[0]?.id ?? 0;
}

/**
 * Notes who asked in the audit trail and queues the record as interactive work under `dedupKey`;
 * returns the job's id, or null when the key had queued one before.
 */
export async function queueRun(deps: OnDemandDeps, request: OnDemandRequest, dedupKey: string): Promise<string | null> {
  const { connection, objectType, recordId, trigger } = request;
  const key = { connection, objectType, recordId };
  const actor = TRIGGER_ACTORS[trigger];
  await deps.note([{ ...key, outcome: 'requested', reason: `enrichment asked for by ${actor}`, actor }]);
  const priority: Priority = 'interactive';
  const result = await deps.enqueue.enqueue([
    {
      queue: queueName(connection, objectType),
      dedupKey,
      priority,
      data: { connection, objectType, recordId, reason: trigger, receivedAt: new Date().toISOString() },
    },
  ]);
  return result.ids?.[0] ?? null;
}

/** Notes who asked in the audit trail and queues the record as interactive work. */
export async function requestEnrichment(deps: OnDemandDeps, request: OnDemandRequest): Promise<Ticket> {
  const { connection, objectType, recordId, trigger } = request;
  const key = { connection, objectType, recordId };
  const sinceAuditId = await latestAuditId(deps, key);
  // Every request is a job of its own to wait on, never a duplicate of an earlier one.
  const jobId = await queueRun(deps, request, `${trigger}:${connection}:${objectType}:${recordId}:${randomUUID()}`);
  return { ...key, sinceAuditId, jobId };
}

/** What became of a request, if it is settled: one look at the store. */
export async function outcomeOf(deps: OnDemandDeps, ticket: Ticket): Promise<OnDemandOutcome | undefined> {
  const run = await runRows(deps, ticket);
  if (run.length) return outcomeOfRun(run);
  if (!ticket.jobId) return undefined;
  const standing = (await deps.jobs(queueName(ticket.connection, ticket.objectType), [ticket.jobId])).get(ticket.jobId);
  const ended = !standing || ['failed', 'cancelled', 'completed'].includes(standing.state);
  if (!ended) return undefined;
  // The run may have settled between the two looks: its rows are stored before its job ends.
  const settled = await runRows(deps, ticket);
  if (settled.length) return outcomeOfRun(settled);
  // Completed with nothing to say (the record was deleted or merged away meanwhile).
  if (standing?.state === 'completed') return { outcome: 'skipped', fieldsWritten: 0, matched: false };
  // A job that ended without rows: parked after its last attempt, or one the queue no longer has.
  return { outcome: 'failed', fieldsWritten: 0, matched: false };
}

/** The rows of the ticket's run since the request; our own "requested" row (and any person's) carries an actor. */
async function runRows(deps: OnDemandDeps, ticket: Ticket): Promise<RunRow[]> {
  const rows = await deps.audit(ticket, 200);
  const fresh = rows.filter((r) => r.id > ticket.sinceAuditId && !r.actor);
  return ticket.jobId ? fresh.filter((r) => r.jobId === ticket.jobId) : sameRun(fresh);
}

/** Looks until the request is settled or `timeoutMs` has passed ('pending'). */
export async function waitForOutcome(
  deps: OnDemandDeps,
  ticket: Ticket,
  timeoutMs: number,
): Promise<OnDemandOutcome | 'pending'> {
  const deadline = Date.now() + timeoutMs;
  const pollMs = deps.pollMs ?? 150;
  for (;;) {
    const outcome = await outcomeOf(deps, ticket);
    if (outcome) return outcome;
    if (Date.now() + pollMs > deadline) return 'pending';
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Queues the record and waits up to `timeoutMs` for its outcome; the ticket lets the caller look again later. */
export async function enrichAndWait(
  deps: OnDemandDeps,
  request: OnDemandRequest & { timeoutMs: number },
): Promise<{ ticket: Ticket; result: OnDemandOutcome | 'pending' }> {
  const ticket = await requestEnrichment(deps, request);
  return { ticket, result: await waitForOutcome(deps, ticket, request.timeoutMs) };
}

/** The oldest run among rows that came newest first: its job's rows. */
function sameRun(rows: RunRow[]): RunRow[] {
  const oldest = rows.at(-1);
  if (!oldest) return [];
  return oldest.jobId === null ? [oldest] : rows.filter((r) => r.jobId === oldest.jobId);
}

function outcomeOfRun(rows: RunRow[]): OnDemandOutcome {
  const written = rows.filter((r) => r.outcome === 'write').length;
  if (rows.some((r) => r.outcome === 'no_match')) return { outcome: 'no_match', fieldsWritten: 0, matched: false };
  if (rows.some((r) => r.outcome === 'skipped')) return { outcome: 'skipped', fieldsWritten: 0, matched: false };
  return { outcome: 'enriched', fieldsWritten: written, matched: true };
}
