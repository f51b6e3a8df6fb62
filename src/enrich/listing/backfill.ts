/**
 * Backfill: page through every existing record of one CRM object (whole-object.ts: more records than the
 * connector's bulk threshold through its bulk export; list-segment.ts: a CRM list's members) and enqueue
 * the ones with a match key as bulk work; or only a segment of them (segment.ts: the records missing one
 * property, those meeting conditions on their own properties), chosen page by page by fill-selection.ts.
 * The run's cursor (and segment) is saved after every page, so a run that is interrupted (or a service that
 * is killed) picks up where it stopped; dedup keys make a page enqueued twice one set of jobs, and records
 * we already hold fresh state for are not enqueued at all.
 */
import { propertiesToRead } from '../record/read-properties.js';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { CrmConnector, RecordPage } from '../../core/connector.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import { logger } from '../../logger.js';
import { queueName } from '../jobs.js';
import { listMembers, memberPage } from './list-segment.js';
import type { PartnerLookups } from '../partner-lookups.js';
import type { EnqueuePort, KeyValuePort, NewJob, StalePort } from '../ports.js';
import { ExportGoneError, readWholeObject } from './whole-object.js';
import { selectForBackfill, type SelectionDeps } from './fill-selection.js';
import { listingConditions, Segment } from './segment.js';

const log = logger('enrich.backfill');

export const BackfillRun = z.object({
  id: z.string(),
  connection: z.string(),
  objectType: z.string(),
  limit: z.number().int().positive().nullable(),
  /**
   * The CRM list whose members are the segment (a HubSpot list, a Salesforce list view or report: its id,
   * a name resolved when the run started); null for every record of the object.
   */
  listId: z.string().nullable().default(null),
  /** Only these records of the object (or of the list): "fill the gaps"; null for all of them. */
  segment: Segment.nullable().default(null),
  cursor: z.string().nullable(),
  listed: z.number().int(),
  enqueued: z.number().int(),
  skipped: z.number().int(),
  status: z.enum(['running', 'listed']),
  startedAt: z.string(),
  listedAt: z.string().nullable(),
});
export type BackfillRun = z.infer<typeof BackfillRun>;

export interface BackfillDeps extends SelectionDeps {
  kv: KeyValuePort;
  queue: EnqueuePort;
  stale: StalePort;
  pageSize?: number;
  /**
   * Resolves when the object's queue has room for another page. Listing no faster than the lane
   * enriches keeps each job's snapshot fresh, so the lane need not read the record again.
   */
  room?: (queue: string) => Promise<void>;
  /** The partner lookups' cost preview, for dry runs. */
  lookups?: Pick<PartnerLookups, 'creditsFor'>;
}

/**
 * Records per page of a bulk read (one Salesforce API call each), enqueued together: big enough to spend
 * few calls, small enough that a page's snapshots are still fresh when the lane reaches its last job.
 */
export const BACKFILL_BULK_PAGE = 2000;

const runKey = (connection: string, objectType: string) => `backfill:${connection}:${objectType}`;

export async function readBackfill(
  kv: KeyValuePort,
  connection: string,
  objectType: string,
): Promise<BackfillRun | undefined> {
  const raw = await kv.get(runKey(connection, objectType));
  return raw ? BackfillRun.parse(JSON.parse(raw)) : undefined;
}

/** The run for this object: the one still listing if there is one, otherwise a new one. */
export async function startBackfill(
  deps: BackfillDeps,
  connection: string,
  objectType: string,
  limit: number | null,
  listId: string | null = null,
  segment: Segment | null = null,
): Promise<BackfillRun> {
  const existing = await readBackfill(deps.kv, connection, objectType);
  if (existing?.status === 'running') return existing;
  const run: BackfillRun = {
    id: randomUUID(),
    connection,
    objectType,
    limit,
    listId,
    segment,
    cursor: null,
    listed: 0,
    enqueued: 0,
    skipped: 0,
    status: 'running',
    startedAt: new Date().toISOString(),
    listedAt: null,
  };
  await deps.kv.set(runKey(connection, objectType), JSON.stringify(run));
  return run;
}

/** Lists and enqueues until the run is done or `signal` aborts; safe to call again after a crash. */
export async function driveBackfill(
  deps: BackfillDeps,
  connector: CrmConnector,
  mapping: CompiledMapping,
  start: BackfillRun,
  signal?: AbortSignal,
): Promise<BackfillRun> {
  let run = { ...start };
  const pageSize = Math.min(deps.pageSize ?? connector.batchSize, connector.batchSize);
  // A list's members are read once per drive (ids only); the cursor is the offset into them.
  const members = run.listId === null ? undefined : await listMembers(connector, run.objectType, run.listId);
  while (run.status === 'running' && !signal?.aborted) {
    const left = run.limit === null ? Number.POSITIVE_INFINITY : run.limit - run.listed;
    if (left <= 0) break;
    await deps.room?.(queueName(run.connection, run.objectType));
    if (signal?.aborted) break;
    const read = readForSegment(propertiesToRead(connector, run.objectType, mapping), run.segment);
    let page: RecordPage;
    try {
      page = members
        ? await memberPage(connector, run.objectType, members, run.cursor, Math.min(pageSize, left), read)
        : await readWholeObject(connector, {
            objectType: run.objectType,
            properties: read,
            cursor: run.cursor ?? undefined,
            listPageSize: Math.min(pageSize, left),
            bulkPageSize: Math.min(BACKFILL_BULK_PAGE, left),
            limit: run.limit,
            ...(run.segment ? { where: listingConditions(run.segment) } : {}),
            signal,
          });
    } catch (error) {
      if (signal?.aborted) break;
      if (!(error instanceof ExportGoneError)) throw error;
      // Listed again from the first record: dedup keys and fresh state keep what was enqueued from repeating.
      log.warn({ connection: run.connection, objectType: run.objectType, err: error }, 'backfill lists again');
      run = { ...run, cursor: null, listed: 0, skipped: 0 };
      continue;
    }
    const records = page.records.slice(0, left);
    const target = { connection: run.connection, objectType: run.objectType, mapping };
    const { todo } = await selectForBackfill(deps, target, run.segment, records, false);
    const at = new Date().toISOString();
    const jobs: NewJob[] = todo.map((r) => ({
      queue: queueName(run.connection, run.objectType),
      dedupKey: `backfill:${run.id}:${r.id}`,
      priority: 'bulk',
      data: {
        connection: run.connection,
        objectType: run.objectType,
        recordId: r.id,
        reason: 'backfill',
        snapshot: { at, read, properties: r.properties },
      },
    }));
    // Storing the page wakes this instance's lane (waking-enqueue.ts): it claims now rather than at its
    // next poll, up to a second of an idle partner key at the start of every backfill.
    const { inserted } = jobs.length ? await deps.queue.enqueue(jobs) : { inserted: 0 };
    run = {
      ...run,
      cursor: page.next ?? null,
      listed: run.listed + records.length,
      enqueued: run.enqueued + inserted,
      skipped: run.skipped + (records.length - jobs.length),
    };
    if (!page.next || (run.limit !== null && run.listed >= run.limit))
      run = { ...run, status: 'listed', listedAt: new Date().toISOString() };
    await deps.kv.set(runKey(run.connection, run.objectType), JSON.stringify(run));
  }
  if (run.status === 'listed')
    log.info(
      { connection: run.connection, objectType: run.objectType, listed: run.listed, enqueued: run.enqueued },
      'backfill listed every record',
    );
  return run;
}

/** What to read of each record: what the mapping plans with, and the properties the segment's conditions name. */
export function readForSegment(read: string[], segment: Segment | null): string[] {
  if (!segment) return read;
  const have = new Set(read.map((p) => p.toLowerCase()));
  const extra = segment.where.map((c) => c.property).filter((p) => !have.has(p.toLowerCase()));
  return [...read, ...new Set(extra)];
}
