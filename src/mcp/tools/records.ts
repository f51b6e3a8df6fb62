/**
 * explain_record and enrich_record: one CRM record as crm-enrich knows it, and an enrichment of it
 * through the governed path (the interactive job the admin API's "enrich now" queues, run by the
 * enrichment lane with its mappings, write rules, budget and audit trail), answered with what the
 * run wrote and why. With several instances the run may happen on another one; the answer is read
 * from the shared audit log either way.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { McpContext } from '../mcp-context.js';
import { mappedObject } from '../../core/connector-lookup.js';
import type { AuditRow } from '../../store/audit-log.js';
import { progressReporter } from '../progress.js';
import {
  AuditRowView,
  Explanation,
  explainRecord,
  RecordName,
  recordLabel,
  rowView,
  StateView,
  stateView,
} from '../record-explanation.js';
import { actorOf, runTool, ToolRefusal, toolScope, type ToolContext } from '../tool-call.js';

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
const EnrichOutput = z.object({
  record: RecordName,
  finished: z.boolean().describe('false: the run had not finished when the wait ended; explain_record shows it later'),
  written: z.array(AuditRowView).describe('properties written in this run, with the rule and reason'),
  other: z
    .array(AuditRowView)
    .describe('rows of this run that wrote nothing: kept edits, unchanged, no match, and why'),
  state: StateView.nullable(),
});

export function registerRecordTools(server: McpServer, ctx: ToolContext): void {
  const { service } = ctx;
  server.registerTool(
    'explain_record',
    {
      title: 'Explain a record',
      description:
        'Why one CRM record holds the partner data it holds: its enrichment state, the newest run, and the ' +
        "audit history of what crm-enrich wrote, by which mapping rule, and why. The CRM's own history (and " +
        "HubSpot's MCP server) shows that a value changed, not which rule wrote it or why a person's edit was kept.",
      inputSchema: z.object({
        ...RecordInput,
        limit: z.number().int().min(1).max(500).default(50).describe('audit rows to return'),
      }),
      outputSchema: Explanation,
      annotations: { readOnlyHint: true },
      scopeChallenge: toolScope('explain_record'),
    },
    (input) =>
      runTool(ctx, 'explain_record', async () => {
        const explained = await explainRecord(service, input, input.limit);
        const label = recordLabel(explained.record);
        const status = explained.state?.status ?? (explained.known ? 'no state' : 'never seen');
        return {
          result: explained,
          summary: `${label}: ${explained.state?.status ?? 'unknown'}, ${explained.history.length} audit rows`,
          text: `${label}: ${status}, ${explained.history.length} audit rows. ${JSON.stringify(explained)}`,
        };
      }),
  );
  server.registerTool(
    'enrich_record',
    {
      title: 'Enrich a record',
      description:
        "Fills one CRM record in from the sales-intelligence partner now, through crm-enrich's mapping and " +
        "its write rules (a person's edits are kept), and answers with what was written and why; the audit " +
        'log keeps who asked. Spends a partner credit unless cached. Needs the write scope. Sends progress ' +
        'notifications when asked for them.',
      inputSchema: z.object(RecordInput),
      outputSchema: EnrichOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      scopeChallenge: toolScope('enrich_record'),
    },
    (input, call) =>
      runTool(ctx, 'enrich_record', async () => {
        const target = mappedObject(service.connectors, service.mappings, { crm: input.crm }, input.object);
        if (!target)
          throw new ToolRefusal(`object: ${input.crm}/${input.object} is not a mapped object of a configured CRM`);
        const key = { connection: target.connector.connection, objectType: target.objectType, recordId: input.id };
        const record = {
          crm: target.connector.crm,
          connection: key.connection,
          object: key.objectType,
          id: key.recordId,
        };
        const label = recordLabel(record);
        const report = progressReporter(call);
        // The lane may answer from the cache; the client's share counts the credit the run may spend.
        const run = await ctx.budget.spend(ctx.auth.clientId, 1, async () => {
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
          await report(1, 2, `${label}: queued for the enrichment lane`);
          const settled = await waitForRun(service, key, since, ctx.enrichWaitMs);
          if (settled) await report(2, 2, `${label}: enriched`);
          return { value: settled, spent: 1 };
        });
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
            record,
            finished: run !== undefined,
            written: written.map(rowView),
            other: rows.filter((r) => r.outcome !== 'write').map(rowView),
            state: run?.state ? stateView(run.state) : null,
          },
          summary: run
            ? `${label}: ${written.length} properties written`
            : `${label}: queued, not finished within the wait`,
          text: run
            ? `${label}: ${written.length} properties written${names}. ${reasons}`
            : `${label}: the enrichment is queued but had not finished; call explain_record in a moment to see ` +
              'what it wrote.',
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
