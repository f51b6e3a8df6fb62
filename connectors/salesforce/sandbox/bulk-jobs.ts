/**
 * What the sandbox's Bulk API 2.0 jobs share, ingest and query alike: job ids (key prefix 750, as
 * Salesforce's job ids have), the CSV dialects a job may name (columnDelimiter, lineEnding), and
 * reading and writing CSV in them.
 */
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { RequestError } from './org-data.js';

/** The column delimiters a job may name, as Salesforce spells them, and the characters they stand for. */
export const COLUMN_DELIMITERS = {
  BACKQUOTE: '`',
  CARET: '^',
  COMMA: ',',
  PIPE: '|',
  SEMICOLON: ';',
  TAB: '\t',
} as const;
export type ColumnDelimiter = keyof typeof COLUMN_DELIMITERS;

export const LINE_ENDINGS = { LF: '\n', CRLF: '\r\n' } as const;
export type LineEnding = keyof typeof LINE_ENDINGS;

export interface CsvDialect {
  columnDelimiter: ColumnDelimiter;
  lineEnding: LineEnding;
}

export const isColumnDelimiter = (v: unknown): v is ColumnDelimiter =>
  typeof v === 'string' && Object.hasOwn(COLUMN_DELIMITERS, v);
export const isLineEnding = (v: unknown): v is LineEnding => typeof v === 'string' && Object.hasOwn(LINE_ENDINGS, v);

/** A new 18-character job id; `next` is the org's id counter (OrgData.newId). */
export function newJobId(next: (prefix: string) => string): string {
  return next('750');
}

/** A CSV upload: its header and its rows, each row a map of header to text. */
export interface CsvTable {
  header: string[];
  rows: Record<string, string>[];
}

/**
 * Reads CSV as the job's dialect says. A row of the wrong width, or a line ending the job did not name
 * (a CR left in the last column), is refused the way Salesforce refuses the upload: 400 with the reason.
 */
export function readCsv(text: string, dialect: CsvDialect): CsvTable {
  const ending = LINE_ENDINGS[dialect.lineEnding];
  if (dialect.lineEnding === 'LF' && /\r\n/.test(text.slice(0, 100_000)))
    throw new RequestError(
      400,
      'INVALIDBATCH',
      'InvalidBatch : The line ending of the CSV is CRLF; create the job with lineEnding CRLF or send LF.',
    );
  let records: string[][];
  try {
    records = parse(text, {
      delimiter: COLUMN_DELIMITERS[dialect.columnDelimiter],
      record_delimiter: ending,
      relax_column_count: false,
      skip_empty_lines: true,
      bom: true,
    });
  } catch (error) {
    throw new RequestError(400, 'INVALIDBATCH', `InvalidBatch : ${(error as Error).message}`);
  }
  const [header, ...body] = records;
  if (!header || header.length === 0 || header.every((h) => h.trim() === ''))
    throw new RequestError(400, 'INVALIDBATCH', 'InvalidBatch : The CSV has no header row naming the fields.');
  return { header, rows: body.map((cells) => Object.fromEntries(header.map((h, i) => [h, cells[i] ?? '']))) };
}

/** Writes rows as CSV in the job's dialect, header first, every value quoted as Salesforce's results are. */
export function writeCsv(header: string[], rows: Record<string, string>[], dialect: CsvDialect): string {
  return stringify(rows, {
    header: true,
    columns: header,
    quoted: true,
    quoted_empty: true,
    delimiter: COLUMN_DELIMITERS[dialect.columnDelimiter],
    record_delimiter: LINE_ENDINGS[dialect.lineEnding],
  });
}
