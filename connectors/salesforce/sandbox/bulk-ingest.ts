/**
 * Bulk API 2.0 ingest jobs under `/services/data/vXX.X/jobs/ingest`, as Salesforce documents them:
 * create a job (object, operation insert, update or upsert, CSV in one of its dialects), upload its data
 * once (at most 150 MB), close it (UploadComplete) or abort it, poll its state (Open, UploadComplete,
 * InProgress, JobComplete, Failed, Aborted) and read its successful, failed and unprocessed rows.
 *
 * A closed job is processed after a moment, apart from the request that closed it. Each row is saved
 * through the same OrgData checks as a REST write, so a bad value or an unknown id fails that row alone,
 * and each change is the API user's change like any other: it sends the same outbound messages. The org
 * processes at most `dailyRecordLimit` rows in any 24 hours; past it, as Salesforce does, the rest of the
 * job is left unprocessed and the job fails. Every request is one API call.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import {
  isColumnDelimiter,
  isLineEnding,
  newJobId,
  readCsv,
  writeCsv,
  type CsvDialect,
  type CsvTable,
} from './bulk-jobs.js';
import { RequestError, sfDatetime, type FieldValue, type OrgData, type SaveResult } from './org-data.js';
import type { SandboxObjectType } from '../standard-fields.js';

const OPERATIONS = ['insert', 'update', 'upsert'] as const;
type Operation = (typeof OPERATIONS)[number];
export type IngestState = 'Open' | 'UploadComplete' | 'InProgress' | 'JobComplete' | 'Failed' | 'Aborted';

/** Salesforce's documented ingest limits; a test may lower them. */
export interface BulkIngestOptions {
  /** Rows ingest jobs may process in any rolling 24 hours (Salesforce: 150,000,000). */
  dailyRecordLimit?: number;
  /** The largest upload (Salesforce: 150 MB). */
  maxUploadBytes?: number;
  /** How long a closed job waits in UploadComplete before it is processed (default 0: at the next turn). */
  processingDelayMs?: number;
}

/** Rows Salesforce processes as one internal batch; the sandbox yields between them. */
const CHUNK = 10_000;
const DAY_MS = 86_400_000;
const NULL_VALUE = '#N/A';

interface IngestJob {
  id: string;
  object: SandboxObjectType;
  operation: Operation;
  externalIdFieldName?: string;
  dialect: CsvDialect;
  apiVersion: number;
  state: IngestState;
  createdDate: string;
  systemModstamp: string;
  data?: CsvTable;
  successful: Record<string, string>[];
  failed: Record<string, string>[];
  unprocessed: Record<string, string>[];
  errorMessage?: string;
  processingMs: number;
  timer?: NodeJS.Timeout;
}

export interface IngestStats {
  jobs: number;
  /** Rows processed by ingest jobs in the last 24 hours, as counted against dailyRecordLimit. */
  recordsLast24h: number;
  dailyRecordLimit: number;
}

export class BulkIngest {
  private readonly jobs = new Map<string, IngestJob>();
  /** Rows processed, by when: the rolling 24-hour count. */
  private readonly processed: { at: number; rows: number }[] = [];
  readonly dailyRecordLimit: number;
  readonly maxUploadBytes: number;
  private readonly processingDelayMs: number;

  constructor(
    private readonly org: OrgData,
    options: BulkIngestOptions = {},
  ) {
    this.dailyRecordLimit = options.dailyRecordLimit ?? 150_000_000;
    this.maxUploadBytes = options.maxUploadBytes ?? 150 * 1024 * 1024;
    this.processingDelayMs = options.processingDelayMs ?? 0;
  }

  stats(): IngestStats {
    return { jobs: this.jobs.size, recordsLast24h: this.recordsLast24h(), dailyRecordLimit: this.dailyRecordLimit };
  }

  /** Stops jobs waiting to be processed (the sandbox is closing). */
  close(): void {
    for (const job of this.jobs.values()) clearTimeout(job.timer);
  }

  /** The routes, each behind `count` (the token, the daily API allocation, one API call). */
  routes(count: (operation: string) => RequestHandler): Router {
    const router = express.Router({ mergeParams: true });
    const job = (req: Request): IngestJob => {
      const found = this.jobs.get(String(req.params.jobId));
      if (!found) throw new RequestError(404, 'NOT_FOUND', 'The requested resource does not exist');
      return found;
    };
    const version = (req: Request) => String(req.params.version);

    router.post('/', count('ingest.create'), (req, res) => {
      res.status(200).json(this.info(this.create(req.body, version(req))));
    });
    router.get('/', count('ingest.list'), (_req, res) => {
      res.json({ done: true, records: [...this.jobs.values()].map((j) => this.info(j)), nextRecordsUrl: null });
    });
    router.put(
      '/:jobId/batches',
      count('ingest.upload'),
      express.text({ type: 'text/csv', limit: this.maxUploadBytes }),
      (req, res) => {
        this.upload(job(req), req.body as unknown, String(req.headers['content-type'] ?? ''));
        res.status(201).end();
      },
    );
    router.patch('/:jobId', count('ingest.state'), (req, res) => {
      const state = (req.body as { state?: unknown } | undefined)?.state;
      res.json(this.info(this.changeState(job(req), state)));
    });
    router.get('/:jobId', count('ingest.info'), (req, res) => {
      res.json(this.info(job(req), true));
    });
    router.delete('/:jobId', count('ingest.delete'), (req, res) => {
      const found = job(req);
      if (found.state === 'Open' || found.state === 'InProgress')
        throw invalidState(found, 'delete it; a job can be deleted once closed, aborted or finished');
      clearTimeout(found.timer);
      this.jobs.delete(found.id);
      res.status(204).end();
    });
    /** Successful and failed rows once the job is over; unprocessed ones at any time. */
    const results = (pick: (j: IngestJob) => { header: string[]; rows: Record<string, string>[] }, anyTime = false) =>
      ((req: Request, res: Response) => {
        const found = job(req);
        if (!anyTime && !['JobComplete', 'Failed', 'Aborted'].includes(found.state))
          throw invalidState(found, 'read its results; wait until it is JobComplete or Failed');
        const { header, rows } = pick(found);
        res.type('text/csv').send(writeCsv(header, rows, found.dialect));
      }) satisfies RequestHandler;
    router.get('/:jobId/successfulResults', count('ingest.successfulResults'), results(successfulRows));
    router.get('/:jobId/failedResults', count('ingest.failedResults'), results(failedRows));
    router.get('/:jobId/unprocessedrecords', count('ingest.unprocessedrecords'), results(unprocessedRows, true));

    router.use((err: unknown, _req: Request, _res: Response, next: NextFunction) => {
      if ((err as { type?: string }).type === 'entity.too.large')
        return next(
          new RequestError(
            413,
            'INVALIDBATCH',
            `InvalidBatch : The upload is larger than ${this.maxUploadBytes} bytes; split the data over several jobs.`,
          ),
        );
      next(err);
    });
    return router;
  }

  private create(body: unknown, version: string): IngestJob {
    const b = (body ?? {}) as Record<string, unknown>;
    const object = String(b.object ?? '');
    if (!this.org.serves(object))
      throw new RequestError(400, 'INVALIDJOB', `InvalidJob : object: '${object}' is not an object this org has.`);
    const operation = b.operation;
    if (!OPERATIONS.includes(operation as Operation))
      throw new RequestError(
        400,
        'INVALIDJOB',
        `InvalidJob : operation: expected one of ${OPERATIONS.join(', ')}, got '${String(operation)}'.`,
      );
    if ((b.contentType ?? 'CSV') !== 'CSV')
      throw new RequestError(
        400,
        'INVALIDJOB',
        `InvalidJob : contentType: expected CSV, got '${String(b.contentType)}'.`,
      );
    const columnDelimiter = b.columnDelimiter ?? 'COMMA';
    if (!isColumnDelimiter(columnDelimiter))
      throw new RequestError(
        400,
        'INVALIDJOB',
        'InvalidJob : columnDelimiter: expected BACKQUOTE, CARET, COMMA, PIPE, SEMICOLON or TAB, ' +
          `got '${String(columnDelimiter)}'.`,
      );
    const lineEnding = b.lineEnding ?? 'LF';
    if (!isLineEnding(lineEnding))
      throw new RequestError(
        400,
        'INVALIDJOB',
        `InvalidJob : lineEnding: expected LF or CRLF, got '${String(lineEnding)}'.`,
      );
    let externalIdFieldName: string | undefined;
    if (operation === 'upsert') {
      const named =
        typeof b.externalIdFieldName === 'string' ? this.org.field(object, b.externalIdFieldName) : undefined;
      if (!named)
        throw new RequestError(
          400,
          'INVALIDJOB',
          'InvalidJob : externalIdFieldName: an upsert job names the field that matches rows with records (e.g. Id).',
        );
      externalIdFieldName = named.name;
    }
    const now = sfDatetime(Date.now());
    const job: IngestJob = {
      id: newJobId((prefix) => this.org.newId(prefix)),
      object,
      operation: operation as Operation,
      externalIdFieldName,
      dialect: { columnDelimiter, lineEnding },
      apiVersion: Number(version.replace(/^v/, '')),
      state: 'Open',
      createdDate: now,
      systemModstamp: now,
      successful: [],
      failed: [],
      unprocessed: [],
      processingMs: 0,
    };
    this.jobs.set(job.id, job);
    return job;
  }

  private upload(job: IngestJob, body: unknown, contentType: string): void {
    if (job.state !== 'Open') throw invalidState(job, 'upload data to it; only an Open job takes data');
    if (job.data) throw invalidState(job, 'upload data to it again; a job takes one upload, then close it');
    if (typeof body !== 'string')
      throw new RequestError(
        400,
        'INVALIDBATCH',
        `InvalidBatch : Content-Type: expected text/csv, got '${contentType || 'none'}'.`,
      );
    job.data = readCsv(body, job.dialect);
    touch(job);
  }

  private changeState(job: IngestJob, state: unknown): IngestJob {
    if (state === 'UploadComplete') {
      if (job.state !== 'Open') throw invalidState(job, 'close it; only an Open job can be closed');
      job.state = 'UploadComplete';
      touch(job);
      job.timer = setTimeout(() => void this.process(job), this.processingDelayMs);
      return job;
    }
    if (state === 'Aborted') {
      if (job.state !== 'Open' && job.state !== 'UploadComplete')
        throw invalidState(job, 'abort it; only a job not yet processing can be aborted');
      clearTimeout(job.timer);
      job.state = 'Aborted';
      job.unprocessed = job.data?.rows ?? [];
      touch(job);
      return job;
    }
    throw new RequestError(
      400,
      'INVALIDJOBSTATE',
      `state: expected UploadComplete or Aborted, got '${String(state)}'.`,
    );
  }

  /** Saves the job's rows, a chunk at a time, through the same checks as the REST writes. */
  private async process(job: IngestJob): Promise<void> {
    if (job.state !== 'UploadComplete') return;
    const started = Date.now();
    job.state = 'InProgress';
    touch(job);
    const rows = job.data?.rows ?? [];
    const headerProblem = this.headerProblem(job);
    if (headerProblem) return this.finish(job, started, 0, headerProblem);
    for (let start = 0; start < rows.length; start += CHUNK) {
      if (start > 0) await new Promise((resolve) => setImmediate(resolve));
      const room = this.dailyRecordLimit - this.recordsLast24h();
      const chunk = rows.slice(start, start + Math.min(CHUNK, Math.max(0, room)));
      if (chunk.length > 0) this.processed.push({ at: Date.now(), rows: chunk.length });
      for (const row of chunk) this.saveRow(job, row);
      if (chunk.length < Math.min(CHUNK, rows.length - start))
        return this.finish(
          job,
          started,
          start + chunk.length,
          `ExceededQuota : The org's ingest jobs processed their limit of ${this.dailyRecordLimit} records in ` +
            '24 hours; the rest of the job was not processed. Create a new job for them later.',
        );
    }
    this.finish(job, started, rows.length);
  }

  private finish(job: IngestJob, started: number, done: number, errorMessage?: string): void {
    job.unprocessed = (job.data?.rows ?? []).slice(done);
    job.state = errorMessage ? 'Failed' : 'JobComplete';
    if (errorMessage) job.errorMessage = errorMessage;
    job.processingMs = Date.now() - started;
    touch(job);
  }

  /** Why no row of the upload can be saved: a column the object lacks, or no column to find records by. */
  private headerProblem(job: IngestJob): string | undefined {
    const header = job.data?.header ?? [];
    for (const name of header) {
      if (name.toLowerCase() === 'id') continue;
      if (!this.org.field(job.object, name)) return `InvalidBatch : Field name not found : ${name}`;
    }
    if (job.operation === 'update' && !header.some((h) => h.toLowerCase() === 'id'))
      return 'InvalidBatch : An update job needs an Id column naming the records to update.';
    if (job.operation === 'upsert' && !header.some((h) => h.toLowerCase() === job.externalIdFieldName!.toLowerCase()))
      return `InvalidBatch : An upsert job needs its external id column ${job.externalIdFieldName}.`;
    return undefined;
  }

  private saveRow(job: IngestJob, row: Record<string, string>): void {
    const id = Object.entries(row).find(([k]) => k.toLowerCase() === 'id')?.[1] ?? '';
    // An empty value leaves the field as it is; #N/A empties it.
    const values: Record<string, FieldValue> = {};
    for (const [name, text] of Object.entries(row)) {
      if (name.toLowerCase() === 'id' || text === '') continue;
      values[name] = text === NULL_VALUE ? null : text;
    }
    let result: SaveResult;
    let created = false;
    const existing = job.operation === 'upsert' ? this.upsertTarget(job, id, row) : undefined;
    if (job.operation === 'insert' || (job.operation === 'upsert' && !existing)) {
      result = this.org.create(job.object, values);
      created = result.success;
    } else {
      result = this.org.update(job.object, existing ?? id, values);
    }
    if (result.success) {
      job.successful.push({ sf__Id: result.id ?? '', sf__Created: String(created), ...row });
      return;
    }
    const error = result.errors.map((e) => `${e.statusCode}:${e.message}:${e.fields.join(',')} --`).join(' ');
    job.failed.push({ sf__Id: result.id && result.id !== id ? result.id : '', sf__Error: error, ...row });
  }

  /** The record an upsert row names: by Id, or the one whose external id field holds the row's value. */
  private upsertTarget(job: IngestJob, id: string, row: Record<string, string>): string | undefined {
    const field = job.externalIdFieldName!;
    if (field === 'Id') return id || undefined;
    const value = Object.entries(row).find(([k]) => k.toLowerCase() === field.toLowerCase())?.[1];
    if (!value) return undefined;
    return this.org.all(job.object).find((r) => String(r.fields[field] ?? '') === value)?.id;
  }

  private recordsLast24h(now = Date.now()): number {
    while (this.processed.length && this.processed[0]!.at <= now - DAY_MS) this.processed.shift();
    return this.processed.reduce((n, p) => n + p.rows, 0);
  }

  /** Job info as Salesforce answers it; `detail`: with the processing counts that Get Job Info adds. */
  private info(job: IngestJob, detail = false) {
    return {
      id: job.id,
      operation: job.operation,
      object: job.object,
      createdById: '0058d0000000001AAA',
      createdDate: job.createdDate,
      systemModstamp: job.systemModstamp,
      state: job.state,
      ...(job.externalIdFieldName ? { externalIdFieldName: job.externalIdFieldName } : {}),
      concurrencyMode: 'Parallel',
      contentType: 'CSV',
      apiVersion: job.apiVersion,
      jobType: 'V2Ingest',
      contentUrl: `services/data/v${job.apiVersion.toFixed(1)}/jobs/ingest/${job.id}/batches`,
      lineEnding: job.dialect.lineEnding,
      columnDelimiter: job.dialect.columnDelimiter,
      ...(detail
        ? {
            numberRecordsProcessed: job.successful.length + job.failed.length,
            numberRecordsFailed: job.failed.length,
            retries: 0,
            totalProcessingTime: job.processingMs,
            apiActiveProcessingTime: job.processingMs,
            apexProcessingTime: 0,
            ...(job.errorMessage ? { errorMessage: job.errorMessage } : {}),
          }
        : {}),
    };
  }
}

const successfulRows = (job: IngestJob) => ({
  header: ['sf__Id', 'sf__Created', ...(job.data?.header ?? [])],
  rows: job.successful,
});
const failedRows = (job: IngestJob) => ({
  header: ['sf__Id', 'sf__Error', ...(job.data?.header ?? [])],
  rows: job.failed,
});
const unprocessedRows = (job: IngestJob) => ({ header: job.data?.header ?? [], rows: job.unprocessed });

function touch(job: IngestJob): void {
  job.systemModstamp = sfDatetime(Date.now());
}

function invalidState(job: IngestJob, what: string): RequestError {
  return new RequestError(400, 'INVALIDJOBSTATE', `Job ${job.id} is ${job.state}: cannot ${what}.`);
}
