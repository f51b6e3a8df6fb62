/** What the lane steps' tests share: jobs as the queue hands them, and the HubSpot contact mapping compiled. */
import { readFile } from 'node:fs/promises';
import type { EnrichJob, EnrichJobData } from '../../../src/enrich/jobs.js';
import { compileMapping, type CompiledMapping } from '../../../src/mapping/compile.js';
import { parseMappingDocument } from '../../../src/mapping/parse.js';

export function job(id: string, recordId: string, data: Partial<EnrichJobData> = {}, interactive = false): EnrichJob {
  return {
    id,
    priority: interactive ? 'interactive' : 'bulk',
    retryCount: 0,
    data: { connection: 'hubspot', objectType: 'contact', recordId, reason: 'backfill', ...data },
  };
}

/** The jobs of a claimed batch, by record, as the lane hands them to its steps. */
export function byRecord(jobs: EnrichJob[]): Map<string, EnrichJob[]> {
  const out = new Map<string, EnrichJob[]>();
  for (const j of jobs) out.set(j.data.recordId, [...(out.get(j.data.recordId) ?? []), j]);
  return out;
}

export async function contactMapping(): Promise<CompiledMapping> {
  const file = 'mappings/hubspot/contact.yaml';
  const parsed = parseMappingDocument(await readFile(file, 'utf8'), file);
  if (!parsed.document) throw new Error(`${file} does not parse`);
  return compileMapping(parsed.document);
}
