/**
 * data_health: the latest data-health report of one CRM object (read scope; spends nothing): how many
 * records it holds, per mapped property how many are filled, how many of the empty ones crm-enrich could
 * fill and at what credit cost, and the trend of past scans. Scans are started from the admin API, the
 * admin page or `crm-enrich health --run`.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { HealthError } from '../../enrich/listing/health.js';
import { runTool, ToolRefusal, toolScope, type ToolContext } from '../tool-call.js';

const count = z.number().int();
const RunView = z.object({
  id: z.string(),
  status: z.enum(['running', 'done']),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  records: count,
  filled: z.record(z.string(), count).describe('records with each property filled at the end of the run'),
});
const HealthOutput = z.object({
  connection: z.string(),
  object: z.string(),
  records: count.describe('every record of the object in the CRM'),
  properties: z.array(
    z.object({
      property: z.string(),
      filled: count.describe('records with the property non-empty'),
      fillable: count.describe('empty, with a match key the partner would be asked with'),
      credits: count.describe('of those, the records the lookup cache does not answer'),
    }),
  ),
  credits: count.describe('at most this many credits to fill every gap (one lookup per record)'),
  neverEnriched: count,
  stale: count.describe('enriched longer ago than the refresh interval'),
  noMatchKey: count,
  freeMail: count.describe('person records whose e-mail address is at a free-mail provider'),
  noCompany: count.nullable().describe('person records without a company; null where not linked'),
  duplicateDomains: count.nullable().describe('companies sharing a domain with another; null for people'),
  scannedAt: z.string(),
  running: RunView.nullable(),
  trend: z.array(RunView).describe('finished scans, oldest first'),
});

export function registerHealthTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'data_health',
    {
      title: 'Data health of a CRM object',
      description:
        'How much of the CRM is missing: the latest scan of every record of one object (not only the ones ' +
        'crm-enrich touched), per mapped property how many are filled, how many of the empty ones the partner ' +
        'could fill and how many credits that would cost, records never enriched or stale, and the trend of ' +
        'past scans. Changes nothing, spends no credit.',
      inputSchema: z.object({
        crm: z.enum(['hubspot', 'salesforce']).describe('the connection'),
        object: z.string().trim().min(1).max(100).describe('e.g. contact or company (HubSpot), Contact (Salesforce)'),
      }),
      outputSchema: HealthOutput,
      annotations: { readOnlyHint: true },
      scopeChallenge: toolScope('data_health'),
    },
    (input) =>
      runTool(ctx, 'data_health', async () => {
        try {
          const report = await ctx.service.health.report(input.crm, input.object);
          return {
            result: report,
            summary: `data health of ${report.connection} ${report.object}: ${report.records} records`,
          };
        } catch (error) {
          if (error instanceof HealthError) throw new ToolRefusal(error.message);
          throw error;
        }
      }),
  );
}
