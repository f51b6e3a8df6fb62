/**
 * Turns a Salesforce describe answer (`GET /sobjects/<type>/describe`) into the CRM-neutral property
 * list the mapping checks read. Compound fields (address, location) are left out: Salesforce only
 * accepts writes to their parts (BillingCity, ...), which are listed on their own.
 */
import { z } from 'zod';
import type { CrmProperty, PropertyType } from '../../src/core/connector.js';
import { AppError } from '../../src/core/errors.js';

const DescribeFieldSchema = z.object({
  name: z.string().min(1),
  type: z.string().min(1),
  label: z.string(),
  length: z.number().int().nonnegative().optional(),
  updateable: z.boolean(),
  custom: z.boolean().optional(),
  picklistValues: z
    .array(z.object({ value: z.string(), label: z.string().nullable().optional(), active: z.boolean().optional() }))
    .optional(),
});

export const DescribeSchema = z.object({
  name: z.string().min(1),
  fields: z.array(DescribeFieldSchema),
});

export type DescribeAnswer = z.infer<typeof DescribeSchema>;

const TYPE_MAP: Record<string, PropertyType> = {
  id: 'string',
  string: 'string',
  reference: 'string',
  combobox: 'string',
  encryptedstring: 'string',
  time: 'string',
  textarea: 'text',
  email: 'email',
  phone: 'phone',
  url: 'url',
  picklist: 'enumeration',
  multipicklist: 'enumeration',
  int: 'number',
  long: 'number',
  double: 'number',
  currency: 'number',
  percent: 'number',
  date: 'date',
  datetime: 'datetime',
  boolean: 'bool',
};

const TEXT_TYPES = new Set<PropertyType>(['string', 'text', 'email', 'phone', 'url', 'enumeration']);

export class SalesforceDescribeError extends AppError {
  constructor(message: string) {
    super('salesforce_describe_invalid', message, 'permanent');
  }
}

/** Throws SalesforceDescribeError naming the first bad path when `json` is not a describe answer. */
export function salesforceDescribeToCrm(json: unknown): CrmProperty[] {
  const parsed = DescribeSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.join('.') || '(root)';
    throw new SalesforceDescribeError(
      `Not a Salesforce describe answer: ${path}: ${issue?.message ?? 'invalid'}. ` +
        'Pass the JSON of GET /services/data/vXX.X/sobjects/<Object>/describe.',
    );
  }
  const properties: CrmProperty[] = [];
  for (const field of parsed.data.fields) {
    const type = TYPE_MAP[field.type];
    if (!type) continue;
    const property: CrmProperty = {
      name: field.name,
      label: field.label,
      type,
      writable: field.updateable,
      custom: field.custom ?? field.name.endsWith('__c'),
      crmType: field.type,
    };
    if (TEXT_TYPES.has(type) && field.length) property.maxLength = field.length;
    if (type === 'enumeration') {
      property.options = (field.picklistValues ?? []).filter((v) => v.active !== false).map((v) => v.value);
    }
    properties.push(property);
  }
  return properties;
}
