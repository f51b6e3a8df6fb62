/**
 * Creates the custom fields a mapping needs through the Metadata API (jsforce's `conn.metadata`), then
 * grants them in the integration user's permission set: a field created this way is visible to nobody
 * until field-level security says so. Whatever cannot be created or stays invisible is reported with
 * what an admin must do, as before the Metadata API was used.
 */
import type { Connection } from 'jsforce';
import { z } from 'zod';
import { CrmError, type CrmProperty, type PropertySpec, type ProvisionResult } from '../../src/core/connector.js';
import type { Priority } from '../../src/core/limiter.js';
import { parseCrmAnswer } from '../../src/core/crm-answer.js';
import { customFieldMetadata } from './field-metadata.js';
import { customFieldName, planProvisioning } from './provisioning.js';

export interface FieldProvisioningOptions {
  call<T>(operation: string, priority: Priority, send: (c: Connection) => Promise<T>): Promise<T>;
  /** The describe of the object, read fresh each time. */
  describe(objectType: string): Promise<CrmProperty[]>;
  permissionSet: string;
}

/** Salesforce takes at most ten components per create or upsert call. */
const PER_CALL = 10;

const MetadataResult = z.looseObject({
  fullName: z.string().optional(),
  success: z.boolean(),
  created: z.boolean().optional(),
  errors: z.array(z.looseObject({ statusCode: z.string().optional(), message: z.string().optional() })).optional(),
});
const MetadataResults = z.array(MetadataResult);
const PermissionSetRecord = z.looseObject({ fullName: z.string().nullish(), label: z.string().nullish() });

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += PER_CALL) out.push(items.slice(i, i + PER_CALL));
  return out;
}

export async function provisionFields(
  options: FieldProvisioningOptions,
  objectType: string,
  wanted: PropertySpec[],
): Promise<ProvisionResult> {
  const plan = planProvisioning(objectType, await options.describe(objectType), wanted);
  if (plan.missing.length === 0) return plan;

  // Fields to grant: the ones created now, and ones the org has but the integration user cannot see.
  const toGrant: PropertySpec[] = [];
  const refused = new Map<string, string>();
  /** Fields the org already had, out of the integration user's sight. */
  const hidden = new Set<string>();
  for (const chunk of chunks(plan.missing.map((m) => m.spec))) {
    let results: z.output<typeof MetadataResults>;
    try {
      const metadata = chunk.map((spec) => customFieldMetadata(objectType, spec));
      results = parseCrmAnswer(
        'salesforce',
        MetadataResults,
        await options.call('metadata.create', 'interactive', (c) => c.metadata.create('CustomField', metadata)),
        'metadata.create',
      );
    } catch (error) {
      if (!(error instanceof CrmError)) throw error;
      for (const spec of chunk) refused.set(spec.name, error.message);
      continue;
    }
    chunk.forEach((spec, i) => {
      const result = results[i];
      const error = result?.errors?.[0];
      if (error?.statusCode === 'DUPLICATE_DEVELOPER_NAME') hidden.add(spec.name);
      if (result?.success || hidden.has(spec.name)) toGrant.push(spec);
      else refused.set(spec.name, `${error?.statusCode ?? 'UNKNOWN'}: ${error?.message ?? 'not created'}`);
    });
  }

  let grantProblem: string | undefined;
  if (toGrant.length > 0) grantProblem = await grant(options, objectType, toGrant);

  const after = planProvisioning(objectType, await options.describe(objectType), wanted);
  const visible = new Set([...after.existing].map((n) => n.toLowerCase()));
  const result: ProvisionResult = { created: [], existing: [...plan.existing], missing: [] };
  for (const { spec, instruction } of plan.missing) {
    const name = customFieldName(spec.name);
    if (visible.has(name.toLowerCase())) {
      (hidden.has(spec.name) ? result.existing : result.created).push(name);
      continue;
    }
    const reason =
      refused.get(spec.name) ??
      grantProblem ??
      `${objectType}.${name} exists, but the integration user cannot see it: ` +
        `assign the permission set ${options.permissionSet} to that user`;
    result.missing.push({ spec, instruction: `${reason}. ${instruction}` });
  }
  return result;
}

/** Read and edit access for `fields` in the permission set; other permissions in it are left as they are. */
async function grant(
  options: FieldProvisioningOptions,
  objectType: string,
  fields: PropertySpec[],
): Promise<string | undefined> {
  try {
    const existing = parseCrmAnswer(
      'salesforce',
      PermissionSetRecord,
      await options.call('metadata.read', 'interactive', (c) =>
        c.metadata.read('PermissionSet', options.permissionSet),
      ),
      'metadata.read',
    );
    const fieldPermissions = fields.map((spec) => ({
      field: `${objectType}.${customFieldName(spec.name)}`,
      readable: true,
      editable: true,
    }));
    for (const chunk of chunks(fieldPermissions)) {
      const [result] = parseCrmAnswer(
        'salesforce',
        MetadataResults,
        await options.call('metadata.upsert', 'interactive', (c) =>
          c.metadata.upsert('PermissionSet', [
            {
              fullName: options.permissionSet,
              label: existing.label || 'crm-enrich integration',
              fieldPermissions: chunk,
            },
          ]),
        ),
        'metadata.upsert',
      );
      if (!result?.success) {
        const error = result?.errors?.[0];
        const why = `${error?.statusCode ?? 'UNKNOWN'}: ${error?.message ?? 'no reason given'}`;
        return `Salesforce refused to grant the fields in permission set ${options.permissionSet} (${why})`;
      }
    }
    return undefined;
  } catch (error) {
    if (!(error instanceof CrmError)) throw error;
    return `Salesforce refused to grant the fields in permission set ${options.permissionSet} (${error.message})`;
  }
}
