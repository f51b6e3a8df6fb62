/**
 * What an enrichment job carries, and how jobs are named and keyed. One queue per connection and
 * object type, so a worker can claim a batch of jobs that one CRM call reads and one CRM call writes.
 */
import { z } from 'zod';
import type { RecordEvent } from '../core/connector.js';
import type { Priority } from '../core/limiter.js';
import { MARKETS } from '../partner/schemas.js';

/**
 * `workflow`, `card` and `flow`: asked for from inside the CRM (a HubSpot workflow step, the record card, a
 * Salesforce flow); `job_change_sweep`: a person of a swept segment looked up again for a move.
 */
export const JOB_REASONS = [
  'created',
  'changed',
  'refresh',
  'backfill',
  'catchup',
  'manual',
  'company',
  'privacy_deletion',
  'merged',
  'deleted',
  'rejected',
  'workflow',
  'card',
  'flow',
  'job_change_sweep',
] as const;
export type JobReason = (typeof JOB_REASONS)[number];

export const EnrichJobData = z.object({
  connection: z.string().min(1),
  objectType: z.string().min(1),
  recordId: z.string().min(1),
  /**
   * The CRM account (HubSpot portal, Salesforce org) the connection was on when the job was stored; the
   * store stamps it. A job of another account than the connection's current one is parked, never run.
   */
  account: z.string().optional(),
  reason: z.enum(JOB_REASONS),
  /** When the triggering event reached us (ISO), for the webhook-to-write latency. */
  receivedAt: z.string().optional(),
  /** For privacy deletions: e-mail addresses the CRM sent, so cached lookups by them go too. */
  emails: z.array(z.string()).optional(),
  /** For changes: the property values the trigger carried, to tell an echo of our own write from a person's change. */
  changes: z.record(z.string(), z.string().nullable()).optional(),
  /**
   * The record's values as a listing returned them (backfill, catch-up sweep), so the lane need not
   * read the record again while the snapshot is fresh.
   */
  snapshot: z
    .object({ at: z.string(), read: z.array(z.string()), properties: z.record(z.string(), z.string().nullable()) })
    .optional(),
  /** For merges: records that no longer exist; recordId is the survivor. */
  mergedIds: z.array(z.string()).optional(),
  /**
   * For a company job: the market of the person whose employer it is, used when the company record names
   * no country, so its first lookup asks the company's own market rather than the default.
   */
  market: z.enum(MARKETS).optional(),
  /**
   * The change or creation was made with crm-enrich's own credentials and the intake did not know it as
   * the service's own doing. A creation event can outrun the created record's row in Postgres, so the lane,
   * which checks again, has the last word: what is not the service's own is counted as a change a script
   * made with the service's token.
   */
  byThisService: z.boolean().optional(),
  /**
   * The CRM named another maker than the service (a person, an app, an import): the record cannot be one
   * of the service's own creations, so its job never waits for one to be recorded.
   */
  byAnother: z.boolean().optional(),
  /** For a delivery item that could not be read: why, to park it with. */
  rejection: z.string().optional(),
  /**
   * How often the job was handed back from a holder that stopped giving heartbeats (the store counts it):
   * that holder may have written after the job's snapshot was taken.
   */
  reclaims: z.number().int().nonnegative().optional(),
});
export type EnrichJobData = z.infer<typeof EnrichJobData>;

export interface EnrichJob {
  id: string;
  data: EnrichJobData;
  priority: Priority;
  /** Which attempt this claim is; the queue settles a job only for the claim that holds it. */
  retryCount: number;
}

/** What a job came to when the lane settled it, as the lane reports it (metrics, logs). */
export type JobOutcome =
  'echo' | 'enriched' | 'unchanged' | 'no_match' | 'skipped' | 'failed' | 'retried' | 'released' | 'erased' | 'merged';

/** The queue of one connection's object type, e.g. `enrich.hubspot.contact` for connection `hubspot`. */
export function queueName(connection: string, objectType: string): string {
  return `enrich.${connection}.${objectType}`.toLowerCase().replace(/[^a-z0-9_.-]/g, '_');
}

const INTERACTIVE_REASONS: ReadonlySet<JobReason> = new Set([
  'created',
  'changed',
  'manual',
  'workflow',
  'card',
  'flow',
]);

/**
 * A record just created or re-identified, or asked for by a person
 * or a workflow, is work someone waits for; everything else is bulk.
 */
export function priorityOf(reason: JobReason): Priority {
  return INTERACTIVE_REASONS.has(reason) ? 'interactive' : 'bulk';
}

export const EVENT_REASONS: Record<RecordEvent['kind'], JobReason> = {
  created: 'created',
  changed: 'changed',
  requested: 'manual',
  privacy_deletion: 'privacy_deletion',
  merged: 'merged',
  deleted: 'deleted',
  rejected: 'rejected',
};

/** One job per event; the event's own dedup key keeps a redelivered event from becoming a second job. */
/** `priority` overrides what the event's kind alone would give (see Triage). */
export function jobFromEvent(
  event: RecordEvent,
  receivedAt: Date,
  priority?: Priority,
): { dedupKey: string; data: EnrichJobData; priority: Priority } {
  const reason = EVENT_REASONS[event.kind];
  const emails =
    event.kind === 'privacy_deletion'
      ? Object.values(event.values ?? {}).filter((v): v is string => !!v && v.includes('@'))
      : undefined;
  return {
    dedupKey: `${event.crm}:${event.connection}:${event.dedupKey}`,
    priority: priority ?? priorityOf(reason),
    data: {
      connection: event.connection,
      objectType: event.objectType,
      recordId: event.recordId,
      reason,
      receivedAt: receivedAt.toISOString(),
      ...(emails?.length ? { emails } : {}),
      ...(event.kind === 'changed' && (event.changedProperties ?? event.values)
        ? { changes: event.changedProperties ?? event.values }
        : {}),
      ...(event.mergedIds?.length ? { mergedIds: event.mergedIds } : {}),
      ...(event.actor === 'this_service' && (event.kind === 'created' || event.kind === 'changed')
        ? { byThisService: true }
        : {}),
      ...(event.kind === 'created' && event.actor !== undefined && event.actor !== 'this_service'
        ? { byAnother: true }
        : {}),
      ...(event.kind === 'rejected' ? { rejection: event.rejection ?? 'the item could not be read' } : {}),
    },
  };
}
