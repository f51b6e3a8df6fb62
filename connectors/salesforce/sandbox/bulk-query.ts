/**
 * Bulk API 2.0 query jobs under `/services/data/vXX.X/jobs/query`, as Salesforce documents them: POST
 * creates a job for a SOQL query (`query`, or `queryAll` with deleted records) and answers it UploadComplete;
 * the job then runs (InProgress) and ends JobComplete, or Failed; GET `/{id}` tells its state and
 * numberRecordsProcessed; GET `/{id}/results?locator=&maxRecords=` hands the rows out as CSV in sets, each
 * answer naming its rows in `Sforce-NumberOfRecords` and the next set in `Sforce-Locator` ("null" after the
 * last); PATCH `{"state":"Aborted"}` aborts a job still running; DELETE removes a finished one.
 *
 * The SOQL goes through the org's own query (soql.ts), so a bad query is refused at creation with the same
 * error as the REST query resource; aggregate functions such as COUNT() are refused as Bulk API 2.0 refuses
 * them. The rows are taken when the job is created. Results are kept until the job is deleted, or 7 days
 * after it ended; they are read with the API version the job was created with (409 otherwise). Every
 * request is one call against the org's daily API allocation.
 */
import express, { type RequestHandler, type Router } from 'express';
import {
  isColumnDelimiter,
  isLineEnding,
  newJobId,
  writeCsv,
  type ColumnDelimiter,
  type LineEnding,
} from './bulk-jobs.js';
import { RequestError, sfDatetime, type OrgData } from './org-data.js';
import type { SandboxObjectType } from '../standard-fields.js';

export type QueryJobState = 'UploadComplete' | 'InProgress' | 'Aborted' | 'JobComplete' | 'Failed';

export interface BulkQueryOptions {
  /** From creation to JobComplete (default 200 ms): the first quarter queued (UploadComplete), the rest InProgress. */
  processingMs?: number;
  /** Rows per set of results when the request names no maxRecords (Salesforce picks its own; default 10,000). */
  resultsPageSize?: number;
}

interface QueryJob {
  id: string;
  operation: 'query' | 'queryAll';
  object: SandboxObjectType;
  /** The version the job was created with, e.g. `62.0`: its results are read with the same. */
  apiVersion: string;
  createdAt: number;
  columnDelimiter: ColumnDelimiter;
  lineEnding: LineEnding;
  columns: string[];
  /** The rows as the CSV writes them: null as an empty field. */
  rows: Record<string, string>[];
  /** Set once aborted; a job's other states follow from the time since it was created. */
  aborted?: number;
  /** Ends Failed rather than JobComplete (see failNext). */
  fails: boolean;
}

const RETENTION_MS = 7 * 86_400_000;
const TERMINAL: readonly QueryJobState[] = ['Aborted', 'JobComplete', 'Failed'];

/** The 18-character id Salesforce gives the integration user, as job info names it. */
const CREATED_BY = '0058d0000000001AAA';

/** Salesforce's locators are short opaque strings (MTAwMDA is base64 of 10000): the offset of the set. */
const locatorOf = (offset: number) => Buffer.from(String(offset)).toString('base64').replace(/=+$/, '');

export class BulkQueryJobs {
  private readonly jobs = new Map<string, QueryJob>();
  private failures = 0;

  constructor(
    private readonly org: OrgData,
    private readonly options: BulkQueryOptions = {},
    private readonly now: () => number = Date.now,
  ) {}

  /** The next `n` jobs end Failed, as a query Salesforce retried 15 times without finishing does. */
  failNext(n: number): void {
    this.failures = n;
  }

  create(version: string, body: unknown): Record<string, unknown> {
    const input = (body ?? {}) as Record<string, unknown>;
    const operation = input.operation;
    if (operation !== 'query' && operation !== 'queryAll')
      throw new RequestError(400, 'INVALIDJOB', "operation: expected 'query' or 'queryAll'.");
    if (typeof input.query !== 'string' || input.query.trim() === '')
      throw new RequestError(400, 'INVALIDJOB', 'query: a SOQL query is required.');
    if (input.contentType !== undefined && input.contentType !== 'CSV')
      throw new RequestError(400, 'INVALIDJOB', "contentType: the only supported value is 'CSV'.");
    const columnDelimiter = input.columnDelimiter ?? 'COMMA';
    if (!isColumnDelimiter(columnDelimiter))
      throw new RequestError(
        400,
        'INVALIDJOB',
        'columnDelimiter: expected BACKQUOTE, CARET, COMMA, PIPE, SEMICOLON or TAB.',
      );
    const lineEnding = input.lineEnding ?? 'LF';
    if (!isLineEnding(lineEnding)) throw new RequestError(400, 'INVALIDJOB', 'lineEnding: expected LF or CRLF.');
    const { type, rows, count } = this.org.query(input.query);
    if (count)
      throw new RequestError(
        400,
        'FUNCTIONALITY_NOT_ENABLED',
        'Aggregate functions such as COUNT() are not supported in Bulk API 2.0 query jobs.',
      );
    const columns = Object.keys(rows[0]?.fields ?? {});
    const fieldType = (name: string) => this.org.field(type, name)?.type;
    const job: QueryJob = {
      id: newJobId((prefix) => this.org.newId(prefix)),
      operation,
      object: type,
      apiVersion: version,
      createdAt: this.now(),
      columnDelimiter,
      lineEnding,
      columns: columns.length > 0 ? columns : this.selected(input.query, type),
      // Bulk results write datetimes in UTC with a Z, where the REST API's JSON writes +0000.
      rows: rows.map((r) =>
        Object.fromEntries(
          Object.entries(r.fields).map(([name, v]) => [
            name,
            v === null ? '' : fieldType(name) === 'datetime' ? String(v).replace(/\+0000$/, 'Z') : String(v),
          ]),
        ),
      ),
      fails: this.failures > 0,
    };
    if (this.failures > 0) this.failures--;
    this.jobs.set(job.id, job);
    return {
      id: job.id,
      operation: job.operation,
      object: job.object,
      createdById: CREATED_BY,
      createdDate: sfDatetime(job.createdAt),
      systemModstamp: sfDatetime(job.createdAt),
      state: 'UploadComplete',
      concurrencyMode: 'Parallel',
      contentType: 'CSV',
      apiVersion: Number(job.apiVersion),
      lineEnding: job.lineEnding,
      columnDelimiter: job.columnDelimiter,
    };
  }

  info(id: string): Record<string, unknown> {
    const job = this.job(id);
    const state = this.state(job);
    const ended = state === 'JobComplete' || state === 'Failed';
    const processing = ended ? (this.options.processingMs ?? 200) : 0;
    return {
      id: job.id,
      operation: job.operation,
      object: job.object,
      createdById: CREATED_BY,
      createdDate: sfDatetime(job.createdAt),
      systemModstamp: sfDatetime(job.aborted ?? (ended ? job.createdAt + processing : job.createdAt)),
      state,
      concurrencyMode: 'Parallel',
      contentType: 'CSV',
      apiVersion: Number(job.apiVersion),
      jobType: 'V2Query',
      lineEnding: job.lineEnding,
      columnDelimiter: job.columnDelimiter,
      numberRecordsProcessed: state === 'JobComplete' ? job.rows.length : 0,
      retries: 0,
      totalProcessingTime: processing,
      isPkChunkingSupported: true,
    };
  }

  /** One set of rows from `locator` (the first without), at most `maxRecords` of them. */
  results(
    id: string,
    version: string,
    locator: string | undefined,
    maxRecords: number | undefined,
  ): { csv: string; records: number; next: string } {
    const job = this.job(id);
    const state = this.state(job);
    if (state !== 'JobComplete')
      throw new RequestError(
        400,
        'INVALIDJOBSTATE',
        `Query job ${job.id} is ${state}; results exist once it is JobComplete.`,
      );
    if (version !== job.apiVersion)
      throw new RequestError(
        409,
        'INVALIDJOB',
        `Get the results with the API version the job was created with (v${job.apiVersion}).`,
      );
    const from = locator === undefined ? 0 : this.offsetOf(locator, job);
    const size = maxRecords ?? this.options.resultsPageSize ?? 10_000;
    const rows = job.rows.slice(from, from + size);
    const end = from + rows.length;
    return {
      csv: writeCsv(job.columns, rows, job),
      records: rows.length,
      next: end < job.rows.length ? locatorOf(end) : 'null',
    };
  }

  abort(id: string, body: unknown): Record<string, unknown> {
    const job = this.job(id);
    if ((body as { state?: unknown } | undefined)?.state !== 'Aborted')
      throw new RequestError(400, 'INVALIDJOBSTATE', "state: a query job can only be set to 'Aborted'.");
    const state = this.state(job);
    if (TERMINAL.includes(state))
      throw new RequestError(400, 'INVALIDJOBSTATE', `Query job ${job.id} is ${state} and cannot be aborted.`);
    job.aborted = this.now();
    return this.info(id);
  }

  delete(id: string): void {
    const job = this.job(id);
    const state = this.state(job);
    if (!TERMINAL.includes(state))
      throw new RequestError(400, 'INVALIDJOBSTATE', `Query job ${job.id} is ${state}; abort it before deleting it.`);
    this.jobs.delete(job.id);
  }

  /** The routes, each counted as one API call by `count` (the REST API's check of the token and the allocation). */
  routes(count: (operation: string) => RequestHandler): Router {
    const router = express.Router({ mergeParams: true });
    const version = (params: Record<string, unknown>) => String(params.version).replace(/^v/, '');

    router.post('/', count('bulk2.query.create'), (req, res) => {
      res.status(200).json(this.create(version(req.params), req.body));
    });
    router.get('/:id', count('bulk2.query.get'), (req, res) => {
      res.json(this.info(String(req.params.id)));
    });
    router.get('/:id/results', count('bulk2.query.results'), (req, res) => {
      const locator = typeof req.query.locator === 'string' && req.query.locator !== '' ? req.query.locator : undefined;
      const raw = req.query.maxRecords;
      let maxRecords: number | undefined;
      if (raw !== undefined) {
        maxRecords = Number(raw);
        if (typeof raw !== 'string' || !/^\d+$/.test(raw) || maxRecords < 1)
          throw new RequestError(400, 'INVALID_PARAMETER_VALUE', 'maxRecords: expected a whole number of at least 1.');
      }
      const set = this.results(String(req.params.id), version(req.params), locator, maxRecords);
      res
        .status(200)
        .type('text/csv; charset=UTF-8')
        .setHeader('Sforce-NumberOfRecords', String(set.records))
        .setHeader('Sforce-Locator', set.next)
        .send(set.csv);
    });
    router.patch('/:id', count('bulk2.query.abort'), (req, res) => {
      res.json(this.abort(String(req.params.id), req.body));
    });
    router.delete('/:id', count('bulk2.query.delete'), (req, res) => {
      this.delete(String(req.params.id));
      res.status(204).end();
    });
    return router;
  }

  private state(job: QueryJob): QueryJobState {
    if (job.aborted !== undefined) return 'Aborted';
    const elapsed = this.now() - job.createdAt;
    const processingMs = this.options.processingMs ?? 200;
    if (elapsed < processingMs / 4) return 'UploadComplete';
    if (elapsed < processingMs) return 'InProgress';
    return job.fails ? 'Failed' : 'JobComplete';
  }

  /** The job, unless deleted or ended more than 7 days ago (Salesforce removes those): 404. */
  private job(id: string): QueryJob {
    const job = this.jobs.get(id);
    const endedAt = job && (job.aborted ?? job.createdAt + (this.options.processingMs ?? 200));
    if (job && TERMINAL.includes(this.state(job)) && this.now() - (endedAt ?? 0) > RETENTION_MS) this.jobs.delete(id);
    const kept = this.jobs.get(id);
    if (!kept) throw new RequestError(404, 'NOT_FOUND', 'The requested resource does not exist');
    return kept;
  }

  private offsetOf(locator: string, job: QueryJob): number {
    const offset = Number(Buffer.from(locator, 'base64').toString('utf8'));
    if (!Number.isInteger(offset) || offset <= 0 || offset >= job.rows.length || locatorOf(offset) !== locator)
      throw new RequestError(400, 'INVALID_QUERY_LOCATOR', `locator: '${locator}' is not a locator of this job.`);
    return offset;
  }

  /** The columns of a query that matched no row, as the SELECT names them. */
  private selected(soql: string, type: SandboxObjectType): string[] {
    const list = /^\s*SELECT\s+([\s\S]+?)\s+FROM\s/i.exec(soql)?.[1] ?? '';
    return list.split(',').map((f) => this.org.field(type, f.trim())?.name ?? f.trim());
  }
}
