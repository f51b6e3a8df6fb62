/**
 * preview_discovery and run_discovery: discovery (docs/discovery.md) for an assistant. The preview
 * lists the people a persona finds at an enriched company and what a run would do with each (read
 * scope, spends nothing); the run adds them, with the same claims, limits, mapping and audit as the
 * admin API (write scope), within the caller's share of the day's credits, and reports its progress.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { DiscoveryError } from '../../discovery/target.js';
import { progressReporter } from '../progress.js';
import { runTool, ToolRefusal, toolScope, type ToolContext } from '../tool-call.js';

const DiscoveryInput = z.object({
  crm: z.enum(['hubspot', 'salesforce']).describe('the CRM the company is in'),
  companyId: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .describe('the CRM id of an enriched company (HubSpot company, Salesforce Account)'),
  persona: z.string().trim().min(1).max(80).optional().describe('a saved persona (instead of filters)'),
  filters: z
    .object({
      seniority: z.array(z.string()).optional().describe('seniority codes from filter_options'),
      department: z.array(z.string()).optional().describe('department codes from filter_options'),
      position: z.array(z.string()).optional().describe('job title text to look for'),
    })
    .optional(),
  limit: z.number().int().min(1).max(1000).optional().describe('add at most this many people (default 10)'),
  skipDoNotDisturb: z.boolean().optional().describe('leave out people whose phone is on a do-not-disturb register'),
});
const Candidate = z.object({
  personId: z.string(),
  position: z.string().nullable(),
  seniority: z.string().nullable(),
  department: z.string().nullable(),
  hasEmail: z.boolean(),
  hasDndPhone: z.boolean(),
  action: z.enum(['create', 'link', 'skip']),
  code: z.string(),
  reason: z.string(),
  recordId: z.string().nullable(),
  credit: z.boolean(),
});
const Company = z.object({ id: z.string(), name: z.string().nullable(), partnerId: z.string(), market: z.string() });

async function refusing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DiscoveryError) throw new ToolRefusal(error.message);
    throw error;
  }
}

export function registerDiscoveryTools(server: McpServer, ctx: ToolContext): void {
  const { discovery } = ctx.service;
  server.registerTool(
    'preview_discovery',
    {
      title: 'Preview discovery at a company',
      description:
        "The people at one enriched CRM company who fit a persona in the sales-intelligence partner's data, " +
        'including those not in the CRM yet, and for each what adding them would do (create, link to a ' +
        'record already there, or skip and why), with the credits it would spend. Changes nothing and ' +
        'spends no credit.',
      inputSchema: DiscoveryInput,
      outputSchema: z.object({
        company: Company,
        description: z.string(),
        candidates: z.array(Candidate),
        credits: z.number(),
        counts: z.object({ create: z.number(), link: z.number(), skip: z.number() }),
        beyondLimit: z.number().describe("people who fit the persona past the run's limit, not listed"),
      }),
      annotations: { readOnlyHint: true, openWorldHint: true },
      scopeChallenge: toolScope('preview_discovery'),
    },
    (input) =>
      runTool(ctx, 'preview_discovery', async () => {
        const p = await refusing(() => discovery.preview(input));
        const candidates = p.candidates.map(
          ({
            personId,
            position,
            seniority,
            department,
            hasEmail,
            hasDndPhone,
            action,
            code,
            reason,
            recordId,
            credit,
          }) => ({
            personId,
            position,
            seniority,
            department,
            hasEmail,
            hasDndPhone,
            action,
            code,
            reason,
            recordId,
            credit,
          }),
        );
        return {
          result: {
            company: p.company,
            description: p.description,
            candidates,
            credits: p.credits,
            counts: p.counts,
            beyondLimit: p.beyondLimit,
          },
          summary:
            `${input.crm} company ${input.companyId}: ${p.counts.create} to create, ${p.counts.link} ` +
            `to link, ${p.counts.skip} skipped, ${p.credits} credits`,
        };
      }),
  );
  server.registerTool(
    'run_discovery',
    {
      title: 'Add people at a company',
      description:
        'Adds the people preview_discovery lists: creates new ones in the CRM from the partner data through ' +
        "crm-enrich's mapping (one credit each), links those already there with the company, never creates " +
        "anyone twice, and stops at the run, daily and credit limits and at this client's share of the day's " +
        'credits. Needs the write scope. Sends progress notifications when asked for them.',
      inputSchema: DiscoveryInput,
      outputSchema: z.object({
        company: Company,
        created: z.number(),
        linked: z.number(),
        skipped: z.number(),
        credits: z.number(),
        stopped: z.object({ reason: z.string(), message: z.string() }).nullable(),
        people: z.array(
          z.object({
            personId: z.string(),
            name: z.string().nullable().describe('the name of a person created (their profile was looked up)'),
            action: z.string(),
            code: z.string(),
            reason: z.string(),
            recordId: z.string().nullable(),
          }),
        ),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      scopeChallenge: toolScope('run_discovery'),
    },
    (input, call) =>
      runTool(ctx, 'run_discovery', async () => {
        const report = progressReporter(call);
        // The client's share is reserved for every person the run may add (only creations spend), and
        // a share smaller than the limit makes the run smaller.
        const wanted = input.limit ?? discovery.defaultLimit;
        const r = await ctx.budget.spend(ctx.auth.clientId, wanted, async (granted) => {
          const run = await refusing(() =>
            discovery.run({ ...input, limit: Math.min(wanted, granted) }, (p) => {
              void report(
                p.done + 1,
                p.total + 1,
                `${p.done} of ${p.total} people: ${p.created} created, ${p.linked} linked, ${p.skipped} skipped`,
              );
            }),
          );
          return { value: run, spent: run.credits };
        });
        return {
          result: {
            company: r.company,
            created: r.created,
            linked: r.linked,
            skipped: r.skipped,
            credits: r.credits,
            stopped: r.stopped,
            people: r.people.map(({ personId, name, action, code, reason, recordId }) => ({
              personId,
              name: name ?? null,
              action,
              code,
              reason,
              recordId,
            })),
          },
          summary:
            `${input.crm} company ${input.companyId}: ${r.created} created, ${r.linked} linked, ` +
            `${r.skipped} skipped, ${r.credits} credits${r.stopped ? `; stopped: ${r.stopped.reason}` : ''}`,
        };
      }),
  );
}
