/** The rows a record's outcome leaves behind: its enrichment state and its audit trail. */
import type { Decision } from '../../mapping/planner.js';
import type { AuditEntry, AuditOutcome, PipelineState } from '../ports.js';
import type { RecordPlan } from './record-plan.js';
import { linkAudit, type CompanyLinkPlan } from '../employers/company-link.js';

const DAY_MS = 86_400_000;

export function stateFor(
  connection: string,
  objectType: string,
  recordId: string,
  previous: PipelineState | undefined,
  result: RecordPlan | CreatedRecord,
  written: Record<string, string>,
  now: Date,
  refreshAfterDays: number,
): PipelineState {
  const base: PipelineState = {
    connection,
    objectType,
    recordId,
    partnerId: previous?.partnerId ?? null,
    matchKey: previous?.matchKey ?? null,
    market: previous?.market ?? null,
    status: 'skipped',
    lastError: null,
    dataHash: previous?.dataHash ?? null,
    lastWritten: { ...(previous?.lastWritten ?? {}) },
    companyId: previous?.companyId ?? null,
    companyReason: previous?.companyReason ?? null,
    lastEnrichedAt: now,
    nextRefreshAt: new Date(now.getTime() + refreshAfterDays * DAY_MS),
  };
  switch (result.kind) {
    case 'created':
      return createdState(base, result);
    case 'no_key':
      return { ...base, status: 'skipped', lastError: result.reason };
    case 'no_match':
      return { ...base, status: 'no_match', market: result.market, partnerId: null, lastError: null };
    case 'planned': {
      const id = result.hit.data.id;
      return {
        ...base,
        status: 'enriched',
        partnerId: typeof id === 'string' || typeof id === 'number' ? String(id) : null,
        matchKey: `${result.hit.key.by}:${result.hit.key.value}`,
        market: result.market,
        dataHash: result.dataHash,
        // A value the CRM already holds exactly as we would write it counts as ours: after a crash
        // between a write and its settlement, the retry finds its own values there and must own them,
        // or protect_edits would take them for a person's and never refresh them.
        lastWritten: { ...base.lastWritten, ...heldAsWeWouldWrite(result), ...written },
      };
    }
  }
}

export function auditFor(
  connection: string,
  objectType: string,
  recordId: string,
  result: RecordPlan | CreatedRecord,
  jobId: string | null,
): AuditEntry[] {
  const row = { connection, objectType, recordId, jobId };
  if (result.kind === 'created') return createdAudit(row, result);
  if (result.kind === 'no_key') {
    return [
      { ...row, property: null, oldValue: null, newValue: null, rule: null, outcome: 'skipped', reason: result.reason },
    ];
  }
  if (result.kind === 'no_match') {
    return [
      {
        ...row,
        property: null,
        oldValue: null,
        newValue: null,
        rule: null,
        outcome: 'no_match',
        reason: `the partner has no record for ${result.tried.join(', then ')}`,
      },
    ];
  }
  const writes = result.plan.decisions.filter((d) => d.outcome === 'write');
  // A value the CRM would refuse for its length is said in the audit trail, without the value itself.
  const tooLong = result.plan.decisions.filter((d) => d.outcome === 'too_long').map((d) => ({ ...d, next: null }));
  if (writes.length === 0 && tooLong.length === 0) {
    const kept = result.plan.decisions
      .filter((d) => d.outcome === 'kept_person_edit' || d.outcome === 'filled_already')
      .map((d) => d.property);
    const reason = kept.length
      ? `nothing changed that may be written; kept values in ${kept.join(', ')}`
      : 'the CRM already holds everything the partner has';
    return [{ ...row, property: null, oldValue: null, newValue: null, rule: null, outcome: 'unchanged', reason }];
  }
  // A person's edit kept while other properties are written gets its own row, so the trail says why it stayed.
  const kept = result.plan.decisions.filter((d) => d.outcome === 'kept_person_edit');
  return [...writes, ...kept, ...tooLong].map((d) => ({
    ...row,
    property: d.property,
    oldValue: d.current,
    newValue: d.next,
    rule: d.rule,
    outcome: DECISION_ROWS[d.outcome as keyof typeof DECISION_ROWS],
    reason: d.reason,
  }));
}

/** The planner's decisions that leave an audit row, as the row says them. */
const DECISION_ROWS = {
  write: 'write',
  kept_person_edit: 'kept_person_edit',
  too_long: 'too_long',
} as const satisfies Partial<Record<Decision['outcome'], AuditOutcome>>;

/**
 * A record the service created with partner values (a person discovery added): every value it was
 * created with counts as written, and the partner record it came from is known from then on.
 */
export interface CreatedRecord {
  kind: 'created';
  market: string;
  partnerId: string;
  matchKey: string;
  dataHash: string;
  /** Every value the record was created with. */
  values: Record<string, string>;
  /** Of those, the ones the mapping owns (refreshed later, like values an enrichment wrote). */
  mapped: Record<string, string>;
  /** The mapping rule behind each mapped value; the others are said to come from `origin`. */
  rules: Record<string, string>;
  /** What made the record, as its audit rows name it (e.g. `discovery`). */
  origin: string;
  /** Why it was made, for its audit rows. */
  reason: string;
  company?: { id: string; reason: string };
}

function createdState(base: PipelineState, created: CreatedRecord): PipelineState {
  return {
    ...base,
    status: 'enriched',
    partnerId: created.partnerId,
    matchKey: created.matchKey,
    market: created.market,
    dataHash: created.dataHash,
    lastWritten: { ...base.lastWritten, ...created.mapped },
    ...(created.company ? { companyId: created.company.id, companyReason: created.company.reason } : {}),
  };
}

function createdAudit(row: Omit<AuditEntry, 'property'>, created: CreatedRecord): AuditEntry[] {
  return Object.entries(created.values).map(([property, value]) => ({
    ...row,
    property,
    oldValue: null,
    newValue: value,
    rule: created.rules[property] ?? created.origin,
    outcome: 'write',
    reason: created.reason,
  }));
}

function heldAsWeWouldWrite(result: Extract<RecordPlan, { kind: 'planned' }>): Record<string, string> {
  const held: Record<string, string> = {};
  for (const d of result.plan.decisions)
    if (d.outcome === 'unchanged' && d.next !== null && d.current !== null) held[d.property] = d.current;
  return held;
}

/** One record's outcome, as the lane or discovery settles it: outcomeRows turns it into rows. */
export interface RecordOutcome {
  recordId: string;
  jobId: string | null;
  previous?: PipelineState;
  /**
   * The plan (written, or nothing to write), a record the service created, or `unchanged`: a refresh
   * found what was applied last time.
   */
  result: RecordPlan | CreatedRecord | 'unchanged';
  /** The values written in this run. */
  written?: Record<string, string>;
  link?: CompanyLinkPlan;
}

/**
 * The one place a record's outcome becomes rows: its enrichment state (with its company link once
 * made) and the audit rows that explain it, stored together in one transaction by StatePort.store.
 */
export function outcomeRows(
  where: { connection: string; objectType: string; refreshAfterDays: number },
  outcomes: RecordOutcome[],
  now = new Date(),
): { states: PipelineState[]; audit: AuditEntry[] } {
  const { connection, objectType, refreshAfterDays } = where;
  const states: PipelineState[] = [];
  const audit: AuditEntry[] = [];
  for (const o of outcomes) {
    if (o.result === 'unchanged') {
      if (!o.previous) throw new Error(`an unchanged refresh of ${objectType} ${o.recordId} needs its previous state`);
      states.push({
        ...o.previous,
        lastEnrichedAt: now,
        nextRefreshAt: new Date(now.getTime() + refreshAfterDays * DAY_MS),
        lastError: null,
      });
      audit.push({
        connection,
        objectType,
        recordId: o.recordId,
        property: null,
        oldValue: null,
        newValue: null,
        rule: null,
        outcome: 'unchanged',
        reason: 'the partner data and the mapping are what was applied last time',
        jobId: o.jobId,
      });
      continue;
    }
    states.push(
      withLink(
        stateFor(connection, objectType, o.recordId, o.previous, o.result, o.written ?? {}, now, refreshAfterDays),
        o.link,
      ),
    );
    audit.push(
      ...auditFor(connection, objectType, o.recordId, o.result, o.jobId),
      ...linkAudit(connection, objectType, o.recordId, o.link, o.jobId),
    );
  }
  return { states, audit };
}

/** The record's state with its company link, once the link is made (or found made). */
function withLink(state: PipelineState, link: CompanyLinkPlan | undefined): PipelineState {
  if (!link || link.action === 'none' || link.outcome === 'failed') return state;
  return { ...state, companyId: link.companyId, companyReason: link.reason };
}
