/**
 * Enrichment of a CSV file, in two passes over it and in bounded memory (a chunk of rows at a time):
 * the preview counts, spending nothing, the credits the run may spend; the run looks each distinct row
 * up once (a duplicate is answered by the lookup cache its first answer went into) and writes every
 * row, in order, with the partner's fields under the mapping's property names and its status.
 * Lookups go through the engine's partner lookups as bulk work: the cache and the daily budget apply.
 */
import type { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { AppError } from '../../../core/errors.js';
import type { CrmConnector } from '../../../core/connector.js';
import type { CompiledMapping } from '../../../mapping/compile.js';
import type { PartnerLookups } from '../../partner-lookups.js';
import { fileRows, type FileRow } from './file-rows.js';
import { RowsInCrm } from './rows-in-crm.js';
import { rowsDone } from './rows-done.js';

export const ROW_STATUSES = ['enriched', 'no_match', 'in_crm', 'invalid', 'skipped'] as const;
export type RowStatus = (typeof ROW_STATUSES)[number];
export const STATUS_COLUMNS = ['crm_enrich_status', 'crm_enrich_record_id', 'crm_enrich_reason'] as const;

/** Rows read and looked up together: one CRM search and a round of lookups each. */
const CHUNK_ROWS = 100;
/** Lookups of one chunk in flight at once; the shared partner limiter paces them further. */
const LOOKUPS_AT_ONCE = 8;

export interface FileEnrichmentDeps {
  connector: CrmConnector;
  objectType: string;
  mapping: CompiledMapping;
  lookups: Pick<PartnerLookups, 'find' | 'creditsFor'>;
}

export interface FileRequest {
  /** header -> match key word, for columns whose header says nothing usable. */
  map: Map<string, string>;
  /** Look up rows the CRM holds too. */
  relookup: boolean;
}

export interface FileCounts {
  rows: number;
  invalid: number;
  inCrm: number;
}

export interface FilePreview extends FileCounts {
  /** Distinct rows that would be looked up: valid, not in the CRM (unless relookup), duplicates once. */
  distinct: number;
  /** The most credits the run would spend: the lookups of those rows the cache cannot answer. */
  credits: number;
  /** The first MAX_PROBLEMS invalid rows: line and why (never a cell's value). */
  problems: { line: number; reason: string }[];
}

export const MAX_PROBLEMS = 100;

export interface FileSummary extends FileCounts {
  enriched: number;
  noMatch: number;
  skipped: number;
}

export type Progress<T> = (counts: T) => void;

/** The columns the partner's fields are written under: the mapping's properties, apart from the file's own. */
export function partnerColumns(
  mapping: CompiledMapping,
  header: readonly string[],
): { property: string; column: string }[] {
  return Object.keys(mapping.rules).map((property) => ({
    property,
    column: header.includes(property) ? `${property}_partner` : property,
  }));
}

async function inPool<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}

/** Counts, spending no credit, what a run of the file would look up and at most spend. */
export async function previewFile(
  deps: FileEnrichmentDeps,
  input: Readable,
  request: FileRequest,
  progress?: Progress<FilePreview>,
): Promise<{ preview: FilePreview; inCrm: RowsInCrm }> {
  const { chunks } = await fileRows(input, deps.mapping, request.map, CHUNK_ROWS);
  const inCrm = new RowsInCrm(deps.connector, deps.objectType, deps.mapping);
  const counted = new Set<string>();
  const preview: FilePreview = { rows: 0, invalid: 0, inCrm: 0, distinct: 0, credits: 0, problems: [] };
  for await (const chunk of chunks) {
    await inCrm.check(chunk);
    for (const row of chunk) {
      preview.rows++;
      if (row.invalid) {
        preview.invalid++;
        if (preview.problems.length < MAX_PROBLEMS) preview.problems.push({ line: row.line, reason: row.invalid });
        continue;
      }
      const held = inCrm.recordOf(row) !== null;
      if (held) preview.inCrm++;
      if ((held && !request.relookup) || counted.has(row.identity)) continue;
      counted.add(row.identity);
      preview.distinct++;
      preview.credits += await deps.lookups.creditsFor(deps.mapping.source, row.keys, row.market);
    }
    progress?.({ ...preview, problems: [...preview.problems] });
  }
  return { preview, inCrm };
}

interface RowResult {
  status: RowStatus;
  recordId: string | null;
  reason: string;
  values: Record<string, string>;
}

async function resultOf(
  deps: FileEnrichmentDeps,
  row: FileRow,
  recordId: string | null,
  relookup: boolean,
): Promise<RowResult> {
  if (row.invalid) return { status: 'invalid', recordId: null, reason: row.invalid, values: {} };
  if (recordId && !relookup)
    return {
      status: 'in_crm',
      recordId,
      reason: 'the CRM holds this record; not looked up (--relookup looks it up anyway)',
      values: {},
    };
  try {
    const hit = await deps.lookups.find(deps.mapping.source, row.keys, row.market, 'bulk');
    if (!hit)
      return {
        status: 'no_match',
        recordId,
        reason: `the partner has no record for ${row.keys.map((k) => k.by).join(', ')}`,
        values: {},
      };
    return {
      status: 'enriched',
      recordId,
      reason: `matched by ${hit.key.by}${hit.fromCache ? ' (from the lookup cache)' : ''}`,
      values: deps.mapping.map(hit.data),
    };
  } catch (error) {
    // The partner or the budget said no: the row is kept with why, and a later run of the file looks it up.
    const code = error instanceof AppError ? error.code : 'lookup_failed';
    const message = error instanceof AppError ? error.message : 'the partner lookup failed';
    return { status: 'skipped', recordId, reason: `${code}: ${message}`, values: {} };
  }
}

export interface FileRun {
  /** The preview's, so rows are not searched for in the CRM twice (a fresh one on a resumed run). */
  inCrm: RowsInCrm;
  progress?: Progress<FileSummary>;
  /** Aborting it ends the run after the chunk in hand. */
  signal?: AbortSignal;
  /** The partial result of an earlier run of the same file: its rows are copied, not looked up again. */
  done?: Readable;
}

/** Counts a written row by its status. */
function tally(summary: FileSummary, status: string): void {
  summary.rows++;
  if (status === 'invalid') summary.invalid++;
  else if (status === 'in_crm') summary.inCrm++;
  else if (status === 'enriched') summary.enriched++;
  else if (status === 'no_match') summary.noMatch++;
  else summary.skipped++;
}

/**
 * Enriches the file into `output` (UTF-8 with a byte-order mark, CRLF line ends, fields quoted where
 * they need it: what spreadsheet programs open as it is), after the rows `run.done` holds.
 */
export async function enrichFile(
  deps: FileEnrichmentDeps,
  input: Readable,
  output: Writable,
  request: FileRequest,
  { inCrm, progress, signal, done }: FileRun,
): Promise<FileSummary> {
  const { header, chunks } = await fileRows(input, deps.mapping, request.map, CHUNK_ROWS);
  const extra = partnerColumns(deps.mapping, header);
  // Excel reads a CSV file without a byte-order mark in the computer's legacy code page, which garbles
  // every name outside ASCII; with one, Excel, LibreOffice, Numbers and Google Sheets all read UTF-8.
  const writer = stringify({ bom: true, record_delimiter: 'windows' });
  writer.pipe(output);
  const write = async (cells: string[]) => {
    if (!writer.write(cells)) await new Promise((resolve) => writer.once('drain', resolve));
  };
  const columns = [...header, ...extra.map((e) => e.column), ...STATUS_COLUMNS];
  await write(columns);
  const summary: FileSummary = { rows: 0, invalid: 0, inCrm: 0, enriched: 0, noMatch: 0, skipped: 0 };
  if (done) {
    const statusAt = columns.length - STATUS_COLUMNS.length;
    for await (const cells of rowsDone(done, columns.length)) {
      tally(summary, cells[statusAt]!);
      await write(cells);
    }
    progress?.({ ...summary });
  }
  let toSkip = summary.rows;
  for await (const whole of chunks) {
    if (signal?.aborted) break;
    const chunk = toSkip > 0 ? whole.slice(Math.min(toSkip, whole.length)) : whole;
    toSkip -= whole.length - chunk.length;
    if (chunk.length === 0) continue;
    await inCrm.check(chunk);
    const results: RowResult[] = new Array<RowResult>(chunk.length);
    await inPool(
      chunk.map((row, i) => ({ row, i })),
      LOOKUPS_AT_ONCE,
      async ({ row, i }) => {
        results[i] = await resultOf(deps, row, inCrm.recordOf(row), request.relookup);
      },
    );
    for (const [i, row] of chunk.entries()) {
      const result = results[i]!;
      tally(summary, result.status);
      await write([
        ...row.cells,
        ...extra.map((e) => result.values[e.property] ?? ''),
        result.status,
        result.recordId ?? '',
        result.reason,
      ]);
    }
    progress?.({ ...summary });
  }
  writer.end();
  await finished(output);
  return summary;
}
