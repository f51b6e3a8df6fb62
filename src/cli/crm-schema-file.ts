/**
 * Reads a CRM schema for `mappings check`: the normalised property list (CrmProperty[] JSON), the body
 * of HubSpot's `GET /crm/v3/properties/{type}`, or a Salesforce describe answer. It knows each CRM's
 * wire shape, so it lives with the command line rather than with the mappings.
 */
import { AppError } from '../core/errors.js';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { hubspotPropertiesToCrm } from '../../connectors/hubspot/schema.js';
import { salesforceDescribeToCrm } from '../../connectors/salesforce/schema.js';
import type { CrmProperty } from '../core/connector.js';
import { schemaKey } from '../mapping/loader.js';
import { PROPERTY_TYPES } from '../mapping/format.js';

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

/** Reads `<dir>/<crm>/<object>.json` schema files (normalised, HubSpot properties or Salesforce describe). */
export async function readCrmSchemaDir(dir: string): Promise<Map<string, CrmProperty[]>> {
  const schemas = new Map<string, CrmProperty[]>();
  for (const crm of ['hubspot', 'salesforce']) {
    let names: string[];
    try {
      names = await readdir(join(dir, crm));
    } catch {
      continue;
    }
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      schemas.set(schemaKey(crm, name.slice(0, -5)), await readCrmSchemaFile(join(dir, crm, name)));
    }
  }
  return schemas;
}
