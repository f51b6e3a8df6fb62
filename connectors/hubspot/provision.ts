/**
 * Creates the custom properties a mapping needs and the portal lacks, in our own property group.
 * Runs only when a person asks (`mappings check --provision` or the admin page), never on its own.
 */
import { CrmError, type PropertySpec, type ProvisionResult } from '../../src/core/connector.js';
import { hubspotPropertyFor, PROPERTY_GROUP, type HubspotPropertyCreate } from './property-spec.js';

export interface ProvisionCalls {
  createGroup(group: typeof PROPERTY_GROUP): Promise<unknown>;
  createProperty(create: HubspotPropertyCreate): Promise<unknown>;
}

const isConflict = (e: unknown) => e instanceof CrmError && e.details?.status === 409;

export async function ensureHubspotProperties(
  wanted: PropertySpec[],
  existingNames: Set<string>,
  calls: ProvisionCalls,
): Promise<ProvisionResult> {
  const result: ProvisionResult = { created: [], existing: [], missing: [] };
  const toCreate: { spec: PropertySpec; create: HubspotPropertyCreate }[] = [];
  for (const spec of wanted) {
    if (existingNames.has(spec.name)) {
      result.existing.push(spec.name);
      continue;
    }
    const plan = hubspotPropertyFor(spec);
    if ('instruction' in plan) result.missing.push({ spec, instruction: plan.instruction });
    else toCreate.push({ spec, create: plan.create });
  }
  if (toCreate.length === 0) return result;
  try {
    await calls.createGroup(PROPERTY_GROUP);
  } catch (e) {
    if (!isConflict(e)) throw e;
  }
  for (const { spec, create } of toCreate) {
    try {
      await calls.createProperty(create);
      result.created.push(spec.name);
    } catch (e) {
      if (isConflict(e)) result.existing.push(spec.name);
      else if (e instanceof CrmError && e.code === 'validation') {
        result.missing.push({
          spec,
          instruction:
            `HubSpot refused to create "${spec.name}": ${e.message}. Create it under Settings > ` +
            'Properties, group crm-enrich.',
        });
      } else throw e;
    }
  }
  return result;
}
