/**
 * The HubSpot property definition for a property the mapping needs: value type and field type chosen
 * to fit the core's type, placed in our own property group so an admin sees where it came from.
 */
import type { PropertySpec } from '../../src/core/connector.js';

export const PROPERTY_GROUP = { name: 'crm_enrich', label: 'crm-enrich', displayOrder: -1 };

export interface HubspotPropertyCreate {
  name: string;
  label: string;
  type: string;
  fieldType: string;
  groupName: string;
  description: string;
  formField: boolean;
  options?: { label: string; value: string; displayOrder: number; hidden: boolean }[];
}

const TYPES: Record<PropertySpec['type'], [string, string]> = {
  string: ['string', 'text'],
  email: ['string', 'text'],
  url: ['string', 'text'],
  text: ['string', 'textarea'],
  phone: ['string', 'phonenumber'],
  number: ['number', 'number'],
  date: ['date', 'date'],
  datetime: ['datetime', 'date'],
  enumeration: ['enumeration', 'select'],
  bool: ['bool', 'booleancheckbox'],
};

/** Either the definition to create, or why it cannot be created over the API and what an admin should do. */
export function hubspotPropertyFor(spec: PropertySpec): { create: HubspotPropertyCreate } | { instruction: string } {
  if (!/^[a-z][a-z0-9_]{0,99}$/.test(spec.name)) {
    return {
      instruction:
        'HubSpot property names are lower-case letters, digits and underscores, starting with a ' +
        `letter; rename "${spec.name}" in the mapping.`,
    };
  }
  const [type, fieldType] = TYPES[spec.type];
  const create: HubspotPropertyCreate = {
    name: spec.name,
    label: spec.label,
    type,
    fieldType,
    groupName: PROPERTY_GROUP.name,
    description: spec.description ?? 'Filled in by crm-enrich.',
    formField: false,
  };
  if (spec.type === 'enumeration') {
    if (!spec.options || spec.options.length === 0) {
      return {
        instruction:
          `"${spec.name}" is an enumeration without options; list its options in the mapping or ` +
          'create it in HubSpot under Settings > Properties.',
      };
    }
    create.options = spec.options.map((value, i) => ({ label: value, value, displayOrder: i, hidden: false }));
  }
  if (spec.type === 'bool') {
    create.options = [
      { label: 'Yes', value: 'true', displayOrder: 0, hidden: false },
      { label: 'No', value: 'false', displayOrder: 1, hidden: false },
    ];
  }
  return { create };
}
