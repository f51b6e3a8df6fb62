/**
 * `crm-enrich mappings provision --salesforce-metadata <dir>`: the custom fields the Salesforce mappings
 * declare, and the integration user's permission set with access to every field they touch, written as
 * SFDX source under `dir` for `sf project deploy start`. Needs no org.
 */
import {
  salesforceMetadataFiles,
  writeSalesforceMetadata,
  type ObjectMetadataInput,
} from '../../connectors/salesforce/metadata-files.js';
import { loadConfig } from '../config.js';
import { customPropertiesOf, fieldAccessOf, loadMappingDir, MappingError } from '../mapping/index.js';

export async function writeSalesforceProjectMetadata(
  options: { mappings: string; dir: string },
  config = loadConfig(),
  out: NodeJS.WritableStream = process.stdout,
): Promise<string[]> {
  const loaded = await loadMappingDir(options.mappings);
  if (loaded.problems.length) throw new MappingError(loaded.problems);
  const objects: ObjectMetadataInput[] = loaded.mappings
    .filter(({ document }) => document.crm === 'salesforce')
    .map(({ document }) => ({
      object: document.object,
      custom: customPropertiesOf(document),
      ...fieldAccessOf(document),
    }));
  const written = await writeSalesforceMetadata(
    options.dir,
    salesforceMetadataFiles(objects, config.SALESFORCE_PERMISSION_SET),
  );
  for (const path of written) out.write(`wrote ${path}\n`);
  return written;
}
