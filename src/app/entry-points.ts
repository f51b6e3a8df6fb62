/**
 * The entry point registry: every CRM's entry points (src/core/entry-point.ts), each given its
 * connector when the CRM is configured. A CRM that is not is still registered, so its calls are
 * answered 503 `not_configured` naming what to set, rather than 404.
 */
import { hubspotEntryPoints } from '../../connectors/hubspot/entry-points/index.js';
import { salesforceEntryPoints } from '../../connectors/salesforce/entry-points/index.js';
import type { Config } from '../config.js';
import type { CrmConnector } from '../core/connector.js';
import { connectorFor } from '../core/connector-lookup.js';
import type { EntryPointRegistry } from '../core/entry-point.js';

export function entryPointsFromConfig(config: Config, connectors: readonly CrmConnector[]): EntryPointRegistry {
  return [
    hubspotEntryPoints({
      connector: connectorFor(connectors, { crm: 'hubspot' }),
      clientSecret: config.HUBSPOT_CLIENT_SECRET,
      actionWaitMs: config.HUBSPOT_ACTION_WAIT_MS,
    }),
    salesforceEntryPoints({
      connector: connectorFor(connectors, { crm: 'salesforce' }),
      secret: config.SALESFORCE_ACTION_SECRET,
      actionWaitMs: config.SALESFORCE_ACTION_WAIT_MS,
    }),
  ];
}
