/**
 * `crm-enrich enrich-file <in.csv> --out <out.csv>` uploads the file to the running service (its admin
 * API), prints the cost preview before any credit is spent, shows progress on stderr, and downloads the
 * result file. The work runs where the lookup cache, the daily budget and the CRM connections are.
 *
 * Run again with the same file and options after an interruption (this command stopped, or the service
 * restarted mid-run), it goes on with the job it started rather than uploading the file again: the job's
 * id is kept beside the output as `<out.csv>.job` until the result is written, and the service keeps the
 * rows it wrote, so none is looked up twice.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { loadConfig } from '../config.js';
import type { FileJob } from '../enrich/listing/file/file-jobs.js';
import { bar } from './backfill-command.js';
import { adminTokenFor } from './embedded.js';

export interface EnrichFileOptions {
  out: string;
  connection: string;
  object: string;
  map: string[];
  dryRun?: boolean;
  relookup?: boolean;
  url?: string;
}

const POLL_MS = 500;

async function answer<T>(res: Response): Promise<T> {
  const json = (await res.json().catch(() => ({}))) as T & { error?: { message?: string } };
  if (!res.ok) throw new Error(`the service refused (${res.status}): ${json.error?.message ?? 'no reason given'}`);
  return json;
}

/** What makes a later run "the same": the file (where it is, its size and time) and every option. */
function sameRun(input: string, file: { size: number; mtimeMs: number }, options: EnrichFileOptions): string {
  const { connection, object, map, relookup } = options;
  return JSON.stringify({
    input: resolve(input),
    size: file.size,
    mtimeMs: file.mtimeMs,
    connection,
    object,
    map,
    relookup: relookup === true,
  });
}

export async function enrichFileCommand(input: string, options: EnrichFileOptions): Promise<void> {
  const file = await stat(input).catch(() => {
    throw new Error(`cannot read ${input}: no such file`);
  });
  const size = file.size;
  const saved = `${options.out}.job`;
  const run = sameRun(input, file, options);
  const config = loadConfig();
  const base = `${(options.url ?? `http://127.0.0.1:${config.PORT}`).replace(/\/+$/, '')}/admin/api/file-enrichments`;
  const headers = { authorization: `Bearer ${adminTokenFor(config)}` };
  const query = new URLSearchParams({
    connection: options.connection,
    object: options.object,
    fileName: basename(input),
    dryRun: String(options.dryRun === true),
    relookup: String(options.relookup === true),
  });
  for (const m of options.map) query.append('map', m);

  const call = async (path: string, init?: RequestInit): Promise<Response> => {
    try {
      return await fetch(`${base}${path}`, { ...init, headers: { ...headers, ...init?.headers } });
    } catch {
      throw new Error(`cannot reach crm-enrich at ${options.url ?? 'the local service'}; start it with \`npm start\``);
    }
  };
  const upload = async () =>
    answer<FileJob>(
      await call(`?${query.toString()}`, {
        method: 'POST',
        headers: { 'content-type': 'text/csv', 'content-length': String(size) },
        body: Readable.toWeb(createReadStream(input)) as ReadableStream,
        duplex: 'half',
      }),
    );
  let job = (options.dryRun ? undefined : await earlierJob(saved, run, call)) ?? (await upload());
  if (!options.dryRun) await writeFile(saved, JSON.stringify({ id: job.id, run }));
  const poll = async () => answer<FileJob>(await call(`/${job.id}`));

  const tty = process.stderr.isTTY === true;
  while (job.status === 'previewing') {
    await new Promise((r) => setTimeout(r, POLL_MS));
    job = await poll();
    if (job.preview && job.status === 'previewing')
      process.stderr.write(`${tty ? '\r' : ''}previewing: ${job.preview.rows} rows read${tty ? '' : '\n'}`);
  }
  if (tty) process.stderr.write('\n');
  if (job.status === 'failed' || !job.preview) throw new Error(`the file enrichment failed: ${job.error?.message}`);
  const p = job.preview;
  process.stdout.write(
    `would spend at most ${p.credits} credits\n` +
      `  ${p.rows} rows: ${p.invalid} invalid, ${p.inCrm} already in the CRM` +
      `${options.relookup ? ' (looked up again: --relookup)' : ''}, ${p.distinct} distinct rows to look up\n`,
  );
  for (const problem of p.problems) process.stderr.write(`invalid: ${problem.reason}\n`);
  if (p.invalid > p.problems.length)
    process.stderr.write(`... and ${p.invalid - p.problems.length} more invalid rows (crm_enrich_reason names each)\n`);
  if (options.dryRun) {
    process.stdout.write('dry run: nothing was looked up, no credit was spent, no file was written\n');
    return;
  }

  let lastLine = 0;
  while (job.status === 'running') {
    await new Promise((r) => setTimeout(r, POLL_MS));
    job = await poll();
    const done = job.progress?.rows ?? 0;
    const text = `${bar(done, p.rows)} ${done}/${p.rows} rows`;
    if (tty) process.stderr.write(`\r${text}`);
    else if (job.status !== 'running' || Date.now() - lastLine >= 5_000) {
      process.stderr.write(`${text}\n`);
      lastLine = Date.now();
    }
  }
  if (tty) process.stderr.write('\n');
  if (job.status !== 'done' || !job.progress) throw new Error(`the file enrichment failed: ${job.error?.message}`);

  const res = await call(`/${job.id}/result`);
  if (!res.ok || !res.body) await answer(res);
  const part = `${options.out}.part`;
  await pipeline(Readable.fromWeb(res.body as never), createWriteStream(part));
  await rename(part, options.out);
  await rm(saved, { force: true });
  const s = job.progress;
  process.stdout.write(
    `wrote ${options.out}: ${s.rows} rows: ${s.enriched} enriched, ${s.noMatch} no match, ${s.inCrm} in the CRM, ` +
      `${s.invalid} invalid${s.skipped ? `, ${s.skipped} skipped (see crm_enrich_reason)` : ''}\n`,
  );
}

/**
 * The job an earlier run of the same file and options started, when the service still has it and it has
 * more to give: running, done, or stopped and now resumed. Otherwise undefined, and the file is uploaded.
 */
async function earlierJob(
  saved: string,
  run: string,
  call: (path: string, init?: RequestInit) => Promise<Response>,
): Promise<FileJob | undefined> {
  const kept = await readFile(saved, 'utf8').then(
    (text) => JSON.parse(text) as { id?: unknown; run?: unknown },
    () => undefined,
  );
  if (typeof kept?.id !== 'string' || kept.run !== run) return undefined;
  const res = await call(`/${encodeURIComponent(kept.id)}`);
  if (!res.ok) return undefined;
  let job = (await res.json()) as FileJob;
  if (job.status === 'failed') {
    const resumed = await call(`/${job.id}/resume`, { method: 'POST' });
    if (!resumed.ok) return undefined;
    job = (await resumed.json()) as FileJob;
  }
  if (job.dryRun) return undefined;
  process.stderr.write(
    `going on with file enrichment ${job.id} started ${job.createdAt} (${job.progress?.rows ?? 0} rows done)\n`,
  );
  return job;
}
