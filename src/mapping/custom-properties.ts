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

export function customPropertiesOf(mapping: MappingDocument): PropertySpec[] {
  const out: PropertySpec[] = [];
  for (const item of [...mapping.fields, ...(mapping.static ?? []), ...(mapping.enriched_at ? [mapping.enriched_at] : [])]) {
    if (item.custom) out.push(spec(item.target, item.custom));
  }
  return out;
}

/**
 * Declared custom properties the CRM does not have yet. Salesforce appends `__c` to custom field
 * names, and names compare without case, as both CRMs treat them.
 */
export function missingCustomProperties(mapping: MappingDocument, existing: readonly { name: string }[]): PropertySpec[] {
  const names = new Set(existing.map((p) => p.name.toLowerCase()));
  return customPropertiesOf(mapping).filter((spec) => !names.has(spec.name.toLowerCase()) && !names.has(`${spec.name.toLowerCase()}__c`));
}
