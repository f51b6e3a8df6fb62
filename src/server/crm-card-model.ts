/**
 * What the HubSpot record card shows (the answer of GET /hubspot/card/:objectType/:objectId): the
 * record's enrichment state, its newest run and what started it, the fields written with their
 * reasons, the company link, and a job change when one is known. Built from the store alone.
 */
import { z } from 'zod';
import type { AuditRow } from '../store/audit-log.js';
import type { RecordState } from '../store/enrichment-state.js';

export const CardData = z.object({
  /** `pending`: asked for and not settled yet; `never`: crm-enrich has not looked at the record. */
  state: z.enum(['enriched', 'no_match', 'pending', 'failed', 'never']),
  lastRunAt: z.string().nullable(),
  /** What started the newest run: created, changed, refresh, workflow, card, flow, ... (null when no longer known). */
  lastRunTrigger: z.string().nullable(),
  fields: z.array(z.object({ property: z.string(), value: z.string().nullable(), reason: z.string().nullable() })),
  company: z.object({ id: z.string(), name: z.string().nullable(), reason: z.string().nullable() }).nullable(),
  jobChange: z.object({ previousCompany: z.string().nullable(), currentCompany: z.string().nullable(), detectedAt: z.string() }).nullable(),
});
export type CardData = z.infer<typeof CardData>;

export interface CardInput {
  state: RecordState | undefined;
  /** The record's audit rows, newest first. */
  audit: AuditRow[];
  /** What started each job, by job id, for the jobs the queue still keeps. */
  triggers: Map<string, string>;
  companyName: string | null;
}

const STATES: Record<RecordState['status'], CardData['state']> = { enriched: 'enriched', no_match: 'no_match', failed: 'failed', skipped: 'no_match' };

export function buildCardData({ state, audit, triggers, companyName }: CardInput): CardData {
  const runs = audit.filter((r) => !r.actor);
  const newestRun = runs[0];
  // A request (a row with an actor) newer than every run has not settled yet.
  const requested = audit[0]?.actor && audit[0].outcome === 'requested' ? audit[0] : undefined;
  const fields = Object.entries(state?.written ?? {})
    .filter((e): e is [string, string] => e[1] !== null)
    .map(([property, value]) => ({ property, value, reason: runs.find((r) => r.property === property && r.outcome === 'write')?.reason ?? null }));
  return {
    state: requested ? 'pending' : state ? STATES[state.status] : 'never',
    lastRunAt: newestRun ? newestRun.at.toISOString() : (state?.lastEnrichedAt?.toISOString() ?? null),
    lastRunTrigger: (newestRun?.jobId && triggers.get(newestRun.jobId)) || null,
    fields,
    company: state?.companyId ? { id: state.companyId, name: companyName, reason: state.companyReason } : null,
    jobChange: null,
  };
}
