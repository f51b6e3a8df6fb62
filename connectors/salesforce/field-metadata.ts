/**
 * A mapping's custom property as Salesforce's `CustomField` metadata: one definition that both the SFDX
 * project's field files and the Metadata API calls of `mappings provision` are written from, so a field
 * deployed with `sf project deploy start` and one created by the command are the same field.
 */
import type { PropertySpec, PropertyType } from '../../src/core/connector.js';
import { customFieldName } from './provisioning.js';

export interface PicklistValueMetadata {
  fullName: string;
  default: boolean;
  label: string;
}

/** The CustomField members crm-enrich sets, in the order Salesforce's own files list them. */
export interface CustomFieldMetadata {
  /** `Object.Field__c` for the Metadata API; the source file names only the field. */
  fullName: string;
  defaultValue?: string;
  description?: string;
  inlineHelpText?: string;
  label: string;
  length?: number;
  precision?: number;
  scale?: number;
  type: string;
  valueSet?: { restricted: boolean; valueSetDefinition: { sorted: boolean; value: PicklistValueMetadata[] } };
  visibleLines?: number;
}

/** Salesforce's limits: Text up to 255 characters, Long Text Area 256 to 131,072. */
const TEXT_MAX = 255;
const LONG_TEXT_DEFAULT = 32_768;
/** Salesforce caps help text at 510 characters and descriptions at 1,000. */
const HELP_MAX = 510;

function typeMembers(
  type: PropertyType,
  spec: PropertySpec,
): Pick<CustomFieldMetadata, 'type' | 'length' | 'precision' | 'scale' | 'defaultValue' | 'visibleLines' | 'valueSet'> {
  switch (type) {
    case 'string':
      return { type: 'Text', length: Math.min(spec.maxLength ?? TEXT_MAX, TEXT_MAX) };
    case 'text':
      return { type: 'LongTextArea', length: Math.max(spec.maxLength ?? LONG_TEXT_DEFAULT, 256), visibleLines: 3 };
    case 'number':
      return { type: 'Number', precision: 18, scale: 0 };
    case 'date':
      return { type: 'Date' };
    case 'datetime':
      return { type: 'DateTime' };
    case 'bool':
      // Salesforce refuses a Checkbox without a default.
      return { type: 'Checkbox', defaultValue: 'false' };
    case 'phone':
      return { type: 'Phone' };
    case 'email':
      return { type: 'Email' };
    case 'url':
      return { type: 'Url' };
    case 'enumeration':
      return {
        type: 'Picklist',
        valueSet: {
          // Restricted, as the mapping's value map only ever writes the declared options.
          restricted: true,
          valueSetDefinition: {
            sorted: false,
            value: (spec.options ?? []).map((o) => ({ fullName: o, default: false, label: o })),
          },
        },
      };
  }
}

export function customFieldMetadata(objectType: string, spec: PropertySpec): CustomFieldMetadata {
  const field: CustomFieldMetadata = {
    fullName: `${objectType}.${customFieldName(spec.name)}`,
    label: spec.label,
    ...typeMembers(spec.type, spec),
  };
  if (spec.description) {
    field.description = spec.description;
    field.inlineHelpText = spec.description.slice(0, HELP_MAX);
  }
  return field;
}
