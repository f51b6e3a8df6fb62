/**
 * What the sandbox's Bulk API 2.0 jobs share, ingest and query alike: job ids (key prefix 750, as
 * Salesforce gives both kinds), the column delimiters and line endings a job may ask for, and CSV written
 * as Salesforce writes it (a header row, every value quoted, an empty field for null).
 */
import { stringify } from 'csv-stringify/sync';
import type { FieldValue, OrgData } from './org-data.js';

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

export const isColumnDelimiter = (value: unknown): value is ColumnDelimiter =>
  typeof value === 'string' && Object.hasOwn(COLUMN_DELIMITERS, value);

export const isLineEnding = (value: unknown): value is LineEnding =>
  typeof value === 'string' && Object.hasOwn(LINE_ENDINGS, value);

/** A new Bulk API job id, unique in the org (18 characters, 750...). */
export function bulkJobId(org: OrgData): string {
  return org.newId('750');
}

/** Rows as a CSV document with a header row, in the job's delimiter and line ending. */
export function toCsv(
  columns: readonly string[],
  rows: readonly (readonly FieldValue[])[],
  format: { columnDelimiter: ColumnDelimiter; lineEnding: LineEnding },
): string {
  return stringify([[...columns], ...rows.map((row) => row.map((v) => (v === null ? '' : String(v))))], {
    delimiter: COLUMN_DELIMITERS[format.columnDelimiter],
    record_delimiter: LINE_ENDINGS[format.lineEnding],
    quoted: true,
    quoted_empty: true,
  });
}
