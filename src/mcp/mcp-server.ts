/**
 * One MCP server per request (the SDK's stateless pattern): nothing is held between requests, so any
 * instance behind a load balancer can answer any of them. The tools see the caller's token.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolContext } from './tool-call.js';
import { registerLookupTools } from './tools/lookups.js';
import { registerRecordTools } from './tools/records.js';
import { registerSearchTools } from './tools/search.js';
import { registerDiscoveryTools } from './tools/discovery.js';
import { registerJobChangeTools } from './tools/job-changes.js';

export const SERVER_INFO = { name: 'crm-enrich', version: '0.1.0' };

const INSTRUCTIONS =
  'crm-enrich keeps HubSpot and Salesforce records filled in from a sales-intelligence partner. ' +
  'Use lookup_company / lookup_person for one partner record, ' +
  'search_people (with codes from filter_options) to find people, ' +
  'explain_record to see why a CRM record holds what it holds, and enrich_record to enrich one record now. ' +
  'Lookups and searches spend partner credits from a daily budget; cached answers are free.';

export function createMcpServer(ctx: ToolContext): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  registerLookupTools(server, ctx);
  registerSearchTools(server, ctx);
  registerRecordTools(server, ctx);
  registerDiscoveryTools(server, ctx);
  registerJobChangeTools(server, ctx);
  return server;
}
