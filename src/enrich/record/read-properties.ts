/** What to read of a record: what its mapping plans with, and the property that names its company when it is linked. */
import type { CrmConnector } from '../../core/connector.js';
import type { CompiledMapping } from '../../mapping/compile.js';

export function companyLinkProperty(
  connector: CrmConnector,
  objectType: string,
  mapping: CompiledMapping,
): string | undefined {
  return mapping.document.company ? connector.companyLinkProperties?.[objectType] : undefined;
}

export function propertiesToRead(connector: CrmConnector, objectType: string, mapping: CompiledMapping): string[] {
  const link = companyLinkProperty(connector, objectType, mapping);
  return link && !mapping.propertiesToRead.includes(link)
    ? [...mapping.propertiesToRead, link]
    : [...mapping.propertiesToRead];
}
