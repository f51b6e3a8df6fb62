/**
 * Whole-object reads through Salesforce's Bulk API 2.0 query jobs: one job runs the SOQL in the org, and
 * its results come back in sets of up to `pageSize` rows, each set one API call, joined by the
 * `Sforce-Locator` header. The cursor is the job id and the next set's locator, so a read resumes with the
 * same job, from another process too, while Salesforce keeps the job (7 days). Every request passes the
 * org's API budget at the caller's priority, as the REST calls do.
 *
 * Results are read here rather than through jsforce's `bulk2.query`, which gathers every set into memory
 * and, in 3.10.26, breaks on the second set (it pipes each into one stream that the first ends).
 */
import { HttpApi } from 'jsforce/lib/http-api.js';
import type { Connection } from 'jsforce';
import { z } from 'zod';
import { CrmError, type CrmRecord, type RecordPage } from '../../src/core/connector.js';
import type { Priority } from '../../src/core/limiter.js';
import { parseCrmAnswer } from '../../src/core/crm-answer.js';
import { logger } from '../../src/logger.js';
import type { SalesforceSession } from './session.js';
import { toRecord } from './record-wire.js';

const log = logger('connector.salesforce');

/** Rows per set of results, unless the caller asks otherwise. */
export const BULK_PAGE = 10_000;
/** Salesforce answers at most this many rows per set however many are asked. */
const MAX_BULK_PAGE = 100_000;

const JobInfo = z.looseObject({
  id: z.string().regex(/^750[a-zA-Z0-9]{12}([a-zA-Z0-9]{3})?$/, 'expected a Bulk API job id (750...)'),
  state: z.enum(['UploadComplete', 'InProgress', 'Aborted', 'JobComplete', 'Failed']),
  numberRecordsProcessed: z.number().optional(),
  errorMessage: z.string().optional(),
});
type JobInfo = z.infer<typeof JobInfo>;

const ResultRows = z.array(z.record(z.string(), z.string()));

const BulkCursor = z.object({ job: JobInfo.shape.id, locator: z.string().regex(/^[A-Za-z0-9+/=_-]{1,200}$/) });
type BulkCursor = z.infer<typeof BulkCursor>;

export interface BulkQueryOptions {
  session: SalesforceSession;
  version: string;
  /** First wait between checks of a running job; each wait doubles, up to 30 s (default 2 s). */
  pollMs?: number;
  /** A job still running after this long is aborted and the read fails as unavailable (default 30 min). */
  timeoutMs?: number;
}

export interface BulkQueryRead {
  soql: string;
  properties: string[];
  cursor: string | undefined;
  pageSize: number;
  priority: Priority;
  /** Stops waiting for a running job (see completed). */
  signal?: AbortSignal;
}

function encodeCursor(cursor: BulkCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(cursor: string): BulkCursor {
  try {
    const parsed = BulkCursor.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // refused below
  }
  throw new CrmError(
    'salesforce',
    'validation',
    'The bulk read cursor is not one this connector issued; start the read again without a cursor.',
  );
}

/** Salesforce's CSV has no null: an empty field is an empty value, as the REST API's null is. */
const withNulls = (row: Record<string, string>) =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === '' ? null : v]));

export function salesforceBulkQuery(options: BulkQueryOptions) {
  const { session, version } = options;
  const base = `/services/data/v${version}/jobs/query`;

  async function create(soql: string, priority: Priority): Promise<JobInfo> {
    const answer = await session.call('bulk2.query.create', priority, (c) =>
      c.request({
        method: 'POST',
        url: base,
        body: JSON.stringify({ operation: 'query', query: soql }),
        headers: { 'content-type': 'application/json' },
      }),
    );
    return parseCrmAnswer('salesforce', JobInfo, answer, 'bulk2.query.create');
  }

  async function check(id: string, priority: Priority): Promise<JobInfo> {
    const answer = await session.call('bulk2.query.get', priority, (c) => c.request(`${base}/${id}`));
    return parseCrmAnswer('salesforce', JobInfo, answer, 'bulk2.query.get');
  }

  /**
   * Drops a job nobody will read, so it does not go on to hold results (personal data): aborted while it
   * runs, deleted when it finished in the meantime (Salesforce refuses to abort a finished job).
   */
  async function drop(id: string, priority: Priority): Promise<void> {
    try {
      await session.call('bulk2.query.abort', priority, (c) =>
        c.request({
          method: 'PATCH',
          url: `${base}/${id}`,
          body: JSON.stringify({ state: 'Aborted' }),
          headers: { 'content-type': 'application/json' },
        }),
      );
    } catch {
      await remove(id, priority);
    }
  }

  /** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
  function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const timer = setTimeout(done, ms);
      function done() {
        signal?.removeEventListener('abort', stop);
        resolve();
      }
      function stop() {
        clearTimeout(timer);
        reject(signal?.reason as Error);
      }
      signal?.addEventListener('abort', stop, { once: true });
    });
  }

  /**
   * Waits for the job to finish, checking less often the longer it runs. `signal` stops the wait at once
   * (a service shutting down does not wait for Salesforce): the job is dropped and the signal's reason thrown.
   */
  async function completed(job: JobInfo, priority: Priority, signal: AbortSignal | undefined): Promise<void> {
    const deadline = Date.now() + (options.timeoutMs ?? 30 * 60_000);
    let wait = options.pollMs ?? 2_000;
    let info = job;
    while (info.state === 'UploadComplete' || info.state === 'InProgress') {
      if (Date.now() + wait > deadline) {
        await drop(job.id, priority);
        throw new CrmError(
          'salesforce',
          'unavailable',
          `Salesforce's Bulk API 2.0 query job ${job.id} was still running after ` +
            `${Math.round((options.timeoutMs ?? 30 * 60_000) / 60_000)} minutes; it was aborted. Try again later.`,
        );
      }
      try {
        await pause(wait, signal);
      } catch (reason) {
        await drop(job.id, priority);
        throw reason;
      }
      wait = Math.min(wait * 2, 30_000);
      info = await check(job.id, priority);
    }
    if (info.state !== 'JobComplete')
      throw new CrmError(
        'salesforce',
        'unavailable',
        `Salesforce's Bulk API 2.0 query job ${job.id} ended ${info.state}` +
          `${info.errorMessage ? `: ${info.errorMessage}` : ''}; the read starts again with a new job.`,
      );
  }

  /** One set of results: its rows as CSV records and the next set's locator (undefined after the last). */
  async function results(
    id: string,
    locator: string | undefined,
    pageSize: number,
    priority: Priority,
  ): Promise<{ rows: Record<string, string>[]; next: string | undefined }> {
    let next: string | undefined;
    const query = `maxRecords=${pageSize}${locator ? `&locator=${encodeURIComponent(locator)}` : ''}`;
    const answer = await session.call('bulk2.query.results', priority, (c: Connection) => {
      const api = new HttpApi(c, {});
      api.on('response', (response: { headers: Record<string, string | undefined> }) => {
        next = response.headers['sforce-locator'];
        // The session reads the allocation from here after each call, as jsforce sets it for REST calls.
        const usage = /api-usage=(\d+)\/(\d+)/.exec(response.headers['sforce-limit-info'] ?? '');
        if (usage) c.limitInfo = { apiUsage: { used: Number(usage[1]), limit: Number(usage[2]) } };
      });
      return api.request({
        method: 'GET',
        url: `${c.instanceUrl}${base}/${id}/results?${query}`,
        headers: { Accept: 'text/csv' },
      });
    });
    // jsforce parses an empty set (a header row alone) to an empty string rather than to no rows.
    const rows = parseCrmAnswer('salesforce', ResultRows, answer === '' ? [] : answer, 'bulk2.query.results');
    return { rows, next: next && next !== 'null' ? next : undefined };
  }

  async function remove(id: string, priority: Priority): Promise<void> {
    try {
      await session.call('bulk2.query.delete', priority, (c) => c.request({ method: 'DELETE', url: `${base}/${id}` }));
    } catch (error) {
      // Salesforce removes finished jobs after 7 days anyway; the records read are not affected.
      log.warn({ err: error, job: id }, 'could not delete a finished bulk query job');
    }
  }

  /**
   * A page of the query's rows: without a cursor the job is created and waited for first. After the last
   * page the job is deleted, so its results (personal data) do not stay in the org for a week.
   */
  async function read(request: BulkQueryRead): Promise<RecordPage> {
    const pageSize = Math.max(1, Math.min(request.pageSize, MAX_BULK_PAGE));
    let at: { job: string; locator?: string };
    if (request.cursor) at = decodeCursor(request.cursor);
    else {
      const job = await create(request.soql, request.priority);
      await completed(job, request.priority, request.signal);
      at = { job: job.id };
    }
    const set = await results(at.job, at.locator, pageSize, request.priority);
    const columns = new Set(Object.keys(set.rows[0] ?? {}).map((c) => c.toLowerCase()));
    const missing = request.properties.filter((p) => set.rows.length > 0 && !columns.has(p.toLowerCase()));
    if (missing.length > 0)
      throw new CrmError(
        'salesforce',
        'validation',
        `The bulk query job ${at.job} was made for other fields (it lacks ${missing.join(', ')}); ` +
          'start the read again without a cursor.',
      );
    const records: CrmRecord[] = set.rows.map((row) => toRecord(withNulls(row), request.properties));
    if (!set.next) {
      await remove(at.job, request.priority);
      return { records };
    }
    return { records, next: encodeCursor({ job: at.job, locator: set.next }) };
  }

  return { read };
}
