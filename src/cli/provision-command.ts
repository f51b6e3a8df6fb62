/**
 * `crm-enrich mappings provision`: the custom properties the mappings declare, created in each
 * configured CRM (HubSpot, in a property group of ours; Salesforce through the Metadata API, granted in
 * the integration user's permission set); what a CRM refuses is printed as the exact field an admin
 * adds. Runs only when a person asks for it.
 */
import { loadConfig } from '../config.js';
import type { CrmConnector } from '../core/connector.js';
import { loadJobChangeActions } from '../mapping/job-change-actions.js';
import { customPropertiesOf, loadMappingDir, MappingError } from '../mapping/index.js';
import { connectorsFromConfig } from '../app/connectors.js';
import { connectorFor } from '../core/connector-lookup.js';

/**
 * What the job-change actions need: the properties they write, for each connection whose actions file
 * entry has `properties` on, and what `employer` needs besides (HubSpot's "Former employee" label).
 */
async function provisionJobChangeProperties(
  connectors: CrmConnector[],
  options: { mappings: string; crm?: string; object?: string },
  out: NodeJS.WritableStream,
): Promise<number> {
  const actions = await loadJobChangeActions(options.mappings);
  if (actions.problems.length) throw new MappingError(actions.problems);
  let outstanding = 0;
  for (const connector of connectors) {
    if (options.crm && connector.crm !== options.crm) continue;
    const switches = actions.document?.connections[connector.connection];
    if (switches?.employer && connector.provisionJobChangeSchema && !options.object) {
      for (const line of await connector.provisionJobChangeSchema())
        out.write(`job-change actions (${connector.crm}): ${line}\n`);
    }
    if (!switches?.properties) continue;
    for (const [object, specs] of Object.entries(connector.jobChangeProperties ?? {})) {
      if (options.object && object.toLowerCase() !== options.object.toLowerCase()) continue;
      const result = await connector.ensureProperties(object, [...specs]);
      out.write(
        `job-change actions (${connector.crm} ${object}): ${result.created.length} created, ` +
          `${result.existing.length} already there, ${result.missing.length} to add by hand\n`,
      );
      for (const name of result.created) out.write(`  created ${name}\n`);
      for (const { instruction } of result.missing) out.write(`  ${instruction}\n`);
      outstanding += result.missing.length;
    }
  }
  return outstanding;
}

export async function provision(
  options: { mappings: string; crm?: string; object?: string },
  config = loadConfig(),
  out: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  const loaded = await loadMappingDir(options.mappings);
  if (loaded.problems.length) throw new MappingError(loaded.problems);
  const connectors = connectorsFromConfig(config, loaded.mappings);
  if (connectors.length === 0)
    throw new Error('no CRM credentials are configured (HUBSPOT_ACCESS_TOKEN or SALESFORCE_*); nothing to provision');
  let outstanding = 0;
  try {
    for (const { document, file } of loaded.mappings) {
      if (options.crm && document.crm !== options.crm) continue;
      if (options.object && document.object.toLowerCase() !== options.object.toLowerCase()) continue;
      const connector = connectorFor(connectors, { crm: document.crm });
      if (!connector) continue;
      const wanted = customPropertiesOf(document);
      if (wanted.length === 0) continue;
      const result = await connector.ensureProperties(document.object, wanted);
      out.write(
        `${file} (${document.crm} ${document.object}): ${result.created.length} created, ` +
          `${result.existing.length} already there, ${result.missing.length} to add by hand\n`,
      );
      for (const name of result.created) out.write(`  created ${name}\n`);
      for (const { instruction } of result.missing) out.write(`  ${instruction}\n`);
      outstanding += result.missing.length;
    }
    outstanding += await provisionJobChangeProperties(connectors, options, out);
  } finally {
    await Promise.all(connectors.map((c) => c.close()));
  }
  if (outstanding > 0)
    out.write(`${outstanding} field(s) must be added by an admin before those mappings can start.\n`);
  return outstanding;
}
