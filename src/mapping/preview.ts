/**
 * `mappings preview`: runs one mapping on a partner record and a CRM record and shows, for every
 * property, what would be written and why.
 */
import { AppError } from '../core/errors.js';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { CrmProperty } from '../core/connector.js';
import { Company, Person } from '../partner/schemas.js';
import { compileMapping } from './compile.js';
import { parseMappingDocument } from './parse.js';
import { type Plan } from './planner.js';
import { planValues } from './plan-values.js';
import { MappingError } from './problems.js';

export class PreviewInputError extends AppError {
  constructor(message: string) {
    super('preview_input_invalid', message, 'permanent');
  }
}

const CrmValuesJson = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));

async function readJson(file: string, what: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new PreviewInputError(`${what} ${file} is not readable JSON: ${(error as Error).message}`);
  }
}

/** A CRM record as `{properties: {...}}` (HubSpot), a flat object (Salesforce) or nothing. */
function crmValues(json: unknown, file: string): Record<string, string | null> {
  const inner = json && typeof json === 'object' && 'properties' in json ? json.properties : json;
  const parsed = CrmValuesJson.safeParse(inner);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new PreviewInputError(
      `${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}; expected property names to values`,
    );
  }
  return Object.fromEntries(Object.entries(parsed.data).map(([k, v]) => [k, v === null ? null : String(v)]));
}

export interface PreviewInput {
  mappingFile: string;
  partnerFile: string;
  crmFile?: string;
  lastWrittenFile?: string;
  schema?: readonly CrmProperty[];
  now?: Date;
}

export async function previewMapping(input: PreviewInput): Promise<Plan> {
  const text = await readFile(input.mappingFile, 'utf8').catch((error: Error) => {
    throw new PreviewInputError(`cannot read mapping ${input.mappingFile}: ${error.message}`);
  });
  const parsed = parseMappingDocument(text, input.mappingFile);
  if (!parsed.document || parsed.problems.length) throw new MappingError(parsed.problems);
  const mapping = compileMapping(parsed.document, input.schema, input.mappingFile);

  const partnerJson = await readJson(input.partnerFile, 'partner record');
  const partner = (mapping.source === 'person' ? Person : Company).safeParse(partnerJson);
  if (!partner.success) {
    const issue = partner.error.issues[0]!;
    throw new PreviewInputError(
      `${input.partnerFile}: ${issue.path.join('.') || '(root)'}: ${issue.message}; expected a partner ` +
        `${mapping.source} record`,
    );
  }
  const current = input.crmFile ? crmValues(await readJson(input.crmFile, 'CRM record'), input.crmFile) : {};
  const lastWritten = input.lastWrittenFile
    ? crmValues(await readJson(input.lastWrittenFile, 'last-written values'), input.lastWrittenFile)
    : {};
  return planValues(mapping, current, partner.data, lastWritten, input.now ?? new Date());
}

const clip = (text: string, width: number) => (text.length > width ? `${text.slice(0, width - 1)}…` : text);

export function formatPlanTable(result: Plan): string {
  const header = ['property', 'current', 'new', 'rule', 'outcome'];
  const rows = result.decisions.map((d) => [
    d.property,
    clip(d.current ?? '', 40),
    clip(d.next ?? '', 40),
    d.rule,
    d.outcome,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const count = Object.keys(result.writes).length;
  return [
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
    count ? `${count} properties to write` : 'nothing to write',
  ].join('\n');
}
