/**
 * Reads a CRM schema for `mappings check`: the normalised property list (CrmProperty[] JSON), the body
 * of HubSpot's `GET /crm/v3/properties/{type}`, or a Salesforce describe answer.
 */
import { AppError } from '../core/errors.js';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { hubspotPropertiesToCrm } from '../../connectors/hubspot/schema.js';
import { salesforceDescribeToCrm } from '../../connectors/salesforce/schema.js';
import type { CrmProperty } from '../core/connector.js';
import { PROPERTY_TYPES } from './format.js';

const NormalisedProperty = z.object({
  name: z.string().min(1),
  label: z.string(),
  type: z.enum(PROPERTY_TYPES),
  writable: z.boolean(),
  options: z.array(z.string()).optional(),
  maxLength: z.number().int().positive().optional(),
  custom: z.boolean(),
  crmType: z.string().optional(),
});

export class CrmSchemaFileError extends AppError {
  constructor(message: string) {
    super('crm_schema_unreadable', message, 'config');
  }
}

export function crmPropertiesFrom(json: unknown): CrmProperty[] {
  if (Array.isArray(json) && json.every((p) => p && typeof p === 'object' && 'writable' in p)) {
    const parsed = z.array(NormalisedProperty).safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new CrmSchemaFileError(`not a property list: [${issue.path.join('.')}] ${issue.message}`);
    }
    return parsed.data;
  }
  if (json && typeof json === 'object' && 'fields' in json) return salesforceDescribeToCrm(json);
  return hubspotPropertiesToCrm(json);
}

export async function readCrmSchemaFile(file: string): Promise<CrmProperty[]> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new CrmSchemaFileError(`cannot read ${file} as JSON: ${(error as Error).message}`);
  }
  try {
    return crmPropertiesFrom(json);
  } catch (error) {
    throw new CrmSchemaFileError(`${file}: ${(error as Error).message}`);
  }
}
