/**
 * A HubSpot property definition as `GET /crm/v3/properties/{objectType}` returns it. The schema is
 * tolerant (unknown fields pass, most fields optional) because HubSpot adds fields over time; only
 * what the project reads is required.
 */
import { z } from 'zod';

export const HubspotPropertyOptionSchema = z.looseObject({
  label: z.string(),
  value: z.string(),
  description: z.string().optional(),
  displayOrder: z.number().optional(),
  hidden: z.boolean().optional(),
});

export const HubspotPropertySchema = z.looseObject({
  name: z.string().min(1),
  label: z.string(),
  type: z.string(),
  fieldType: z.string(),
  description: z.string().optional(),
  groupName: z.string().optional(),
  options: z.array(HubspotPropertyOptionSchema).optional(),
  displayOrder: z.number().optional(),
  calculated: z.boolean().optional(),
  externalOptions: z.boolean().optional(),
  hasUniqueValue: z.boolean().optional(),
  hidden: z.boolean().optional(),
  hubspotDefined: z.boolean().optional(),
  formField: z.boolean().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  archived: z.boolean().optional(),
  modificationMetadata: z
    .looseObject({
      archivable: z.boolean().optional(),
      readOnlyDefinition: z.boolean().optional(),
      readOnlyValue: z.boolean().optional(),
      readOnlyOptions: z.boolean().optional(),
    })
    .optional(),
});

export type HubspotProperty = z.infer<typeof HubspotPropertySchema>;
export type HubspotPropertyOption = z.infer<typeof HubspotPropertyOptionSchema>;

export const HubspotPropertyListSchema = z.looseObject({ results: z.array(HubspotPropertySchema) });

/** HubSpot's value types and the field types its UI uses to edit them. */
export const HUBSPOT_TYPES = ['string', 'number', 'date', 'datetime', 'enumeration', 'bool', 'phone_number'] as const;
export const HUBSPOT_FIELD_TYPES = [
  'text',
  'textarea',
  'number',
  'date',
  'file',
  'select',
  'radio',
  'checkbox',
  'booleancheckbox',
  'calculation_equation',
  'html',
  'phonenumber',
] as const;
