/**
 * One MCP server per request (both protocol eras are served per request): nothing is held between
 * requests, so any instance behind a load balancer can answer any of them. The tools see the caller's
 * token and its share of the day's credits.
 *
 * The capabilities say only what this server does: its lists of tools, resources and prompts never
 * change while it runs, so it never sends a list_changed notification and says so (`listChanged:
 * false`); it has no resource subscriptions and no logging (deprecated in 2026-07-28).
 */
import { McpServer } from '@modelcontextprotocol/server';
import { registerPrompts } from './prompts.js';
import { registerBudgetResource, type BudgetFigures } from './resources/budget-resource.js';
import { registerCompanyResource } from './resources/company-resource.js';
import { registerMappingResource } from './resources/mapping-resource.js';
import { registerRecordResource } from './resources/record-resource.js';
import type { ToolContext } from './tool-call.js';
import { registerDiscoveryTools } from './tools/discovery.js';
import { registerHealthTools } from './tools/health.js';
import { registerJobChangeTools } from './tools/job-changes.js';
import { registerLookupTools } from './tools/lookups.js';
import { registerRecordTools } from './tools/records.js';
import { registerSearchTools } from './tools/search.js';

export const SERVER_INFO = { name: 'crm-enrich', version: '0.1.0' };

const INSTRUCTIONS =
  'crm-enrich fills HubSpot and Salesforce records in from a sales-intelligence partner. It adds what a ' +
  "CRM's own MCP server (HubSpot's reads and writes CRM records) cannot: the partner's data on companies " +
  'and people (lookup_company, lookup_person, search_people with codes from filter_options), discovery of ' +
  'the people at an account who are not in the CRM yet (preview_discovery, run_discovery), the contacts ' +
  'who changed jobs (list_job_changes), how much of a whole CRM object is missing and what filling it ' +
  'would cost (data_health), and the audit of what enrichment wrote on a record and why ' +
  '(explain_record; enrich_record enriches one record now). Lookups spend partner credits from a daily ' +
  "budget of which each client has a share; cached answers are free. Resources: a record's explanation, " +
  "a company's partner profile, mapping versions and today's budget.";

export function createMcpServer(ctx: ToolContext, figures: BudgetFigures): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions: INSTRUCTIONS,
    capabilities: {
      tools: { listChanged: false },
      resources: { listChanged: false, subscribe: false },
      prompts: { listChanged: false },
    },
  });
  registerLookupTools(server, ctx);
  registerSearchTools(server, ctx);
  registerRecordTools(server, ctx);
  registerDiscoveryTools(server, ctx);
  registerJobChangeTools(server, ctx);
  registerHealthTools(server, ctx);
  registerRecordResource(server, ctx.service);
  registerCompanyResource(server, ctx);
  registerMappingResource(server, ctx.service);
  registerBudgetResource(server, ctx, figures);
  registerPrompts(server, ctx.service);
  return server;
}
