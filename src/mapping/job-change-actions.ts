/**
 * The job-change actions file, `job-changes.yaml` beside the mapping files: per connection, which
 * actions a detected move sets off, each on or off. Read like a mapping file: YAML, a zod schema,
 * and every problem reported at once with its file and path; never throws on bad input.
 */
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { ProblemList, yamlErrorMessage, type MappingProblem } from './problems.js';
import { ListSegment, OlderThanDays, PropertySegment, SweepSegment, WhereSegment } from './sweep-segment.js';

/** The file's name inside the mappings directory; the mapping loader leaves it to this module. */
export const JOB_CHANGE_ACTIONS_FILE = 'job-changes.yaml';

export const ConnectionActions = z
  .strictObject({
    properties: z
      .boolean()
      .default(true)
      .describe(
        'Write when the person moved, the previous employer and the previous title on the record (HubSpot ' +
          'crm_enrich_job_change_at, crm_enrich_previous_company, crm_enrich_previous_title; ' +
          'Salesforce CE_Job_Change_At__c, CE_Previous_Company__c, CE_Previous_Title__c).',
      ),
    task: z
      .boolean()
      .default(true)
      .describe(
        'A task for the record\'s owner, "<name> moved from <old> to <new> as <title>", linked with the record ' +
          '(HubSpot: a task associated with the contact; Salesforce: a Task with WhoId the Contact or Lead).',
      ),
    employer: z
      .boolean()
      .default(true)
      .describe(
        'The record follows the person to the new employer, found by domain or created once per domain. HubSpot: ' +
          'the new company becomes the primary one and the old company stays associated under the "Former employee" ' +
          "label (which `crm-enrich mappings provision` creates). Salesforce: the Contact's AccountId becomes the " +
          'new Account and the old one is kept as an inactive AccountContactRelation where the org relates contacts ' +
          'to multiple accounts, else in CE_Previous_Account__c.',
      ),
    newContact: z
      .boolean()
      .default(false)
      .describe(
        "A new contact at the new employer when the partner knows the person's work e-mail there and no record " +
          'of the CRM has it (searched first: never a duplicate). Off by default.',
      ),
  })
  .describe(
    'The actions of one connection (hubspot or salesforce), each on or off; a connector without job-change ' +
      'actions only records its moves.',
  );
export type ConnectionActions = z.infer<typeof ConnectionActions>;

export const ScheduledSweep = z
  .strictObject({
    object: z.string().min(1).describe('The person object to sweep: contact (HubSpot), Contact or Lead (Salesforce).'),
    segment: SweepSegment,
    olderThanDays: OlderThanDays.optional().describe(
      'Only people whose partner data is at least this many days old (default JOB_CHANGE_MIN_AGE_DAYS; 0: everyone).',
    ),
  })
  .describe('One segment swept for job changes at every JOB_CHANGE_CRON tick.');
export type ScheduledSweep = z.output<typeof ScheduledSweep>;

export const JobChangeActionsDocument = z
  .strictObject({
    connections: z.record(z.string().min(1), ConnectionActions).describe('By connection name.'),
    sweep: z
      .record(z.string().min(1), z.array(ScheduledSweep).min(1))
      .default({})
      .describe('By connection name, the segments JOB_CHANGE_CRON sweeps; none by default.'),
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
  const yamlDoc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  for (const error of yamlDoc.errors) problems.add([], 'yaml_syntax', yamlErrorMessage(error));
  if (problems.items.length) return { problems: problems.items };
  const raw: unknown = yamlDoc.toJS({ maxAliasCount: 0 });
  const parsed = JobChangeActionsDocument.safeParse(raw ?? {});
  if (parsed.success) {
    crmMismatches(problems, raw);
    return problems.items.length ? { problems: problems.items } : { document: parsed.data, problems: [] };
  }
  for (const issue of parsed.error.issues) report(problems, issue);
  crmMismatches(problems, raw);
  return { problems: problems.items };
}

/** The keys allowed where an unknown key was found, for the "did you mean" hint. */
function allowedKeys(path: (string | number)[]): string[] {
  if (path.length === 0) return Object.keys(JobChangeActionsDocument.shape);
  if (path[0] === 'connections') return Object.keys(ConnectionActions.shape);
  if (path.length === 3) return Object.keys(ScheduledSweep.shape);
  const segment = [PropertySegment, WhereSegment, ListSegment];
  return segment.flatMap((s) => Object.keys(s.shape));
}

type Issue = z.core.$ZodIssue;

function report(problems: ProblemList, issue: Issue, prefix: (string | number)[] = []): void {
  const path = [...prefix, ...issue.path.map((k) => (typeof k === 'number' ? k : String(k)))];
  if (issue.code === 'unrecognized_keys') {
    problems.addUnknownKeys(path, issue.keys, allowedKeys(path));
  } else if (issue.code === 'invalid_union' && path.at(-1) === 'segment') {
    // The segment's kind is told by its keys: report what is wrong with that kind, not with all three.
    const branch = issue.errors.find((errors) => !errors.some((e) => e.code === 'unrecognized_keys' && !e.path.length));
    if (branch) for (const inner of branch) report(problems, inner, path);
    else problems.add(path, 'invalid_value', `expected ${SweepSegment.description}`);
  } else if (issue.code === 'invalid_union' && path.at(-1) === 'value') {
    problems.add(path, 'invalid_value', 'expected a value, or a list of up to 100 values with operator IN');
  } else {
    problems.add(path, 'invalid_value', issue.message);
  }
}

/** The person objects each CRM's sweep may visit, and the segment kinds only one CRM has. */
const SWEEPABLE: Record<string, { objects: string[]; refused: 'listId' | 'where' }> = {
  hubspot: { objects: ['contact'], refused: 'where' },
  salesforce: { objects: ['Contact', 'Lead'], refused: 'listId' },
};

/** Scheduled sweeps that name a connection, an object or a kind of segment its CRM does not have. */
function crmMismatches(problems: ProblemList, raw: unknown): void {
  const sweep = (raw as { sweep?: unknown } | null)?.sweep;
  if (!sweep || typeof sweep !== 'object') return;
  for (const [connection, entries] of Object.entries(sweep)) {
    const crm = SWEEPABLE[connection];
    if (!crm) {
      problems.add(['sweep', connection], 'invalid_value', `no connection "${connection}"; use hubspot or salesforce`);
      continue;
    }
    if (!Array.isArray(entries)) continue;
    entries.forEach((entry: unknown, i) => {
      const { object, segment } = (entry ?? {}) as { object?: unknown; segment?: unknown };
      if (typeof object === 'string' && !crm.objects.some((o) => o.toLowerCase() === object.toLowerCase()))
        problems.add(
          ['sweep', connection, i, 'object'],
          'invalid_value',
          `${connection} sweeps ${crm.objects.join(' or ')}, not ${object}`,
        );
      if (segment && typeof segment === 'object' && crm.refused in segment)
        problems.add(
          ['sweep', connection, i, 'segment', crm.refused],
          'invalid_value',
          crm.refused === 'where'
            ? 'a SOQL condition is for Salesforce; give {property, value} or {listId}'
            : "lists are HubSpot's; give {property, value} or {where}",
        );
    });
  }
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
