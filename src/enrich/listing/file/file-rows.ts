/**
 * A file's rows as file enrichment reads them, a chunk at a time: the header read into columns, and
 * each row's own cells with either the match keys and market it is looked up by, or why it is invalid
 * (a line that cannot be read as CSV, the wrong number of fields, no usable match key).
 */
import type { Readable } from 'node:stream';
import type { CompiledMapping } from '../../../mapping/compile.js';
import type { Market } from '../../../partner/schemas.js';
import type { LookupKey } from '../../partner-lookups.js';
import { csvRecords } from './csv-records.js';
import { FileColumnsError, fileColumns, rowValues, type FileColumns } from './file-columns.js';

export interface FileRow {
  /** The line of the file the row starts on (the header is line 1). */
  line: number;
  /** The row's own cells, as many as the header has columns. */
  cells: string[];
  /** Why the row cannot be looked up; absent for a row that can. */
  invalid?: string;
  keys: LookupKey[];
  market: Market;
  /** The same for every row with the same keys and market: a file's duplicates share it. */
  identity: string;
}

export interface FileRows {
  header: string[];
  columns: FileColumns;
  chunks: AsyncGenerator<FileRow[]>;
}

/**
 * The row's cells fitted to the header: missing ones empty, and what lies beyond the last column kept
 * in the last, joined as it was written, so an invalid row loses nothing.
 */
function fitted(fields: string[], width: number, delimiter: string): string[] {
  if (fields.length <= width) return [...fields, ...Array<string>(width - fields.length).fill('')];
  return [...fields.slice(0, width - 1), fields.slice(width - 1).join(delimiter)];
}

/** What the mapping's match keys are, for a row that has none of them. */
function keyHint(mapping: CompiledMapping): string {
  return [...new Set(mapping.document.match.map((m) => m.property))].join(', ');
}

/**
 * Reads the header, then gives the rows in chunks of `chunkSize`. Throws FileColumnsError when the
 * file is empty, its header cannot be read, or no column holds a match key.
 */
export async function fileRows(
  input: Readable,
  mapping: CompiledMapping,
  map: Map<string, string>,
  chunkSize: number,
): Promise<FileRows> {
  const records = csvRecords(input);
  const first = await records.next();
  if (first.done) throw new FileColumnsError('the file is empty: it has no header line', 'file');
  if (!('fields' in first.value))
    throw new FileColumnsError(`the header (line 1) cannot be read: ${first.value.problem}`, 'file');
  const header = first.value.fields.map((h) => h.trim());
  const columns = fileColumns(header, mapping, map);
  const width = header.length;

  async function* chunks(): AsyncGenerator<FileRow[]> {
    let chunk: FileRow[] = [];
    for await (const record of records) {
      const row: FileRow = { line: record.line, cells: [], keys: [], market: mapping.market({}), identity: '' };
      if (!('fields' in record)) {
        row.cells = fitted([record.raw], width, record.delimiter);
        row.invalid = `line ${record.line}: ${record.problem}`;
      } else if (record.fields.length !== width) {
        row.cells = fitted(record.fields, width, record.delimiter);
        row.invalid = `line ${record.line}: ${record.fields.length} fields where the header has ${width}`;
      } else {
        row.cells = record.fields;
        const values = rowValues(columns, record.fields);
        row.keys = mapping.matchKeys(values).map((k) => ({ by: k.by, value: k.value }));
        row.market = mapping.market(values);
        if (row.keys.length === 0) row.invalid = `line ${record.line}: no usable match key (${keyHint(mapping)})`;
        else row.identity = `${row.market}|${row.keys.map((k) => `${k.by}:${k.value}`).join('|')}`;
      }
      chunk.push(row);
      if (chunk.length >= chunkSize) {
        yield chunk;
        chunk = [];
      }
    }
    if (chunk.length) yield chunk;
  }
  return { header, columns, chunks: chunks() };
}
