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
