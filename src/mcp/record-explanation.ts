/**
 * One CRM record as crm-enrich knows it, named: which record it is, its enrichment state, the rows of
 * its newest run and its audit history. explain_record and the record resource both answer with it.
 */
import { z } from 'zod';
import { connectorFor, objectTypeIn } from '../core/connector-lookup.js';
import type { AuditRow } from '../store/audit-log.js';
import type { McpContext } from './mcp-context.js';
import { ToolRefusal } from './tool-call.js';

export const AuditRowView = z.object({
  at: z.string(),
  property: z.string().nullable(),
  oldValue: z.string().nullable(),
  newValue: z.string().nullable(),
  rule: z.string().nullable(),
  outcome: z.string().nullable(),
  reason: z.string().nullable(),
  actor: z.string().nullable().describe('who asked, when not the service itself'),
});

export const StateView = z.object({
  status: z.string(),
  partnerId: z.string().nullable(),
  matchedBy: z.string().nullable().describe('which identifier found the partner record'),
  market: z.string().nullable(),
  lastEnrichedAt: z.string().nullable(),
  nextRefreshAt: z.string().nullable(),
  lastError: z.string().nullable(),
  written: z.record(z.string(), z.string().nullable()).describe('property to the value crm-enrich last wrote'),
  companyId: z.string().nullable(),
  companyReason: z.string().nullable(),
});

export const RecordName = z
  .object({ crm: z.string(), connection: z.string(), object: z.string(), id: z.string() })
  .describe('the record this is about');

export const Explanation = z.object({
  record: RecordName,
  known: z.boolean(),
  state: StateView.nullable(),
  lastEnrichment: z
    .array(AuditRowView)
    .describe('the rows of the newest enrichment run: each property written or kept, and why'),
  history: z.array(AuditRowView).describe('the audit trail, newest first'),
});
export type Explanation = z.infer<typeof Explanation>;

type RecordView = Awaited<ReturnType<McpContext['store']['recordView']>>;

/** Throws ToolRefusal naming what is wrong when the CRM is not configured or has no such object. */
export async function explainRecord(
  service: McpContext,
  ask: { crm: string; object: string; id: string },
  limit: number,
): Promise<Explanation> {
  const connector = connectorFor(service.connectors, { crm: ask.crm });
  if (!connector) throw new ToolRefusal(`crm: no ${ask.crm} connection is configured`);
  const objectType = objectTypeIn(connector, ask.object);
  if (!objectType)
    throw new ToolRefusal(
      `object: ${ask.crm} has no object "${ask.object}"; use one of ${connector.objectTypes.join(', ')}`,
    );
  const { state, audit } = await service.store.recordView(
    { connection: connector.connection, objectType, recordId: ask.id },
    limit,
  );
  const newestRun = audit.find((r) => r.jobId && !r.actor)?.jobId;
  return {
    record: { crm: connector.crm, connection: connector.connection, object: objectType, id: ask.id },
    known: state !== undefined || audit.length > 0,
    state: state ? stateView(state) : null,
    lastEnrichment: audit.filter((r) => newestRun && r.jobId === newestRun).map(rowView),
    history: audit.map(rowView),
  };
}

/** `hubspot contact 1001`: how answers name a record. */
export function recordLabel(record: { crm: string; object: string; id: string }): string {
  return `${record.crm} ${record.object} ${record.id}`;
}

export function rowView(r: AuditRow): z.infer<typeof AuditRowView> {
  return {
    at: r.at.toISOString(),
    property: r.property,
    oldValue: r.oldValue,
    newValue: r.newValue,
    rule: r.rule,
    outcome: r.outcome,
    reason: r.reason,
    actor: r.actor,
  };
}

export function stateView(s: NonNullable<RecordView['state']>): z.infer<typeof StateView> {
  return {
    status: s.status,
    partnerId: s.partnerId,
    matchedBy: s.matchKey ? s.matchKey.split(':')[0]! : null,
    market: s.market,
    lastEnrichedAt: s.lastEnrichedAt?.toISOString() ?? null,
    nextRefreshAt: s.nextRefreshAt?.toISOString() ?? null,
    lastError: s.lastError,
    written: s.lastWritten,
    companyId: s.companyId,
    companyReason: s.companyReason,
  };
}
