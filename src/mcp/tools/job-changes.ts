/**
 * list_job_changes: the contacts crm-enrich saw change jobs (read scope; spends nothing): record,
 * partner person, from and to employer, old and new title, when, and what the actions did.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { runTool, ToolRefusal, toolScope, type ToolContext } from '../tool-call.js';

const Employer = z.object({
  companyId: z.string().nullable(),
  domain: z.string().nullable(),
  name: z.string().nullable(),
});
const JobChange = z.object({
  connection: z.string(),
  object: z.string(),
  recordId: z.string(),
  personId: z.string().nullable(),
  kind: z.enum(['employer', 'new_role']).describe('employer: a new employer; new_role: a newer start at the same one'),
  from: Employer,
  to: Employer,
  oldTitle: z.string().nullable(),
  newTitle: z.string().nullable(),
  detectedAt: z.string(),
  actions: z
    .record(z.string(), z.string())
    .describe(
      'by action (properties, task, employer, newContact), what became of it: done, skipped: <why>, or failed: <code>',
    ),
});

const JobChangesInput = z.object({
  since: z.string().describe('ISO 8601 time, e.g. 2026-11-01T00:00:00Z'),
  connection: z.string().min(1).optional().describe('only this connection (hubspot or salesforce)'),
  limit: z.number().int().min(1).max(500).default(100),
});

export function registerJobChangeTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'list_job_changes',
    {
      title: 'List job changes',
      description:
        'Contacts crm-enrich saw move to a new employer (or a new role), newest first, since a time: from ' +
        'where to where, old and new title, and what the job-change actions did. The CRM itself does not ' +
        "know a contact left; crm-enrich learns it from the partner's data. Changes nothing, spends no credit.",
      inputSchema: JobChangesInput,
      outputSchema: z.object({ jobChanges: z.array(JobChange) }),
      annotations: { readOnlyHint: true },
      scopeChallenge: toolScope('list_job_changes'),
    },
    (input) =>
      runTool(ctx, 'list_job_changes', async () => {
        const since = new Date(input.since);
        if (Number.isNaN(since.getTime()))
          throw new ToolRefusal('since: expected an ISO 8601 time, e.g. 2026-11-01T00:00:00Z');
        const found = await ctx.service.store.jobChanges.list({
          since,
          limit: input.limit,
          ...(input.connection ? { connection: input.connection } : {}),
        });
        const jobChanges = found.map(
          ({ id: _id, objectType, detectedAt, started: _started, reason: _reason, ...rest }) => ({
            ...rest,
            object: objectType,
            detectedAt: detectedAt.toISOString(),
          }),
        );
        return { result: { jobChanges }, summary: `${jobChanges.length} job changes since ${since.toISOString()}` };
      }),
  );
}
