/**
 * Backfill runs inside the service: started from the admin API (which the CLI calls), listed page
 * by page in the background, resumed after a restart, and reported with how much work is left; their dry
 * runs; and the refresh of one CRM list's members, the other listing an admin asks for by segment.
 */
import { AppError } from '../../core/errors.js';
import type { CrmConnector } from '../../core/connector.js';
import { driveBackfill, readBackfill, startBackfill, type BackfillDeps, type BackfillRun } from './backfill.js';
import { checkSegment, parseCondition, SegmentError, type Segment } from './segment.js';
import { mappedProperties } from './health-counts.js';
import { propertiesToRead } from '../record/read-properties.js';
import { backfillDryRun, type DryRunReport } from './backfill-dry-run.js';
import { queueName } from '../jobs.js';
import { logger } from '../../logger.js';
import { resolveMappedObject, type MappedObject } from './mapped-object.js';
import { ListSegmentError, resolveList, type ListRef } from './list-segment.js';
import { refreshList, type ListRefreshReport } from './list-refresh.js';
import type { CompiledMapping } from '../../mapping/index.js';
import type { Store } from '../../store/store.js';

const log = logger('service.backfill');

export interface BackfillProgress extends BackfillRun {
  /** Jobs of this object still waiting or running (all reasons). */
  pending: number;
  done: boolean;
}

export type BackfillErrorCode =
  | 'unknown_connection'
  | 'unknown_object'
  | 'unknown_list'
  | 'unusable_list'
  | 'segment_not_supported'
  | 'invalid_segment'
  | 'backfill_running';

export class BackfillError extends AppError {
  declare readonly code: BackfillErrorCode;
  constructor(
    code: BackfillErrorCode,
    message: string,
    /** The request field at fault. */
    readonly field: string = { unknown_connection: 'connection', unknown_object: 'object', backfill_running: 'object' }[
      code as string
    ] ?? 'listId',
  ) {
    super(code, message, 'permanent', { field });
  }
}

/** Runs work on a CRM list, its refusals as BackfillErrors naming the request's field. */
async function onList<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ListSegmentError) throw new BackfillError(error.code, error.message, error.field);
    throw error;
  }
}

/** A segment as the admin API and the CLI write it: a property's name, and conditions as text. */
export interface SegmentInput {
  missing?: string | null | undefined;
  where?: readonly string[] | null | undefined;
}

export class Backfills {
  private readonly running = new Map<string, { abort: AbortController; done: Promise<unknown> }>();
  private stopped = false;

  constructor(
    private readonly deps: BackfillDeps,
    private readonly connectors: CrmConnector[],
    private readonly mapping: (crm: string, objectType: string) => CompiledMapping | undefined,
    private readonly store: {
      readonly companies: Pick<Store['companies'], 'created'>;
      readonly queue: Pick<Store['queue'], 'counts'>;
    },
    private readonly companies: {
      freeMail: { has(domain: string): boolean };
      creates: (connector: CrmConnector) => boolean;
    } = { freeMail: { has: () => false }, creates: () => true },
  ) {}

  private resolve(connection: string, object: string): MappedObject {
    return resolveMappedObject(
      this.connectors,
      this.mapping,
      connection,
      object,
      (code, message) => new BackfillError(code, message),
    );
  }

  /**
   * Starts a run, or returns the one already listing this object. With `list`, the segment is the members
   * of that CRM list (a HubSpot list, a Salesforce list view or report), resolved and checked here so a
   * wrong id or name is refused at once.
   */
  async start(
    connection: string,
    object: string,
    limit: number | null,
    list: ListRef | null = null,
    segmentInput: SegmentInput = {},
  ): Promise<BackfillProgress> {
    const { connector, objectType, mapping } = this.resolve(connection, object);
    const segment = await this.segmentOf(connector, objectType, mapping, segmentInput);
    const listId = list === null ? null : await onList(() => resolveList(connector, objectType, list));
    const running = await readBackfill(this.deps.kv, connector.connection, objectType);
    if (running?.status === 'running' && !sameSegment(running, listId, segment))
      throw new BackfillError(
        'backfill_running',
        `a backfill of ${connector.connection} ${objectType} (${describeSegment(running)}) is still listing; ` +
          `watch it with GET /admin/api/backfills/${connector.connection}/${objectType} and start this one after it`,
      );
    const run = await startBackfill(this.deps, connector.connection, objectType, limit, listId, segment);
    this.drive(connector, mapping, run);
    return this.progress(connection, objectType);
  }

  /**
   * The segment asked for, checked against the object: `missing` must be a mapped property, a condition's
   * property one the mapping reads or the CRM's schema lists. Null when none is asked for.
   */
  private async segmentOf(
    connector: CrmConnector,
    objectType: string,
    mapping: CompiledMapping,
    input: SegmentInput,
  ): Promise<Segment | null> {
    const missing = input.missing ?? null;
    const texts = input.where ?? [];
    if (missing === null && texts.length === 0) return null;
    try {
      const segment: Segment = { missing, where: texts.map(parseCondition) };
      const known = new Set(propertiesToRead(connector, objectType, mapping).map((p) => p.toLowerCase()));
      if (segment.where.some((c) => !known.has(c.property.toLowerCase())))
        for (const p of await connector.readSchema(objectType)) known.add(p.name.toLowerCase());
      checkSegment(segment, mappedProperties(mapping), known, `${connector.connection} ${objectType}`);
      return segment;
    } catch (error) {
      if (error instanceof SegmentError) throw new BackfillError('invalid_segment', error.message, error.field);
      throw error;
    }
  }

  /**
   * What a backfill of this object (or of `list`'s members, or of a segment) would enqueue, link and
   * create, without enqueuing anything.
   */
  async dryRun(
    connection: string,
    object: string,
    limit: number | null,
    list: ListRef | null = null,
    segmentInput: SegmentInput = {},
  ): Promise<DryRunReport> {
    const { connector, objectType, mapping } = this.resolve(connection, object);
    const segment = await this.segmentOf(connector, objectType, mapping, segmentInput);
    return onList(async () => {
      const listId = list === null ? null : await resolveList(connector, objectType, list, false);
      const deps = {
        ...this.deps,
        ...this.companies,
        created: (c: string, d: string[]) => this.store.companies.created(c, d),
      };
      return backfillDryRun(deps, connector, objectType, mapping, limit, listId, segment);
    });
  }

  /** Enqueues a refresh of the members of `list` that crm-enrich enriched before, due or not. */
  async refreshList(connection: string, object: string, list: ListRef): Promise<ListRefreshReport> {
    const { connector, objectType } = this.resolve(connection, object);
    const report = await onList(async () => {
      const listId = await resolveList(connector, objectType, list, false);
      return refreshList(this.deps, connector, objectType, listId);
    });
    return report;
  }

  async progress(connection: string, object: string): Promise<BackfillProgress> {
    const { connector, objectType } = this.resolve(connection, object);
    const run = await readBackfill(this.deps.kv, connector.connection, objectType);
    if (!run) throw new BackfillError('unknown_object', `no backfill has run for ${connection} ${objectType}`);
    const counts = (await this.store.queue.counts()).find(
      (q) => q.queue === queueName(connector.connection, objectType),
    );
    const pending = (counts?.depth ?? 0) + (counts?.active ?? 0);
    return { ...run, pending, done: run.status === 'listed' && pending === 0 };
  }

  /** Picks up every run that was still listing when the service last stopped. */
  resumeAll(): void {
    for (const connector of this.connectors) {
      for (const objectType of connector.objectTypes) {
        const mapping = this.mapping(connector.crm, objectType);
        if (mapping) this.resume(connector, objectType, mapping);
      }
    }
  }

  private resume(connector: CrmConnector, objectType: string, mapping: CompiledMapping): void {
    readBackfill(this.deps.kv, connector.connection, objectType).then(
      (run) => {
        if (run?.status === 'running' && !this.stopped) {
          log.info(
            { connection: run.connection, objectType: run.objectType, listed: run.listed },
            'resuming a backfill',
          );
          this.drive(connector, mapping, run);
        }
      },
      (error: unknown) => {
        // The database is away (a restart, a failover): look again once it may be back.
        if (this.stopped) return;
        log.warn(
          { err: error, connection: connector.connection, objectType },
          'could not check for an unfinished backfill; looking again in 10 s',
        );
        setTimeout(() => this.resume(connector, objectType, mapping), 10_000).unref();
      },
    );
  }

  private drive(connector: CrmConnector, mapping: CompiledMapping, run: BackfillRun): void {
    const key = `${run.connection}/${run.objectType}`;
    if (this.running.has(key)) return;
    const abort = new AbortController();
    const done = driveBackfill(this.deps, connector, mapping, run, abort.signal)
      .catch((error: unknown) =>
        log.error(
          { err: error, connection: run.connection, objectType: run.objectType },
          'backfill listing stopped; it resumes on the next start or request',
        ),
      )
      .finally(() => this.running.delete(key));
    this.running.set(key, { abort, done });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const { abort } of this.running.values()) abort.abort();
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }
}

function sameSegment(run: BackfillRun, listId: string | null, segment: Segment | null): boolean {
  return run.listId === listId && JSON.stringify(run.segment) === JSON.stringify(segment);
}

function describeSegment(run: BackfillRun): string {
  const parts = [
    run.listId === null ? undefined : `list ${run.listId}`,
    run.segment?.missing ? `missing ${run.segment.missing}` : undefined,
    ...(run.segment?.where ?? []).map((c) => `${c.property} ${c.op}${c.value === undefined ? '' : ` ${c.value}`}`),
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'every record';
}
