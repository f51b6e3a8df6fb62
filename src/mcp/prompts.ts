/**
 * The revenue-operations tasks people ask an assistant for, as prompts a host offers (often as slash
 * commands): research an account, who changed jobs this week, what enrichment changed on a record.
 * Each is a user message that names the tools and resources to use; the record prompt carries the
 * record's explanation itself, so the model starts from what crm-enrich knows. Read scope.
 */
import type { GetPromptResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { McpContext } from './mcp-context.js';
import { explainRecord, recordLabel } from './record-explanation.js';
import { companyUri } from './resources/company-resource.js';
import { recordUri } from './resources/record-resource.js';
import { readOrRefuse } from './resources/resource-errors.js';
import { requireScope } from './scope-challenge.js';
import { PROMPT_SCOPE } from './scopes.js';

const WEEK_MS = 7 * 86_400_000;

const userText = (text: string): GetPromptResult['messages'][number] => ({
  role: 'user',
  content: { type: 'text', text },
});

export function registerPrompts(server: McpServer, service: McpContext): void {
  server.registerPrompt(
    'research_account',
    {
      title: 'Research this account',
      description:
        "A briefing on one company: the partner's profile, what the CRM holds and why, and the people " +
        'worth adding.',
      argsSchema: z.object({
        domain: z.string().min(1).max(253).describe("the company's website domain, e.g. acme.com.au"),
        market: z.string().min(2).max(2).optional().describe('market code, AU when omitted'),
        crm: z.enum(['hubspot', 'salesforce']).optional().describe('the CRM the account is in'),
        companyId: z.string().min(1).max(64).optional().describe('its CRM company or Account id'),
      }),
      scopeChallenge: requireScope(PROMPT_SCOPE),
    },
    ({ domain, market, crm, companyId }) => {
      const inCrm =
        crm && companyId
          ? `Call explain_record for ${crm} company ${companyId} to see what crm-enrich wrote on it and why, ` +
            `then preview_discovery for ${crm} company ${companyId} (ask me for a persona, or use seniority ` +
            'and department filters from filter_options) to list the people worth adding; do not run_discovery ' +
            'without my go-ahead. '
          : 'Tell me whether the account is in the CRM (ask me for its CRM id if you need it). ';
      return {
        messages: [
          userText(
            `Research the account at ${domain}. Read the company profile ${companyUri(market ?? 'AU', domain)} ` +
              `(or call lookup_company with by=fqdn, value=${domain}, market=${market ?? 'AU'}): size, ` +
              'industry, revenue, locations. ' +
              inCrm +
              'Finish with a short briefing: who they are, how big, what changed recently (list_job_changes for ' +
              'the last 30 days, people who joined or left them), and three questions for a first call.',
          ),
        ],
      };
    },
  );
  server.registerPrompt(
    'job_changes_this_week',
    {
      title: 'Who changed jobs this week',
      description: 'The contacts crm-enrich saw move to a new employer or role in the last seven days.',
      argsSchema: z.object({
        connection: z.enum(['hubspot', 'salesforce']).optional().describe('only this CRM'),
      }),
      scopeChallenge: requireScope(PROMPT_SCOPE),
    },
    ({ connection }) => ({
      messages: [
        userText(
          `Call list_job_changes with since=${new Date(Date.now() - WEEK_MS).toISOString()}` +
            `${connection ? ` and connection=${connection}` : ''}. Group the people by their new employer, ` +
            'say who moved up (a more senior title) and who left a customer account, and what the job-change ' +
            'actions already did (task created, record updated). End with the three people most worth a call ' +
            'and why.',
        ),
      ],
    }),
  );
  server.registerPrompt(
    'what_enrichment_changed',
    {
      title: 'What did enrichment change on this record',
      description: "The properties crm-enrich wrote on one CRM record, by which rule, and why; a person's edits kept.",
      argsSchema: z.object({
        crm: z.enum(['hubspot', 'salesforce']).describe('the CRM the record is in'),
        object: z.string().min(1).max(100).describe('contact, company, Contact, Lead or Account'),
        id: z.string().min(1).max(100).describe('the record id in the CRM'),
      }),
      scopeChallenge: requireScope(PROMPT_SCOPE),
    },
    async ({ crm, object, id }) => {
      const uri = new URL(recordUri(crm, object, id));
      const explained = await readOrRefuse(uri, () => explainRecord(service, { crm, object, id }, 50));
      const label = recordLabel(explained.record);
      return {
        messages: [
          userText(
            `What did enrichment change on ${label}? Its explanation from crm-enrich follows. List each ` +
              'property the newest run wrote with the old and new value and the rule, the values it kept ' +
              "(a person's edit, nothing changed) and why, and anything in the history that looks wrong.",
          ),
          {
            role: 'user',
            content: {
              type: 'resource',
              resource: {
                uri: recordUri(explained.record.connection, explained.record.object, id),
                mimeType: 'application/json',
                text: JSON.stringify(explained, null, 2),
              },
            },
          },
        ],
      };
    },
  );
}
