/**
 * Reads a CSV file record by record, each with the line it starts on, in bounded memory. A record that
 * cannot be read is given back with its raw text and why, and reading goes on at the next line.
 *
 * csv-parse reads the fields, but its stream cannot resume after a quote error: an unbalanced quote
 * swallows every line after it into one bad record. So lines are first gathered into records here by
 * counting quotes (a record ends where its quotes balance, as RFC 4180's doubled quotes keep the count
 * even), and each record's text is handed to csv-parse alone. A quote left open for MAX_RECORD_LINES
 * lines, to the end of the file, or in text csv-parse refuses, makes its first line a bad record and
 * the lines after it are read again.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse/sync';

export type CsvRecord = { line: number; fields: string[] } | { line: number; raw: string; problem: string };

/** A quoted field longer than this many lines is taken for an unbalanced quote. */
export const MAX_RECORD_LINES = 50;
/** Nor is a record longer than this many characters read as one. */
const MAX_RECORD_CHARS = 1_000_000;

export const DELIMITERS = [',', ';', '\t'] as const;
export type Delimiter = (typeof DELIMITERS)[number];

interface Line {
  line: number;
  text: string;
}

function quotesIn(text: string): number {
  let count = 0;
  for (let i = text.indexOf('"'); i !== -1; i = text.indexOf('"', i + 1)) count++;
  return count;
}

/**
 * The delimiter a header line uses: a comma unless the header has none and has semicolons (spreadsheets
 * in locales with a decimal comma export those) or tabs.
 */
export function delimiterOf(header: string): Delimiter {
  if (header.includes(',')) return ',';
  if (header.includes(';')) return ';';
  if (header.includes('\t')) return '\t';
  return ',';
}

const PROBLEMS: Record<string, string> = {
  CSV_INVALID_CLOSING_QUOTE: 'a quote inside a quoted field is not doubled',
  CSV_QUOTE_NOT_CLOSED: 'unbalanced quotes',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'text after a closing quote',
  INVALID_OPENING_QUOTE: 'a quote inside an unquoted field',
};

function fieldsOf(text: string, delimiter: Delimiter): string[] | { problem: string } {
  try {
    const records: string[][] = parse(text, { delimiter, relax_column_count: true, record_delimiter: '\n' });
    return records[0] ?? [''];
  } catch (error) {
    const code = error instanceof CsvError ? error.code : '';
    return { problem: PROBLEMS[code] ?? 'the line cannot be read as CSV' };
  }
}

/**
 * Every record of `input`, in order; empty lines are left out. The first record is the header. The
 * delimiter is read from the header line (see delimiterOf).
 */
export async function* csvRecords(input: Readable): AsyncGenerator<CsvRecord & { delimiter: Delimiter }> {
  const lines = createInterface({ input, crlfDelay: Infinity })[Symbol.asyncIterator]();
  let number = 0;
  let delimiter: Delimiter | undefined;
  const again: Line[] = [];
  const next = async (): Promise<Line | undefined> => {
    const repeated = again.shift();
    if (repeated) return repeated;
    const read = await lines.next();
    if (read.done) return undefined;
    number++;
    return { line: number, text: number === 1 ? read.value.replace(/^\uFEFF/, '') : read.value };
  };

  let group: Line[] = [];
  let chars = 0;
  let open = false;
  for (;;) {
    const line = await next();
    if (!line && group.length === 0) return;
    if (line) {
      if (group.length === 0 && line.text === '') continue;
      delimiter ??= delimiterOf(line.text);
      group.push(line);
      chars += line.text.length;
      if (quotesIn(line.text) % 2 === 1) open = !open;
      if (open && group.length < MAX_RECORD_LINES && chars < MAX_RECORD_CHARS) continue;
    }
    const first = group[0]!;
    const fields = open ? { problem: 'unbalanced quotes' } : fieldsOf(group.map((l) => l.text).join('\n'), delimiter!);
    if (Array.isArray(fields)) {
      yield { line: first.line, fields, delimiter: delimiter! };
    } else {
      // A record over several lines that csv-parse refuses began with a quote that never closed.
      const problem = group.length > 1 ? 'unbalanced quotes' : fields.problem;
      yield { line: first.line, raw: first.text, problem, delimiter: delimiter! };
      again.unshift(...group.slice(1));
    }
    group = [];
    chars = 0;
    open = false;
  }
}
