/**
 * File enrichments run inside the service: an uploaded file is kept under the data directory with its
 * job (`<data dir>/file-enrichments/<id>/`: `input.csv`, `job.json`, `result.csv`), previewed (the
 * credits it may spend, before any is spent), then enriched in the background; the job says how far
 * it got, and the result file is downloaded once it is done. A dry run stops after the preview.
 * A run the service stopped in (a restart, a crash) goes on at the next start-up, or when asked, from
 * its partial result (`result.csv.part`): the rows written there are kept, not looked up again.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { z } from 'zod';
import { AppError } from '../../../core/errors.js';
import { mappedObject } from '../../../core/connector-lookup.js';
import type { CrmConnector } from '../../../core/connector.js';
import type { CompiledMapping } from '../../../mapping/compile.js';
import { logger } from '../../../logger.js';
import { parseColumnMap } from './file-columns.js';
import { enrichFile, previewFile, type FileEnrichmentDeps, type FileRequest } from './file-enrichment.js';
import { RowsInCrm } from './rows-in-crm.js';
import { fileRows } from './file-rows.js';

const log = logger('enrich.file');

const Counts = z.object({ rows: z.number(), invalid: z.number(), inCrm: z.number() });
const Preview = Counts.extend({
  distinct: z.number(),
  credits: z.number(),
  problems: z.array(z.object({ line: z.number(), reason: z.string() })),
});
const Summary = Counts.extend({ enriched: z.number(), noMatch: z.number(), skipped: z.number() });

export const FileJob = z.object({
  id: z.string(),
  connection: z.string(),
  object: z.string(),
  /** The uploaded file's name, as the person gave it (shown back to them only). */
  fileName: z.string(),
  map: z.array(z.string()),
  relookup: z.boolean(),
  dryRun: z.boolean(),
  status: z.enum(['previewing', 'previewed', 'running', 'done', 'failed']),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  preview: Preview.nullable(),
  /** How far the run got: rows written so far, by status. */
  progress: Summary.nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type FileJob = z.infer<typeof FileJob>;

export type FileJobErrorCode =
  'unknown_object' | 'file_too_large' | 'job_not_found' | 'result_not_ready' | 'invalid_file_job' | 'not_resumable';

export class FileJobError extends AppError {
  declare readonly code: FileJobErrorCode;
  constructor(
    code: FileJobErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(code, message, 'permanent', field ? { field } : undefined);
  }
}

export interface FileJobRequest {
  connection: string;
  object: string;
  fileName: string;
  map: string[];
  relookup: boolean;
  dryRun: boolean;
}

export interface FileJobsOptions {
  /** The data directory; jobs live in its `file-enrichments` folder. */
  dataDir: string;
  connectors: readonly CrmConnector[];
  mapping: (crm: string, objectType: string) => CompiledMapping | undefined;
  lookups: FileEnrichmentDeps['lookups'];
  /** Largest upload taken, in bytes. */
  maxBytes: number;
}

/** Largest upload taken: a 100,000-row export with many columns is some 50 MB. */
export const FILE_UPLOAD_MAX_BYTES = 200 * 1024 * 1024;

/** How often a running job's progress is written to its job.json. */
const SAVE_EVERY_MS = 1_000;
const ID = /^[0-9a-f-]{36}$/;

/** Passes bytes through until `max`, then fails: an upload is kept only while it is within the limit. */
function capped(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > max)
        done(new FileJobError('file_too_large', `the file is larger than ${max} bytes; split it`, 'file'));
      else done(null, chunk);
    },
  });
}

export class FileJobs {
  private readonly root: string;
  private readonly jobs = new Map<string, FileJob>();
  private readonly saving = new Map<string, Promise<void>>();
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  /** Settles once the jobs left running at the last stop have been picked up again. */
  private resumed: Promise<void> = Promise.resolve();

  constructor(private readonly options: FileJobsOptions) {
    this.root = join(options.dataDir, 'file-enrichments');
  }

  private dir(id: string): string {
    return join(this.root, id);
  }

  private deps(job: Pick<FileJob, 'connection' | 'object'>): FileEnrichmentDeps {
    const found = mappedObject(this.options.connectors, { get: this.options.mapping }, job, job.object);
    if (!found)
      throw new FileJobError(
        'unknown_object',
        `${job.connection} ${job.object} is not a mapped object; configured: ` +
          this.options.connectors
            .flatMap((c) =>
              c.objectTypes.filter((o) => this.options.mapping(c.crm, o)).map((o) => `${c.connection} ${o}`),
            )
            .join(', '),
        'object',
      );
    const mapping = this.options.mapping(found.connector.crm, found.objectType)!;
    return { connector: found.connector, objectType: found.objectType, mapping, lookups: this.options.lookups };
  }

  /**
   * Keeps the upload, checks its header against the mapping (a file no column of which holds a match key
   * is refused here, naming its columns), and starts the preview and, unless a dry run, the run.
   */
  async create(request: FileJobRequest, body: Readable): Promise<FileJob> {
    const deps = this.deps(request);
    const map = parseColumnMap(request.map);
    const id = randomUUID();
    const dir = this.dir(id);
    await mkdir(dir, { recursive: true });
    try {
      await pipeline(body, capped(this.options.maxBytes), createWriteStream(join(dir, 'input.csv')));
      const input = createReadStream(join(dir, 'input.csv'));
      await fileRows(input, deps.mapping, map, 1).finally(() => input.destroy());
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
    const job: FileJob = {
      id,
      connection: deps.connector.connection,
      object: deps.objectType,
      fileName: request.fileName,
      map: request.map,
      relookup: request.relookup,
      dryRun: request.dryRun,
      status: 'previewing',
      createdAt: new Date().toISOString(),
      finishedAt: null,
      preview: null,
      progress: null,
      error: null,
    };
    await this.save(job);
    this.start(job, deps);
    return job;
  }

  private start(job: FileJob, deps: FileEnrichmentDeps): void {
    const abort = new AbortController();
    const request = { map: parseColumnMap(job.map), relookup: job.relookup };
    const done = this.drive(job, deps, request, abort.signal).finally(() => this.running.delete(job.id));
    this.running.set(job.id, { abort, done });
  }

  /** Picks up every job that was previewing or running when the service last stopped. */
  resumeAll(): void {
    this.resumed = (async () => {
      const ids = await readdir(this.root).catch(() => [] as string[]);
      for (const id of ids.filter((i) => ID.test(i))) {
        const job = await this.read(id).catch(() => undefined);
        if (!job || (job.status !== 'previewing' && job.status !== 'running') || this.running.has(id)) continue;
        try {
          this.start(job, this.deps(job));
          log.info({ job: id, rowsDone: job.progress?.rows ?? 0 }, 'resuming a file enrichment');
        } catch (error) {
          log.warn({ err: error, job: id }, 'a file enrichment cannot be resumed');
        }
      }
    })();
  }

  /**
   * Goes on with a job that stopped: failed, or left running by a service that could not resume it. Rows
   * already in its partial result are kept; a job that never finished its preview starts over (the
   * preview spends nothing).
   */
  async resume(id: string): Promise<FileJob> {
    await this.resumed;
    const job = await this.get(id);
    if (job.dryRun)
      throw new FileJobError('not_resumable', 'a dry run spends nothing and has nothing to resume; upload again', 'id');
    if (this.running.has(id)) return job;
    if (job.status === 'done' || job.status === 'previewed')
      throw new FileJobError('not_resumable', `the job is ${job.status}; there is nothing left to do`, 'id');
    const next: FileJob = {
      ...job,
      status: job.preview ? 'running' : 'previewing',
      error: null,
      finishedAt: null,
    };
    this.start(next, this.deps(next));
    await this.save(next);
    return next;
  }

  /** Writes the job's file; one write at a time per job, so a later state is never overwritten by an earlier one. */
  private save(job: FileJob): Promise<void> {
    this.jobs.set(job.id, job);
    const file = join(this.dir(job.id), 'job.json');
    const write = async () => {
      await writeFile(`${file}.tmp`, JSON.stringify(job));
      await rename(`${file}.tmp`, file);
    };
    const saved = (this.saving.get(job.id) ?? Promise.resolve()).then(write, write);
    this.saving.set(job.id, saved);
    void saved
      .finally(() => {
        if (this.saving.get(job.id) === saved) this.saving.delete(job.id);
      })
      .catch(() => undefined);
    return saved;
  }

  private async drive(job: FileJob, deps: FileEnrichmentDeps, request: FileRequest, signal: AbortSignal) {
    const dir = this.dir(job.id);
    let savedAt = 0;
    const saveSoon = (next: FileJob) => {
      this.jobs.set(job.id, next);
      if (Date.now() - savedAt < SAVE_EVERY_MS) return;
      savedAt = Date.now();
      void this.save(next).catch(() => undefined);
    };
    let current = job;
    const part = join(dir, 'result.csv.part');
    const before = join(dir, 'result.csv.before');
    try {
      // Past its preview, a run goes on from what it wrote; the CRM is asked about rows again as they come.
      let inCrm: RowsInCrm;
      if (job.status === 'running' && job.preview) inCrm = new RowsInCrm(deps.connector, deps.objectType, deps.mapping);
      else {
        const previewed = await previewFile(deps, createReadStream(join(dir, 'input.csv')), request, (p) =>
          saveSoon({ ...current, preview: p }),
        );
        inCrm = previewed.inCrm;
        current = { ...current, preview: previewed.preview, status: job.dryRun ? 'previewed' : 'running' };
        if (job.dryRun) current = { ...current, finishedAt: new Date().toISOString() };
        await this.save(current);
        if (job.dryRun) return;
        await rm(part, { force: true });
        await rm(before, { force: true });
      }
      // The partial result moves aside, to be copied into the new one. A crash during the copy leaves a
      // shorter copy to go on from next time: the rows it lacks are done again, from the lookup cache.
      await rename(part, before).catch(() => undefined);
      const done = await access(before).then(
        () => createReadStream(before),
        () => undefined,
      );
      await enrichFile(deps, createReadStream(join(dir, 'input.csv')), createWriteStream(part), request, {
        inCrm,
        progress: (progress) => saveSoon({ ...current, progress }),
        signal,
        done,
      }).then(async (summary) => {
        if (signal.aborted) throw new FileJobError('invalid_file_job', 'the service stopped during the run');
        await rename(part, join(dir, 'result.csv'));
        await rm(before, { force: true });
        current = { ...current, progress: summary, status: 'done', finishedAt: new Date().toISOString() };
      });
    } catch (error) {
      if (signal.aborted) {
        // The service is stopping: the job stays running, to go on from its partial result at the next start.
        await this.save({ ...current, ...this.jobs.get(job.id) }).catch(() => undefined);
        return;
      }
      const code = error instanceof AppError ? error.code : 'file_enrichment_failed';
      const message = error instanceof AppError ? error.message : 'the file enrichment failed; the service log has why';
      if (!(error instanceof AppError)) log.error({ err: error, job: job.id }, 'a file enrichment failed');
      current = { ...current, ...this.jobs.get(job.id), status: 'failed', finishedAt: new Date().toISOString() };
      current = { ...current, error: { code, message } };
    }
    await this.save(current).catch((error: unknown) => log.warn({ err: error }, 'a file job could not be saved'));
  }

  /** The job as this service holds it, or as its job.json says. */
  private async read(id: string): Promise<FileJob> {
    if (!ID.test(id)) throw new FileJobError('job_not_found', `no file enrichment ${id}`, 'id');
    const known = this.jobs.get(id);
    if (known) return known;
    const raw = await readFile(join(this.dir(id), 'job.json'), 'utf8').catch(() => undefined);
    if (!raw) throw new FileJobError('job_not_found', `no file enrichment ${id}`, 'id');
    return FileJob.parse(JSON.parse(raw));
  }

  /** A job; one the service stopped in and could not pick up again says so, and how to go on with it. */
  async get(id: string): Promise<FileJob> {
    await this.resumed;
    const job = await this.read(id);
    if ((job.status === 'previewing' || job.status === 'running') && !this.running.has(id)) {
      return {
        ...job,
        status: 'failed',
        error: {
          code: 'interrupted',
          message:
            `the service stopped during this run; POST /admin/api/file-enrichments/${id}/resume goes on with it ` +
            '(rows already written are kept and not looked up again)',
        },
      };
    }
    return job;
  }

  /** The newest jobs first, at most `limit`. */
  async list(limit = 20): Promise<FileJob[]> {
    const ids = await readdir(this.root).catch(() => [] as string[]);
    const jobs = await Promise.all(ids.filter((id) => ID.test(id)).map((id) => this.get(id).catch(() => undefined)));
    return jobs
      .filter((j): j is FileJob => j !== undefined)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, limit);
  }

  /** The result file of a finished job, to stream to whoever asked. */
  async result(id: string): Promise<{ job: FileJob; path: string }> {
    const job = await this.get(id);
    if (job.status !== 'done')
      throw new FileJobError(
        'result_not_ready',
        job.dryRun ? 'a dry run writes no result file' : `the job is ${job.status}; its result is not ready`,
        'id',
      );
    return { job, path: join(this.dir(id), 'result.csv') };
  }

  async stop(): Promise<void> {
    for (const { abort } of this.running.values()) abort.abort();
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }
}
