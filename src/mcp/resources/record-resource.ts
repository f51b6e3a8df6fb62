/**
 * `crm-enrich://records/{connection}/{objectType}/{recordId}`: one CRM record as crm-enrich knows it
 * (the explanation explain_record gives): which record, its enrichment state, the newest run and the
 * audit history. Read scope; spends nothing.
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { connectorFor } from '../../core/connector-lookup.js';
import type { McpContext } from '../mcp-context.js';
import { explainRecord } from '../record-explanation.js';
import { requireScope } from '../scope-challenge.js';
import { RESOURCE_SCOPE } from '../scopes.js';
import { ToolRefusal } from '../tool-call.js';
import { jsonContents, readOrRefuse } from './resource-errors.js';

export const RECORD_URI = 'crm-enrich://records/{connection}/{objectType}/{recordId}';

/** Audit rows a resource read shows: the explanation's newest part; explain_record takes a limit. */
const HISTORY_ROWS = 50;

export function recordUri(connection: string, objectType: string, recordId: string): string {
  return `crm-enrich://records/${[connection, objectType, recordId].map(encodeURIComponent).join('/')}`;
}

export function registerRecordResource(server: McpServer, service: McpContext): void {
  server.registerResource(
    'record',
    new ResourceTemplate(RECORD_URI, { list: undefined }),
    {
      title: 'An enriched CRM record',
      description:
        'One HubSpot or Salesforce record as crm-enrich knows it: its enrichment state, the newest run and ' +
        'the audit history of what was written, by which rule, and why. connection is hubspot or ' +
        'salesforce, objectType as the CRM spells it (contact, company, Contact, Lead, Account).',
      mimeType: 'application/json',
      scopeChallenge: requireScope(RESOURCE_SCOPE),
    },
    (uri, variables) =>
      readOrRefuse(uri, async () => {
        const [connection, objectType, recordId] = [variables.connection, variables.objectType, variables.recordId].map(
          (v) => decodeURIComponent(String(v)),
        );
        const connector = connectorFor(service.connectors, { connection: connection! });
        if (!connector) throw new ToolRefusal(`connection: no connection is called "${connection}"`);
        return jsonContents(
          uri,
          await explainRecord(service, { crm: connector.crm, object: objectType!, id: recordId! }, HISTORY_ROWS),
        );
      }),
  );
}
