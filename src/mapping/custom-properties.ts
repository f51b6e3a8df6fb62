/** The custom properties a mapping declares, as the specs a connector provisions. */
import type { PropertySpec } from '../core/connector.js';
import type { CustomProperty, MappingDocument } from './format.js';

function spec(name: string, custom: CustomProperty): PropertySpec {
  return {
    name,
    label: custom.label,
    type: custom.type,
    ...(custom.options ? { options: custom.options } : {}),
    ...(custom.max_length !== undefined ? { maxLength: custom.max_length } : {}),
    ...(custom.description !== undefined ? { description: custom.description } : {}),
  };
}

export function customPropertiesOf(mapping: MappingDocument, include: { discovery?: boolean } = {}): PropertySpec[] {
  const out: PropertySpec[] = [];
  const discovery =
    include.discovery === false
      ? []
      : [mapping.discovery?.source, mapping.discovery?.persona].filter((d) => d !== undefined);
  for (const item of [
    ...mapping.fields,
    ...(mapping.static ?? []),
    ...(mapping.enriched_at ? [mapping.enriched_at] : []),
    ...discovery,
  ]) {
    if (item.custom) out.push(spec(item.target, item.custom));
  }
  return out;
}

/**
 * Declared custom properties the CRM does not have yet. Salesforce appends `__c` to custom field
 * names, and names compare without case, as both CRMs treat them.
 */
export function missingCustomProperties(
  mapping: MappingDocument,
  existing: readonly { name: string }[],
): PropertySpec[] {
  const names = new Set(existing.map((p) => p.name.toLowerCase()));
  // Discovery's properties are not needed to enrich: their absence stops discovery, not the mapping.
  return customPropertiesOf(mapping, { discovery: false }).filter(
    (spec) => !names.has(spec.name.toLowerCase()) && !names.has(`${spec.name.toLowerCase()}__c`),
  );
}

/** Discovery's declared properties (source tag, persona flag) the CRM does not have yet. */
export function missingDiscoveryProperties(mapping: MappingDocument, existing: readonly { name: string }[]): string[] {
  const names = new Set(existing.map((p) => p.name.toLowerCase()));
  return [mapping.discovery?.source?.target, mapping.discovery?.persona?.target]
    .filter((t): t is string => t !== undefined)
    .filter((t) => !names.has(t.toLowerCase()) && !names.has(`${t.toLowerCase()}__c`));
}
