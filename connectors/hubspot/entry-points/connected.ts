/** The HubSpot connection an entry point serves, which must be configured. */
import type { CrmConnector } from '../../../src/core/connector.js';
import { EntryPointError } from '../../../src/core/entry-point.js';

/** The connected HubSpot connector, or a 503 naming what to set. */
export function connectedHubspot(connector: CrmConnector | undefined): CrmConnector {
  if (!connector)
    throw new EntryPointError(503, 'not_configured', 'HubSpot is not connected: set HUBSPOT_ACCESS_TOKEN.');
  return connector;
}
