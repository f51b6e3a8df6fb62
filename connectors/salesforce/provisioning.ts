/**
 * Which of a mapping's custom fields the org lacks, and for each, exactly what an admin enters in Setup:
 * the instruction `mappings provision` prints when the Metadata API could not create or grant a field
 * (field-provisioning.ts).
 */
import type { CrmProperty, PropertySpec, PropertyType, ProvisionResult } from '../../src/core/connector.js';

const FIELD_TYPES: Record<PropertyType, { type: string; length?: number }> = {
  string: { type: 'Text', length: 255 },
  text: { type: 'Text Area (Long)', length: 32768 },
  number: { type: 'Number(18, 0)' },
  date: { type: 'Date' },
  datetime: { type: 'Date/Time' },
  enumeration: { type: 'Picklist' },
  bool: { type: 'Checkbox' },
  phone: { type: 'Phone' },
  email: { type: 'Email' },
  url: { type: 'URL', length: 255 },
};

/** The API name Salesforce gives a custom field: letters, digits, single underscores, `__c` suffix. */
export function customFieldName(name: string): string {
  if (name.endsWith('__c')) return name;
  return `${name
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/_+/g, '_')}__c`;
}

export function fieldInstruction(objectType: string, spec: PropertySpec): string {
  const kind = FIELD_TYPES[spec.type];
  const length = spec.maxLength ?? kind.length;
  const apiName = customFieldName(spec.name);
  const parts = [
    `In Salesforce Setup > Object Manager > ${objectType} > Fields & Relationships > New, add a ${kind.type} field`,
    `Field Label "${spec.label}"`,
    `Field Name "${apiName.slice(0, -3)}" (API name ${apiName})`,
  ];
  if (length !== undefined && kind.type !== 'Picklist') parts.push(`Length ${length}`);
  if (spec.type === 'enumeration' && spec.options?.length) parts.push(`values: ${spec.options.join('; ')}`);
  parts.push('and give the integration user edit access to it (field-level security)');
  return `${parts.join(', ')}.`;
}

export function planProvisioning(objectType: string, existing: CrmProperty[], wanted: PropertySpec[]): ProvisionResult {
  const byName = new Map(existing.map((p) => [p.name.toLowerCase(), p]));
  const result: ProvisionResult = { created: [], existing: [], missing: [] };
  for (const spec of wanted) {
    const found = byName.get(spec.name.toLowerCase()) ?? byName.get(customFieldName(spec.name).toLowerCase());
    if (found) result.existing.push(found.name);
    else result.missing.push({ spec, instruction: fieldInstruction(objectType, spec) });
  }
  return result;
}
