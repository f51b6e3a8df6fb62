/**
 * The CRM connections the configuration asks for. A connector is built only for a CRM whose
 * credentials are set (the embedded default supplies sandbox credentials); the core never names one.
 */
import { hubspotConnectorFromConfig } from '../../connectors/hubspot/from-config.js';
import { salesforceConnectorFromConfig } from '../../connectors/salesforce/from-config.js';
import type { Config } from '../config.js';
import type { CrmConnector } from '../core/connector.js';
import type { LoadedMapping } from '../mapping/index.js';

/** Properties whose change means "enrich again": the ones the mappings match on. */
function watchedProperties(mappings: LoadedMapping[], crm: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const { document } of mappings) {
    if (document.crm !== crm) continue;
    out[document.object] = [...new Set(document.match.map((m) => m.property))];
  }
  return out;
}

export function connectorsFromConfig(config: Config, mappings: LoadedMapping[]): CrmConnector[] {
  const connectors: CrmConnector[] = [];
  const hubspot = hubspotConnectorFromConfig(config, { webhookPropertyWatch: watchedProperties(mappings, 'hubspot') });
  if (hubspot) connectors.push(hubspot);
  const salesforce = salesforceConnectorFromConfig(config);
  if (salesforce) connectors.push(salesforce);
  return connectors;
}
