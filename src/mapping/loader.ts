/**
 * Loads every mapping file in a directory and validates them together, collecting every problem in
 * every file. Start-up uses `loadMappings`, which refuses invalid mappings with the same report.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { CrmProperty } from '../core/connector.js';
import { checkAgainstCrm } from './crm-check.js';
import type { MappingDocument } from './format.js';
import { JOB_CHANGE_ACTIONS_FILE } from './job-change-actions.js';
import { parseMappingDocument } from './parse.js';
import { MappingError, type MappingProblem } from './problems.js';

export interface LoadedMapping {
  file: string;
  document: MappingDocument;
}

export interface LoadResult {
  mappings: LoadedMapping[];
  problems: MappingProblem[];
}

/** CRM schemas by `crm/object`, object in lower case (`hubspot/contact`, `salesforce/lead`). */
export type CrmSchemas = ReadonlyMap<string, readonly CrmProperty[]>;

export function schemaKey(crm: string, object: string): string {
  return `${crm}/${object}`.toLowerCase();
}

async function yamlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  // The job-change actions file lives beside the mappings but is read by its own module.
  const actionsFile = join(dir, JOB_CHANGE_ACTIONS_FILE);
  return entries
    .filter((e) => e.isFile() && /\.ya?ml$/i.test(e.name) && join(e.parentPath, e.name) !== actionsFile)
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

export async function loadMappingDir(dir: string): Promise<LoadResult> {
  const mappings: LoadedMapping[] = [];
  const problems: MappingProblem[] = [];
  let files: string[];
  try {
    files = await yamlFiles(dir);
  } catch (error) {
    return {
      mappings,
      problems: [
        { file: dir, path: [], code: 'yaml_syntax', message: `cannot read the directory: ${(error as Error).message}` },
      ],
    };
  }
  if (files.length === 0)
    problems.push({ file: dir, path: [], code: 'invalid_value', message: 'no mapping files (*.yaml) found' });
  for (const path of files) {
    const file = relative(process.cwd(), path) || path;
    const parsed = parseMappingDocument(await readFile(path, 'utf8'), file);
    problems.push(...parsed.problems);
    if (parsed.document) mappings.push({ file, document: parsed.document });
  }
  return { mappings, problems };
}

/** Checks across files (one mapping per CRM object) and, where a schema is given, against the CRM. */
export function validateMappings(mappings: readonly LoadedMapping[], schemas?: CrmSchemas): MappingProblem[] {
  const problems: MappingProblem[] = [];
  const owners = new Map<string, string>();
  for (const { file, document } of mappings) {
    const key = schemaKey(document.crm, document.object);
    const owner = owners.get(key);
    if (owner)
      problems.push({
        file,
        path: ['object'],
        code: 'duplicate_mapping',
        message: `${key} is already mapped in ${owner}; keep one file per CRM object`,
      });
    else owners.set(key, file);
    const schema = schemas?.get(key);
    if (schema) problems.push(...checkAgainstCrm(document, schema, file));
  }
  return problems;
}

/** For start-up: every mapping in `dir`, or a MappingError listing every problem. */
export async function loadMappings(dir: string, schemas?: CrmSchemas): Promise<LoadedMapping[]> {
  const { mappings, problems } = await loadMappingDir(dir);
  problems.push(...validateMappings(mappings, schemas));
  if (problems.length) throw new MappingError(problems);
  return mappings;
}
