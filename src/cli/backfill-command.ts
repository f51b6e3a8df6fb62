/**
 * `crm-enrich backfill` and `crm-enrich refresh` ask the running service through its admin API, so
 * the work runs where the queue is, survives this command being interrupted, and resumes after the
 * service restarts. Progress shows as a bar with rate and ETA on a terminal, plain lines otherwise.
 */
import { loadConfig } from '../config.js';
import type { DryRunReport } from '../enrich/listing/backfill-dry-run.js';
import type { ListRefreshReport } from '../enrich/listing/list-refresh.js';
import { parseCondition, SegmentError } from '../enrich/listing/segment.js';
import { adminTokenFor } from './embedded.js';

interface Progress {
  status: 'running' | 'listed';
  listed: number;
  enqueued: number;
  skipped: number;
  pending: number;
  done: boolean;
}

export function client(url: string | undefined) {
  const config = loadConfig();
  const base = (url ?? `http://127.0.0.1:${config.PORT}`).replace(/\/+$/, '');
  const token = adminTokenFor(config);
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let res: Response;
    try {
      res = await fetch(`${base}/admin/api${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      throw new Error(`cannot reach crm-enrich at ${base}; start it with \`npm start\` (or pass --url)`);
    }
    const json = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    if (!res.ok)
      throw Object.assign(
        new Error(`the service refused (${res.status}): ${json.error?.message ?? 'no reason given'}`),
        { status: res.status, code: json.error?.code },
      );
    return json as T;
  };
}

export function bar(done: number, total: number, width = 30): string {
  const share = total ? Math.min(1, done / total) : 0;
  const filled = Math.round(share * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(share * 100).toFixed(0).padStart(3)}%`;
}

/** What `backfill` and `backfill --dry-run` are asked: one object of one connection, at most `limit` records. */
interface BackfillOptions {
  connection: string;
  object: string;
  limit?: number;
  /** A CRM list whose members are the segment: an id, or else a name. */
  list?: string;
  /** The same, by name only. */
  listName?: string;
  /** Fill the gaps: only records with this mapped property empty. */
  missing?: string;
  /** Only records whose own properties meet every condition. */
  where?: string[];
  url?: string;
}

/**
 * The list an option names, as the admin API takes it: `--list` is an id when it has the shape of one
 * (HubSpot: digits; Salesforce: 15 or 18 characters from 00), a name otherwise; `--list-name` is a name.
 */
export function listFields(options: { list?: string; listName?: string }): { listId?: string; listName?: string } {
  if (options.list !== undefined && options.listName !== undefined)
    throw new Error('give --list or --list-name, not both');
  if (options.listName !== undefined) return { listName: options.listName };
  if (options.list === undefined) return {};
  return /^\d+$|^00[a-zA-Z0-9]{13}(?:[a-zA-Z0-9]{3})?$/.test(options.list)
    ? { listId: options.list }
    : { listName: options.list };
}

/** The segment fields of a backfill's body, checked for their shape here so a typo is named by its flag. */
function segmentBody(options: BackfillOptions): { missing: string | null; where: string[] } {
  try {
    for (const text of options.where ?? []) parseCondition(text);
  } catch (error) {
    asFlags(error);
  }
  return { missing: options.missing ?? null, where: options.where ?? [] };
}

/** The service names a segment's body field (`missing: ...`, `where: ...`); the person typed its flag. */
function asFlags(error: unknown): never {
  if (error instanceof SegmentError) throw new Error(`--${error.message}`);
  const e = error as Error & { code?: string };
  if (e.code === 'invalid_segment')
    throw Object.assign(new Error(e.message.replace(/\((\d+)\): (missing|where):/, '($1): --$2:')), { code: e.code });
  throw error;
}

function checkLimit(limit: number | undefined): void {
  if (limit !== undefined && (!Number.isInteger(limit) || limit <= 0))
    throw new Error('--limit must be a whole number above 0');
}

export async function backfill(options: BackfillOptions): Promise<void> {
  checkLimit(options.limit);
  const call = client(options.url);
  const path = `/backfills/${encodeURIComponent(options.connection)}/${encodeURIComponent(options.object)}`;
  const segment = segmentBody(options);
  let progress = await call<Progress>('POST', '/backfills', {
    connection: options.connection,
    object: options.object,
    limit: options.limit ?? null,
    ...listFields(options),
    ...segment,
  }).catch(asFlags);
  const tty = process.stdout.isTTY === true;
  const started = Date.now();
  const startFinished = progress.enqueued - progress.pending;
  process.on('SIGINT', () => {
    process.stdout.write(
      `\nstopped watching; the backfill goes on in the service. Run the same command to watch it again.\n`,
    );
    process.exit(130);
  });
  let lastLine = 0;
  for (;;) {
    const finished = Math.max(0, progress.enqueued - progress.pending);
    const seconds = (Date.now() - started) / 1000;
    const rate = seconds > 0 ? (finished - startFinished) / seconds : 0;
    const left =
      progress.pending +
      (progress.status === 'running' ? Math.max(0, (options.limit ?? progress.listed) - progress.listed) : 0);
    const eta = rate > 0 ? `${Math.ceil(left / rate)}s` : '?';
    const text =
      `${bar(finished, progress.enqueued)} ${finished}/${progress.enqueued} enriched, ` +
      `${progress.listed} listed, ${progress.skipped} skipped, ${rate.toFixed(1)}/s, ETA ${eta}`;
    if (tty) process.stdout.write(`\r${text}`);
    else if (progress.done || Date.now() - lastLine >= 5_000) {
      process.stdout.write(`${text}\n`);
      lastLine = Date.now();
    }
    if (progress.done) break;
    await new Promise((r) => setTimeout(r, 1_000));
    progress = await call<Progress>('GET', path);
  }
  process.stdout.write(
    `${tty ? '\n' : ''}backfill of ${options.connection} ${options.object} done: ${progress.enqueued} records ` +
      `enqueued, ${progress.skipped} skipped (no match key, or already enriched)\n`,
  );
}

export async function backfillDryRun(options: BackfillOptions): Promise<void> {
  checkLimit(options.limit);
  const report = await client(options.url)<DryRunReport>('POST', '/backfills/dry-run', {
    connection: options.connection,
    object: options.object,
    limit: options.limit ?? null,
    ...listFields(options),
    ...segmentBody(options),
  }).catch(asFlags);
  const segment = report.segment;
  const members = report.listId === null ? '' : ` (members of list ${report.listId})`;
  const lines = [
    `would spend at most ${report.credits} credits`,
    `dry run of a backfill of ${report.connection} ${report.object}${members}: nothing was enqueued`,
    ...(segment?.missing ? [`  records missing ${segment.missing} that a lookup could fill`] : []),
    ...(segment?.where.length
      ? [`  where ${segment.where.map((c) => `${c.property} ${c.op} ${c.value ?? ''}`.trim()).join(' and ')}`]
      : []),
    `  ${report.listed} records listed: ${report.wouldEnrich} would be enriched, ${report.skipped} skipped ` +
      (segment ? '(outside the segment, no match key, or nothing to gain)' : '(no match key, or already enriched)'),
  ];
  if (report.companies) {
    const c = report.companies;
    lines.push(
      `  ${c.wouldLink} would be linked with their employer's company: ${c.existing} of those companies ` +
        `exist, at most ${c.wouldCreateAtMost} would be created`,
      `  ${c.unknownEmployer} have a free-mail address or none: linked only if the partner names their employer`,
      `  (${c.note})`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

export interface RefreshOptions {
  connection?: string;
  object?: string;
  list?: string;
  listName?: string;
  url?: string;
}

export async function refresh(options: RefreshOptions): Promise<void> {
  const list = listFields(options);
  if (list.listId !== undefined || list.listName !== undefined) {
    if (!options.connection || !options.object) throw new Error('--list needs --connection and --object');
    const report = await client(options.url)<ListRefreshReport>('POST', '/refresh', {
      connection: options.connection,
      object: options.object,
      ...list,
    });
    process.stdout.write(
      `enqueued a refresh of ${report.enqueued} of the ${report.members} members of ${report.connection} ` +
        `${report.object} list ${report.listId}; ${report.notEnriched} were never enriched (a backfill with the ` +
        'same --list enriches them)\n',
    );
    return;
  }
  if (options.connection || options.object) throw new Error('--connection and --object go with --list');
  const result = await client(options.url)<{ refresh: number; catchup: number }>('POST', '/refresh');
  process.stdout.write(
    `enqueued ${result.refresh} stale records and ${result.catchup} records no webhook told us about\n`,
  );
}
