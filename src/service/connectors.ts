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

/**
 * The connector of a CRM kind (`hubspot`, `salesforce`) or of a connection name. One connection per CRM
 * today, so the two coincide; callers say which they mean.
 */
export function connectorFor(
  connectors: readonly CrmConnector[],
  key: { kind: string } | { connection: string },
): CrmConnector | undefined {
  return 'kind' in key
    ? connectors.find((c) => c.kind === key.kind)
    : connectors.find((c) => c.connection === key.connection);
}

/** An object type as the connector spells it (`contact`, `Contact`), whatever case it was asked in. */
export function objectTypeIn(connector: CrmConnector, object: string): string | undefined {
  const wanted = object.toLowerCase();
  return connector.objectTypes.find((o) => o.toLowerCase() === wanted);
}

/**
 * The connector and object type (as the connector spells it) of an object with an active mapping, or
 * undefined when the CRM or connection is not configured or the object is not mapped.
 */
export function mappedObject(
  connectors: readonly CrmConnector[],
  mappings: { get(crm: string, objectType: string): unknown },
  key: { kind: string } | { connection: string },
  object: string,
): { connector: CrmConnector; objectType: string } | undefined {
  const connector = connectorFor(connectors, key);
  const objectType = connector && objectTypeIn(connector, object);
  if (!connector || !objectType || !mappings.get(connector.kind, objectType)) return undefined;
  return { connector, objectType };
}
