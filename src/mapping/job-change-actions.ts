/**
 * The job-change actions file, `job-changes.yaml` beside the mapping files: per connection, which
 * actions a detected move sets off, each on or off. Read like a mapping file: YAML, a zod schema,
 * and every problem reported at once with its file and path; never throws on bad input.
 */
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { closest } from './nearest.js';
import { ProblemList, type MappingProblem } from './problems.js';

/** The file's name inside the mappings directory; the mapping loader leaves it to this module. */
export const JOB_CHANGE_ACTIONS_FILE = 'job-changes.yaml';

export const ConnectionActions = z
  .strictObject({
    properties: z
      .boolean()
      .default(true)
      .describe(
        'Write when the person moved, the previous employer and the previous title on the record (HubSpot ' +
          'crm_enrich_job_change_at, crm_enrich_previous_company, crm_enrich_previous_title; Salesforce CE_Job_Change_At__c, ' +
          'CE_Previous_Company__c, CE_Previous_Title__c).',
      ),
    task: z
      .boolean()
      .default(true)
      .describe(
        'A task for the record\'s owner, "<name> moved from <old> to <new> as <title>", linked with the record ' +
          '(HubSpot: a task associated with the contact; Salesforce: a Task with WhoId the Contact or Lead).',
      ),
  })
  .describe(
    'The actions of one connection (hubspot or salesforce), each on or off; a connector without job-change actions only records its moves.',
  );
export type ConnectionActions = z.infer<typeof ConnectionActions>;

export const JobChangeActionsDocument = z
  .strictObject({
    connections: z.record(z.string().min(1), ConnectionActions).describe('By connection name.'),
  })
  .describe("What a detected job change sets off. The contact's e-mail is never overwritten by a job change.");
export type JobChangeActionsDocument = z.infer<typeof JobChangeActionsDocument>;

export interface LoadedJobChangeActions {
  /** Absent when the file is missing or invalid: moves are then only recorded. */
  document?: JobChangeActionsDocument;
  problems: MappingProblem[];
}

export function parseJobChangeActions(text: string, file: string): LoadedJobChangeActions {
  const problems = new ProblemList(file);
  const yamlDoc = parseDocument(text, { uniqueKeys: true });
  for (const error of yamlDoc.errors) problems.add([], 'yaml_syntax', error.message.split('\n')[0]!);
  if (problems.items.length) return { problems: problems.items };
  const raw: unknown = yamlDoc.toJS({ maxAliasCount: 0 });
  const parsed = JobChangeActionsDocument.safeParse(raw ?? {});
  if (parsed.success) return { document: parsed.data, problems: [] };
  for (const issue of parsed.error.issues) {
    const path = issue.path.map((k) => (typeof k === 'number' ? k : String(k)));
    if (issue.code === 'unrecognized_keys') {
      const allowed = path.length === 0 ? ['connections'] : Object.keys(ConnectionActions.shape);
      for (const key of issue.keys) {
        const hint = closest(key, allowed);
        problems.add(
          [...path, key],
          'unknown_key',
          `unknown key "${key}"${hint ? `; did you mean "${hint}"?` : `; allowed: ${allowed.join(', ')}`}`,
        );
      }
    } else {
      problems.add(path, 'invalid_value', issue.message);
    }
  }
  return { problems: problems.items };
}

/** Reads `<dir>/job-changes.yaml`; a directory without one has no actions and no problems. */
export async function loadJobChangeActions(dir: string): Promise<LoadedJobChangeActions> {
  const path = join(dir, JOB_CHANGE_ACTIONS_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { problems: [] };
    throw error;
  }
  return parseJobChangeActions(text, relative(process.cwd(), path) || path);
}
