/**
 * What the MCP server needs from the running service, and nothing more: its own authorization store,
 * the record views and audit rows its tools read and write, the day's counters and reservations of
 * its clients' credits, the saved mapping versions its resources show, and the parts its tools call.
 * The composition root's parts satisfy it; the MCP server imports neither them nor the admin API.
 */
import type { CrmConnector } from '../core/connector.js';
import type { Discovery } from '../discovery/discovery.js';
import type { DataHealth } from '../enrich/listing/health.js';
import type { PartnerLookups } from '../enrich/partner-lookups.js';
import type { PartnerClient } from '../partner/client.js';
import type { Store } from '../store/store.js';

export interface McpContext {
  readonly store: {
    /** Clients, grants and tokens of the authorization server. */
    readonly mcpAuth: Store['mcpAuth'];
    /** One record's state and audit history. */
    readonly recordView: Store['recordView'];
    readonly audit: Pick<Store['audit'], 'record'>;
    readonly jobChanges: Pick<Store['jobChanges'], 'list'>;
    /** Today's counts: partner credits, cache hits, each client's credits. */
    readonly counters: Pick<Store['counters'], 'get'>;
    readonly reservations: Pick<Store['reservations'], 'reserve'>;
    /** Saved mapping documents, by CRM object and version. */
    readonly mappings: Pick<Store['mappings'], 'get' | 'allActive'>;
  };
  readonly connectors: readonly CrmConnector[];
  readonly mappings: { get(crm: string, objectType: string): unknown };
  readonly partner: Pick<PartnerClient, 'filterOptions' | 'searchPeople'>;
  readonly lookups: PartnerLookups;
  readonly discovery: Discovery;
  /** Data-health reports of whole CRM objects (read only: scans start elsewhere). */
  readonly health: Pick<DataHealth, 'report'>;
  enrichNow(connection: string, objectType: string, recordId: string): Promise<{ queued: boolean }>;
}
