/**
 * The record card's data (CardData, card-model.ts) built from what the store holds: the record's
 * enrichment state, its newest run and what started it, the fields written with their reasons, and the
 * company link. A request newer than every run (an "Enrich now" not settled yet) makes it pending.
 */
import type { ViewedAuditRow, ViewedState } from '../../../src/core/entry-point.js';
import { CardData, type CardObjectType } from './card-model.js';

export interface CardInput {
  objectType: CardObjectType;
  objectId: string;
  state: ViewedState | undefined;
  /** The record's audit rows, newest first. */
  audit: ViewedAuditRow[];
  /** What started each job, by job id, for the jobs the queue still keeps. */
  triggers: Map<string, string>;
  companyName: string | null;
  /** The object's property labels by name (empty when unknown: the card then shows the names). */
  labels: ReadonlyMap<string, string>;
}

const STATES: Record<ViewedState['status'], CardData['state']> = {
  enriched: 'enriched',
  no_match: 'no_match',
  failed: 'failed',
  skipped: 'no_match',
};

export function buildCardData(input: CardInput): CardData {
  const { objectType, objectId, state, audit, triggers, companyName, labels } = input;
  const runs = audit.filter((r) => !r.actor);
  const newestRun = runs[0];
  const requested = audit[0]?.actor && audit[0].outcome === 'requested' ? audit[0] : undefined;
  const fields = Object.entries(state?.lastWritten ?? {})
    .filter((e): e is [string, string] => e[1] !== null)
    .map(([property, value]) => {
      const reason = runs.find((r) => r.property === property && r.outcome === 'write')?.reason;
      const label = labels.get(property) || null;
      return { property, label, value, reason: reason ?? 'written by crm-enrich' };
    });
  return CardData.parse({
    objectType,
    objectId,
    state: requested ? 'pending' : state ? STATES[state.status] : 'never',
    lastRunAt: newestRun ? newestRun.at.toISOString() : (state?.lastEnrichedAt?.toISOString() ?? null),
    lastRunTrigger: (newestRun?.jobId && triggers.get(newestRun.jobId)) || null,
    lastRunId: newestRun?.jobId ?? null,
    message: state?.status === 'failed' ? state.lastError : null,
    fields,
    company: state?.companyId
      ? { id: state.companyId, name: companyName, reason: state.companyReason ?? 'linked by crm-enrich' }
      : null,
    jobChange: null,
  });
}
