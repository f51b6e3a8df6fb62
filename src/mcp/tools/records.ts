/**
 * explain_record and enrich_record: one CRM record as crm-enrich knows it, and an enrichment of it
 * through the governed path (the interactive job the admin API's "enrich now" queues, run by the
 * enrichment lane with its mappings, write rules, budget and audit trail), answered with what the
 * run wrote and why. With several instances the run may happen on another one; the answer is read
 * from the shared audit log either way.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { McpContext } from '../mcp-context.js';
import { connectorFor, mappedObject, objectTypeIn } from '../../core/connector-lookup.js';
import type { AuditRow } from '../../store/audit-log.js';
import { actorOf, runTool, ToolRefusal, type ToolContext } from '../tool-call.js';

const POLL_MS = 300;

const RecordInput = {
  crm: z.enum(['hubspot', 'salesforce']).describe('the CRM the record is in'),
  object: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .describe('object type, e.g. contact or company (HubSpot), Contact, Lead or Account (Salesforce)'),
  id: z.string().trim().min(1).max(100).describe('the record id in the CRM'),
};
const AuditRow = z.object({
  at: z.string(),
  property: z.string().nullable(),
  oldValue: z.string().nullable(),
  newValue: z.string().nullable(),
  rule: z.string().nullable(),
  outcome: z.string().nullable(),
  reason: z.string().nullable(),
  actor: z.string().nullable().describe('who asked, when not the service itself'),
});
const State = z.object({
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
const ExplainOutput = {
  known: z.boolean(),
  state: State.nullable(),
  lastEnrichment: z
    .array(AuditRow)
    .describe('the rows of the newest enrichment run: each property written or kept, and why'),
  history: z.array(AuditRow).describe('the audit trail, newest first'),
};
const EnrichOutput = {
  finished: z.boolean().describe('false: the run had not finished when the wait ended; explain_record shows it later'),
  written: z.array(AuditRow).describe('properties written in this run, with the rule and reason'),
  other: z.array(AuditRow).describe('rows of this run that wrote nothing: kept edits, unchanged, no match, and why'),
  state: State.nullable(),
};

export function registerRecordTools(server: McpServer, ctx: ToolContext): void {
  const { service } = ctx;
  server.registerTool(
    'explain_record',
    {
      title: 'Explain a record',
      description:
        'What crm-enrich knows about one CRM record: its enrichment state, the newest run, and the audit ' +
        'history of what was written, by which rule, and why.',
      inputSchema: {
        ...RecordInput,
        limit: z.number().int().min(1).max(500).default(50).describe('audit rows to return'),
      },
      outputSchema: ExplainOutput,
      annotations: { readOnlyHint: true },
    },
    (input) =>
      runTool(ctx, 'explain_record', async () => {
        const connector = connectorFor(service.connectors, { crm: input.crm });
        if (!connector) throw new ToolRefusal(`crm: no ${input.crm} connection is configured`);
        const objectType = objectTypeIn(connector, input.object);
        if (!objectType)
          throw new ToolRefusal(
            `object: ${input.crm} has no object "${input.object}"; use one of ${connector.objectTypes.join(', ')}`,
          );
        const { state, audit } = await service.store.recordView(
          { connection: connector.connection, objectType, recordId: input.id },
          input.limit,
        );
        const newestRun = audit.find((r) => r.jobId && !r.actor)?.jobId;
        return {
          result: {
            known: state !== undefined || audit.length > 0,
            state: state ? stateView(state) : null,
            lastEnrichment: audit.filter((r) => newestRun && r.jobId === newestRun).map(rowView),
            history: audit.map(rowView),
          },
          summary: `${input.crm} ${objectType} ${input.id}: ${state?.status ?? 'unknown'}, ${audit.length} audit rows`,
        };
      }),
  );
  server.registerTool(
    'enrich_record',
    {
      title: 'Enrich a record',
      description:
        'Enriches one CRM record now, through the mapping and its write rules (person edits are kept), and ' +
        'answers with what was written and why. Spends a partner credit unless cached. Needs the write scope.',
      inputSchema: RecordInput,
      outputSchema: EnrichOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    (input) =>
      runTool(ctx, 'enrich_record', async () => {
        const target = mappedObject(service.connectors, service.mappings, { crm: input.crm }, input.object);
        if (!target)
          throw new ToolRefusal(`object: ${input.crm}/${input.object} is not a mapped object of a configured CRM`);
        const key = { connection: target.connector.connection, objectType: target.objectType, recordId: input.id };
        const since = (await service.store.recordView(key, 1)).audit[0]?.id ?? 0;
        await service.store.audit.record([
          {
            ...key,
            outcome: 'requested',
            reason: `enrichment asked for through MCP by ${actorOf(ctx.auth)}`,
            actor: actorOf(ctx.auth),
          },
        ]);
        await service.enrichNow(key.connection, key.objectType, key.recordId);
        const run = await waitForRun(service, key, since, ctx.enrichWaitMs);
        const rows = run?.rows ?? [];
        const written = rows.filter((r) => r.outcome === 'write');
        const names = written.length ? `: ${written.map((r) => r.property).join(', ')}` : '';
        const reasons = rows
          .filter((r) => r.outcome !== 'write')
          .map((r) => r.reason)
          .filter(Boolean)
          .join('; ');
        return {
          result: {
            finished: run !== undefined,
            written: written.map(rowView),
            other: rows.filter((r) => r.outcome !== 'write').map(rowView),
            state: run?.state ? stateView(run.state) : null,
          },
          summary: run
            ? `${input.crm} ${key.objectType} ${input.id}: ${written.length} properties written`
            : `${input.crm} ${key.objectType} ${input.id}: queued, not finished within the wait`,
          text: run
            ? `${written.length} properties written${names}. ${reasons}`
            : 'The enrichment is queued but had not finished; call explain_record in a moment to see what it wrote.',
        };
      }),
  );
}

type Key = { connection: string; objectType: string; recordId: string };
type RecordView = Awaited<ReturnType<McpContext['store']['recordView']>>;

/** The rows of the first run after `since` (our own request row aside), once it has settled. */
async function waitForRun(
  service: McpContext,
  key: Key,
  since: number,
  waitMs: number,
): Promise<{ rows: AuditRow[]; state: RecordView['state'] } | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const { state, audit } = await service.store.recordView(key, 200);
    const fresh = audit.filter((r) => r.id > since && !r.actor);
    const job = fresh.at(-1)?.jobId;
    if (fresh.length) return { rows: fresh.filter((r) => !job || r.jobId === job), state };
    if (Date.now() + POLL_MS > deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function rowView(r: AuditRow) {
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

function stateView(s: NonNullable<RecordView['state']>) {
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
