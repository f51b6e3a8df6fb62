/**
 * Describe entries for custom fields an admin would have added in Setup, so a sandbox org can start
 * with the fields a mapping needs (Salesforce cannot create them over REST).
 */
import type { PropertySpec, PropertyType } from '../../../src/core/connector.js';
import { customFieldName } from '../provisioning.js';
import type { DescribeField, DescribeFieldType } from '../standard-fields.js';

const TYPES: Record<PropertyType, { type: DescribeFieldType; length: number }> = {
  string: { type: 'string', length: 255 },
  text: { type: 'textarea', length: 32_768 },
  number: { type: 'double', length: 0 },
  date: { type: 'date', length: 0 },
  datetime: { type: 'datetime', length: 0 },
  enumeration: { type: 'picklist', length: 255 },
  bool: { type: 'boolean', length: 0 },
  phone: { type: 'phone', length: 40 },
  email: { type: 'email', length: 80 },
  url: { type: 'url', length: 255 },
};

export function describeFieldsFor(specs: PropertySpec[]): Partial<DescribeField>[] {
  return specs.map((spec) => {
    const kind = TYPES[spec.type];
    return {
      name: customFieldName(spec.name),
      label: spec.label,
      type: kind.type,
      length: spec.maxLength ?? kind.length,
      updateable: true,
      createable: true,
      nillable: true,
      custom: true,
      picklistValues: (spec.options ?? []).map((value) => ({ active: true, label: value, value, defaultValue: false })),
    };
  });
}
