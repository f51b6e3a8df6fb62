/**
 * A connection's mapped object, named by the admin (a backfill, a data-health scan): the connector, the
 * object type as that CRM spells it, and its mapping; or why not, in words that list what is there.
 */
import { connectorFor, objectTypeIn } from '../../core/connector-lookup.js';
import type { CrmConnector } from '../../core/connector.js';
import type { CompiledMapping } from '../../mapping/compile.js';

export interface MappedObject {
  connector: CrmConnector;
  objectType: string;
  mapping: CompiledMapping;
}

export type MappedObjectRefusal = 'unknown_connection' | 'unknown_object';

export function resolveMappedObject(
  connectors: readonly CrmConnector[],
  mappingOf: (crm: string, objectType: string) => CompiledMapping | undefined,
  connection: string,
  object: string,
  refuse: (code: MappedObjectRefusal, message: string) => Error,
): MappedObject {
  const connector = connectorFor(connectors, { connection });
  if (!connector)
    throw refuse(
      'unknown_connection',
      `no connection named "${connection}"; configured: ${connectors.map((c) => c.connection).join(', ') || 'none'}`,
    );
  const objectType = objectTypeIn(connector, object);
  const mapping = objectType ? mappingOf(connector.crm, objectType) : undefined;
  if (!objectType || !mapping) {
    const mapped = connector.objectTypes.filter((o) => mappingOf(connector.crm, o));
    throw refuse(
      'unknown_object',
      `"${object}" is not a mapped object of ${connection}; mapped: ${mapped.join(', ') || 'none'}`,
    );
  }
  return { connector, objectType, mapping };
}
