/**
 * Large bulk writes through one Bulk API 2.0 ingest job (jsforce's bulk2 client) instead of one sObject
 * Collections call per 200 records: create the job, upload the rows as CSV, close it, poll its state with
 * a growing interval, then read its successful, failed and (if it stopped early) unprocessed rows. About
 * six API calls whatever the size, where 2,000 records cost ten collections calls; Salesforce recommends
 * it above about 2,000 records. The rows come back in no particular order, so each is matched to its
 * update by the Id column it was sent with.
 */
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { Connection } from 'jsforce';
import { CrmError, type RecordUpdate, type WriteResult } from '../../src/core/connector.js';
import type { Priority } from '../../src/core/limiter.js';
import { isRetryableRecordError } from './errors.js';
import { toId18 } from './ids.js';
import type { SalesforceSession } from './session.js';
import { IngestJobInfo } from './wire-schemas.js';
import { parseCrmAnswer } from '../../src/core/crm-answer.js';

/** How an ingest job is polled: the first wait, the longest, and when to give up on it. */
export interface IngestPolling {
  firstMs: number;
  maxMs: number;
  timeoutMs: number;
}

export const DEFAULT_INGEST_POLLING: IngestPolling = { firstMs: 500, maxMs: 10_000, timeoutMs: 10 * 60_000 };

/** Bulk API 2.0's value that empties a field in an upload; an empty cell leaves the field as it is. */
const NULL_VALUE = '#N/A';
const TERMINAL = new Set(['JobComplete', 'Failed', 'Aborted']);

/**
 * Writes `updates` (18-character ids, each once) through one ingest job; one result per update, in
 * order, as the collections writes give them: a failed row carries its Salesforce error, a row the job
 * never reached (the org's daily Bulk API record limit, an aborted job) is failed as retryable.
 */
export async function ingestUpdates(
  session: Pick<SalesforceSession, 'call'>,
  objectType: string,
  updates: RecordUpdate[],
  priority: Priority,
  polling: IngestPolling = DEFAULT_INGEST_POLLING,
): Promise<WriteResult[]> {
  const { call } = session;
  const ingest = (c: Connection, id: string) => c.bulk2.job('ingest', { id });
  const { id } = parseCrmAnswer(
    'salesforce',
    IngestJobInfo,
    await call('ingest.create', priority, (c) =>
      c.bulk2.createJob({ object: objectType, operation: 'update', contentType: 'CSV', lineEnding: 'LF' }).open(),
    ),
    'ingest.create',
  );
  try {
    await call('ingest.upload', priority, (c) => ingest(c, id).uploadData(toCsv(updates)));
    await call('ingest.close', priority, (c) => ingest(c, id).close());
  } catch (error) {
    // Nothing was processed: the job is let go rather than left open for a day.
    await call('ingest.abort', priority, (c) => ingest(c, id).abort()).catch(() => undefined);
    throw error;
  }
  const info = await waitForJob(session, id, priority, polling);
  const rows = async (operation: string, read: (c: Connection) => Promise<unknown>) => {
    const text = (await call(operation, priority, read)) ?? '';
    if (typeof text !== 'string')
      throw new CrmError(
        'salesforce',
        'invalid_response',
        `Salesforce ${operation} answered something other than CSV.`,
      );
    return fromCsv(text);
  };
  const successful = await rows('ingest.successfulResults', (c) => ingest(c, id).getSuccessfulResults(true));
  const failed = await rows('ingest.failedResults', (c) => ingest(c, id).getFailedResults(true));
  const unprocessed =
    successful.length + failed.length < updates.length
      ? await rows('ingest.unprocessedrecords', (c) => ingest(c, id).getUnprocessedRecords(true))
      : [];
  return matchResults(updates, { successful, failed, unprocessed }, info);
}

async function waitForJob(
  session: Pick<SalesforceSession, 'call'>,
  id: string,
  priority: Priority,
  polling: IngestPolling,
): Promise<IngestJobInfo> {
  const deadline = Date.now() + polling.timeoutMs;
  for (let wait = polling.firstMs; ; wait = Math.min(polling.maxMs, wait * 2)) {
    await new Promise((resolve) => setTimeout(resolve, wait));
    const info = parseCrmAnswer(
      'salesforce',
      IngestJobInfo,
      await session.call('ingest.poll', priority, (c) => c.bulk2.job('ingest', { id }).check()),
      'ingest.poll',
    );
    if (TERMINAL.has(info.state)) return info;
    if (Date.now() + wait > deadline)
      throw new CrmError(
        'salesforce',
        'unavailable',
        `Salesforce Bulk API 2.0 ingest job ${id} is still ${info.state} after ${polling.timeoutMs} ms; ` +
          'its records are tried again (writing the same values twice changes nothing).',
      );
  }
}

/** The rows as CSV: an Id column and one per property any update writes; '' clears a value (#N/A). */
function toCsv(updates: RecordUpdate[]): string {
  const columns = new Map<string, string>();
  for (const u of updates)
    for (const name of Object.keys(u.properties))
      if (!columns.has(name.toLowerCase())) columns.set(name.toLowerCase(), name);
  const names = [...columns.values()];
  const rows = updates.map((u) => {
    const byLower = new Map(Object.entries(u.properties).map(([k, v]) => [k.toLowerCase(), v]));
    return [u.id, ...names.map((n) => cell(byLower.get(n.toLowerCase())))];
  });
  return stringify([['Id', ...names], ...rows], { record_delimiter: '\n' });
}

function cell(value: string | undefined): string {
  if (value === undefined) return '';
  return value === '' ? NULL_VALUE : value;
}

function fromCsv(text: string): Record<string, string>[] {
  if (text.trim() === '') return [];
  return parse(text, { columns: true, skip_empty_lines: true, bom: true, relax_column_count: true });
}

/** `CODE:message:fields --`, as Bulk API 2.0 writes a failed row's error. */
function parseRowError(text: string): { code: string; message: string; fields?: string[] } {
  const m = /^([A-Z_]+):(.*?)(?::([\w, ]*) --)?$/s.exec(text.trim());
  if (!m) return { code: 'UNKNOWN', message: text || 'Salesforce did not save the record' };
  const fields = m[3] ? m[3].split(',').filter(Boolean) : undefined;
  return { code: m[1]!, message: m[2]!.replace(/ --$/, ''), ...(fields?.length ? { fields } : {}) };
}

function matchResults(
  updates: RecordUpdate[],
  rows: {
    successful: Record<string, string>[];
    failed: Record<string, string>[];
    unprocessed: Record<string, string>[];
  },
  info: IngestJobInfo,
): WriteResult[] {
  const byId = new Map<string, WriteResult>();
  const key = (row: Record<string, string>) => toId18(row.Id ?? row.sf__Id ?? '') ?? '';
  for (const row of rows.successful) byId.set(key(row), { id: '', ok: true });
  for (const row of rows.failed) {
    const error = parseRowError(row.sf__Error ?? '');
    byId.set(key(row), { id: '', ok: false, error: { ...error, retryable: isRetryableRecordError(error.code) } });
  }
  // A row the job never reached: the reason is the job's (the daily limit, a header Salesforce refused).
  const stopped = info.errorMessage ?? `the ingest job ended ${info.state} before reaching the record`;
  const refusedUpload = /^InvalidBatch/i.test(stopped);
  for (const row of rows.unprocessed)
    byId.set(key(row), {
      id: '',
      ok: false,
      error: { code: refusedUpload ? 'INVALID_BATCH' : 'UNPROCESSED', message: stopped, retryable: !refusedUpload },
    });
  return updates.map((u) => {
    const result = byId.get(u.id);
    if (result) return { ...result, id: u.id };
    return {
      id: u.id,
      ok: false,
      error: { code: 'NO_RESULT', message: 'Salesforce gave no result for the record', retryable: true },
    };
  });
}
