/**
 * Finding a connector in the configured list: by CRM kind or connection name, an object type as the
 * connector spells it, and the connector and object type of a mapped object.
 */
import type { CrmConnector } from './connector.js';

/**
 * The connector of a CRM (`hubspot`, `salesforce`) or of a connection name. One connection per CRM
 * today, so the two coincide; callers say which they mean.
 */
export function connectorFor(
  connectors: readonly CrmConnector[],
  key: { crm: string } | { connection: string },
): CrmConnector | undefined {
  return 'crm' in key
    ? connectors.find((c) => c.crm === key.crm)
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
  key: { crm: string } | { connection: string },
  object: string,
): { connector: CrmConnector; objectType: string } | undefined {
  const connector = connectorFor(connectors, key);
  const objectType = connector && objectTypeIn(connector, object);
  if (!connector || !objectType || !mappings.get(connector.crm, objectType)) return undefined;
  return { connector, objectType };
}
