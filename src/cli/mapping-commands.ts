/**
 * `crm-enrich mappings check|preview|schema`. Heavy modules load inside the actions so the rest of the
 * command line stays fast.
 */
import type { Command } from 'commander';
import type { CrmProperty } from '../core/connector.js';
import type { LoadedMapping } from '../mapping/loader.js';
import type { MappingProblem } from '../mapping/problems.js';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

async function sandboxSchemas(): Promise<Map<string, CrmProperty[]>> {
  const [
    { hubspotPropertiesToCrm },
    { STANDARD_CONTACT_PROPERTIES, STANDARD_COMPANY_PROPERTIES },
    { salesforceDescribeToCrm },
    { standardFields },
    { schemaKey },
  ] = await Promise.all([
    import('../../connectors/hubspot/schema.js'),
    import('../../connectors/hubspot/standard-properties.js'),
    import('../../connectors/salesforce/schema.js'),
    import('../../connectors/salesforce/standard-fields.js'),
    import('../mapping/loader.js'),
  ]);
  const schemas = new Map<string, CrmProperty[]>();
  schemas.set(schemaKey('hubspot', 'contact'), hubspotPropertiesToCrm({ results: STANDARD_CONTACT_PROPERTIES }));
  schemas.set(schemaKey('hubspot', 'company'), hubspotPropertiesToCrm({ results: STANDARD_COMPANY_PROPERTIES }));
  for (const type of ['Lead', 'Contact', 'Account'] as const) {
    schemas.set(schemaKey('salesforce', type), salesforceDescribeToCrm({ name: type, fields: standardFields(type) }));
  }
  return schemas;
}

interface CheckOptions {
  schemas?: string;
  schema: string[];
  required: string[];
  sandbox?: boolean;
  live?: boolean;
}

/**
 * The schemas of the configured CRMs, read over their APIs (HUBSPOT_*, SALESFORCE_*), with a problem
 * for every declared custom property the CRM does not have yet.
 */
async function liveSchemas(mappings: LoadedMapping[], schemas: Map<string, CrmProperty[]>): Promise<MappingProblem[]> {
  const [{ loadConfig }, { connectorsFromConfig }, { connectorFor }, { missingCustomProperties }, { schemaKey }] =
    await Promise.all([
      import('../config.js'),
      import('../app/connectors.js'),
      import('../core/connector-lookup.js'),
      import('../mapping/custom-properties.js'),
      import('../mapping/loader.js'),
    ]);
  const connectors = connectorsFromConfig(loadConfig(), mappings);
  if (connectors.length === 0)
    throw new Error('--live needs CRM credentials: set HUBSPOT_ACCESS_TOKEN or the SALESFORCE_* variables');
  const problems: MappingProblem[] = [];
  try {
    for (const { file, document } of mappings) {
      const connector = connectorFor(connectors, { crm: document.crm });
      if (!connector) continue;
      const properties = await connector.readSchema(document.object);
      schemas.set(schemaKey(document.crm, document.object), properties);
      for (const spec of missingCustomProperties(document, properties)) {
        problems.push({
          file,
          path: ['fields', spec.name, 'custom'],
          code: 'unknown_property',
          message:
            `${spec.name} does not exist in ${document.crm} yet; \`crm-enrich mappings provision\` ` +
            'creates it, or says what an admin must add',
        });
      }
    }
  } finally {
    await Promise.all(connectors.map((c) => c.close()));
  }
  return problems;
}

async function check(dir: string, options: CheckOptions): Promise<number> {
  const { loadMappingDir, validateMappings, schemaKey } = await import('../mapping/loader.js');
  const { readCrmSchemaDir, readCrmSchemaFile } = await import('./crm-schema-file.js');
  const { formatProblems } = await import('../mapping/problems.js');
  const schemas = options.sandbox ? await sandboxSchemas() : new Map<string, CrmProperty[]>();
  try {
    if (options.schemas) for (const [k, v] of await readCrmSchemaDir(options.schemas)) schemas.set(k, v);
    for (const spec of options.schema) {
      const match = /^([a-z]+)\/([A-Za-z_]+)=(.+)$/.exec(spec);
      if (!match) {
        console.error(`--schema ${spec}: expected <crm>/<object>=<file>, e.g. hubspot/contact=contact-properties.json`);
        return 2;
      }
      schemas.set(schemaKey(match[1]!, match[2]!), await readCrmSchemaFile(match[3]!));
    }
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const required = new Map<string, string[]>();
  for (const spec of options.required) {
    const match = /^([a-z]+)\/([A-Za-z_]+)=([A-Za-z0-9_]+(?:,[A-Za-z0-9_]+)*)$/.exec(spec);
    if (!match) {
      console.error(`--required ${spec}: expected <crm>/<object>=<property>[,...], e.g. hubspot/company=founded_year`);
      return 2;
    }
    const key = `${match[1]!}/${match[2]!}`;
    required.set(key, [...(required.get(key) ?? []), ...match[3]!.split(',')]);
  }
  const { mappings, problems } = await loadMappingDir(dir);
  if (required.size > 0) {
    const { unfilledRequired } = await import('../mapping/required-check.js');
    for (const w of unfilledRequired(mappings, required)) console.error(`warning: ${w.file}: ${w.message}`);
  }
  const { loadJobChangeActions } = await import('../mapping/job-change-actions.js');
  problems.push(...(await loadJobChangeActions(dir)).problems);
  if (options.live) {
    try {
      problems.push(...(await liveSchemas(mappings, schemas)));
    } catch (error) {
      console.error((error as Error).message);
      return 2;
    }
  }
  problems.push(...validateMappings(mappings, schemas));
  const checked = mappings.filter((m) => schemas.has(schemaKey(m.document.crm, m.document.object))).length;
  if (problems.length) {
    console.error(formatProblems(problems));
    console.error(`\n${problems.length} problem${problems.length === 1 ? '' : 's'} in ${dir}`);
    return 1;
  }
  console.log(
    `${mappings.length} mapping${mappings.length === 1 ? '' : 's'} in ${dir} are valid (${checked} checked ` +
      'against a CRM schema)',
  );
  return 0;
}

interface PreviewOptions {
  mapping: string;
  partnerJson: string;
  crmJson?: string;
  lastWrittenJson?: string;
  schema?: string;
}

async function preview(options: PreviewOptions): Promise<number> {
  const { previewMapping, formatPlanTable } = await import('../mapping/preview.js');
  const { readCrmSchemaFile } = await import('./crm-schema-file.js');
  try {
    const schema = options.schema ? await readCrmSchemaFile(options.schema) : undefined;
    const result = await previewMapping({
      mappingFile: options.mapping,
      partnerFile: options.partnerJson,
      ...(options.crmJson ? { crmFile: options.crmJson } : {}),
      ...(options.lastWrittenJson ? { lastWrittenFile: options.lastWrittenJson } : {}),
      ...(schema ? { schema } : {}),
    });
    console.log(formatPlanTable(result));
    return 0;
  } catch (error) {
    console.error((error as Error).message);
    return 1;
  }
}

export function registerMappingCommands(parent: Command): void {
  const mappings = parent.command('mappings').description('check, preview and document the field mappings');

  mappings
    .command('check')
    .description('report every problem in every mapping file; exit status 1 when there is any')
    .argument('[dir]', 'directory of mapping files', 'mappings')
    .option(
      '--schemas <dir>',
      'CRM schemas as <dir>/<crm>/<object>.json (property lists, HubSpot properties or Salesforce describe)',
    )
    .option('--schema <crm/object=file>', 'one CRM schema file for one object; repeatable', collect, [])
    .option('--sandbox', "also check against the CRM sandboxes' standard properties")
    .option('--live', "also check against the configured CRMs' own schemas, read over their APIs")
    .option(
      '--required <crm/object=property,...>',
      "properties the CRM portal requires (HubSpot's API does not list them); warns for each a mapping does " +
        'not fill; repeatable',
      collect,
      [],
    )
    .action(async (dir: string, options: CheckOptions) => {
      process.exitCode = await check(dir, options);
    });

  mappings
    .command('preview')
    .description('show what a mapping would write to one CRM record, and why')
    .requiredOption('--mapping <file>', 'mapping file')
    .requiredOption('--partner-json <file>', 'partner person or company record (JSON)')
    .option(
      '--crm-json <file>',
      'the CRM record as it is now (JSON: {"properties": {...}} or property names to values)',
    )
    .option('--last-written-json <file>', 'the values crm-enrich last wrote (JSON property names to values)')
    .option('--schema <file>', "the CRM object's schema, to format values per property type")
    .action(async (options: PreviewOptions) => {
      process.exitCode = await preview(options);
    });

  mappings
    .command('schema')
    .description('write the JSON Schema of mapping files (for editor completion)')
    .option('--out <file>', 'where to write it', 'mappings/schema.json')
    .action(async (options: { out: string }) => {
      const { writeFile } = await import('node:fs/promises');
      const { mappingJsonSchema } = await import('../mapping/format.js');
      await writeFile(options.out, mappingJsonSchema());
      console.log(`wrote ${options.out}`);
    });
}
