/**
 * Backfill runs inside the service: started from the admin API (which the CLI calls), listed page
 * by page in the background, resumed after a restart, and reported with how much work is left; their dry
 * runs; and the refresh of one CRM list's members, the other listing an admin asks for by segment.
 */
import { AppError } from '../../core/errors.js';
import type { CrmConnector } from '../../core/connector.js';
import { driveBackfill, readBackfill, startBackfill, type BackfillDeps, type BackfillRun } from './backfill.js';
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
  'unknown_connection' | 'unknown_object' | 'unknown_list' | 'unusable_list' | 'segment_not_supported';

export class BackfillError extends AppError {
  declare readonly code: BackfillErrorCode;
  constructor(
    code: BackfillErrorCode,
    message: string,
    /** The request field at fault. */
    readonly field: string = { unknown_connection: 'connection', unknown_object: 'object' }[code as string] ?? 'listId',
  ) {
    super(code, message, 'permanent', { field });
  }
}

/** Runs work on a CRM list, its refusals as BackfillErrors naming the request's field. */
async function segment<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ListSegmentError) throw new BackfillError(error.code, error.message, error.field);
    throw error;
  }
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
  ): Promise<BackfillProgress> {
    const { connector, objectType, mapping } = this.resolve(connection, object);
    const listId = list === null ? null : await segment(() => resolveList(connector, objectType, list));
    const run = await startBackfill(this.deps, connector.connection, objectType, limit, listId);
    this.drive(connector, mapping, run);
    return this.progress(connection, objectType);
  }

  /**
   * What a backfill of this object (or of `list`'s members) would enqueue, link and create, without
   * enqueuing anything.
   */
  async dryRun(
    connection: string,
    object: string,
    limit: number | null,
    list: ListRef | null = null,
  ): Promise<DryRunReport> {
    const { connector, objectType, mapping } = this.resolve(connection, object);
    return segment(async () => {
      const listId = list === null ? null : await resolveList(connector, objectType, list, false);
      const deps = {
        stale: this.deps.stale,
        ...this.companies,
        created: (c: string, d: string[]) => this.store.companies.created(c, d),
        lookups: this.deps.lookups,
      };
      return backfillDryRun(deps, connector, objectType, mapping, limit, listId);
    });
  }

  /** Enqueues a refresh of the members of `list` that crm-enrich enriched before, due or not. */
  async refreshList(connection: string, object: string, list: ListRef): Promise<ListRefreshReport> {
    const { connector, objectType } = this.resolve(connection, object);
    const report = await segment(async () => {
      const listId = await resolveList(connector, objectType, list, false);
      return refreshList(this.deps, connector, objectType, listId);
    });
    if (report.enqueued > 0) this.deps.wake?.(connector.connection, objectType);
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
