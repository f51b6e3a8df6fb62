/**
 * Backfill runs inside the service: started from the admin API (which the CLI calls), listed page
 * by page in the background, resumed after a restart, and reported with how much work is left.
 */
import type { CrmConnector } from '../core/connector.js';
import { driveBackfill, readBackfill, startBackfill, type BackfillDeps, type BackfillRun } from '../enrich/backfill.js';
import { queueName } from '../enrich/jobs.js';
import { logger } from '../logger.js';
import type { CompiledMapping } from '../mapping/index.js';
import type { Store } from '../store/store.js';

const log = logger('service.backfill');

export interface BackfillProgress extends BackfillRun {
  /** Jobs of this object still waiting or running (all reasons). */
  pending: number;
  done: boolean;
}

export class BackfillError extends Error {
  constructor(readonly code: 'unknown_connection' | 'unknown_object', message: string) {
    super(message);
  }
}

export class Backfills {
  private readonly running = new Map<string, { abort: AbortController; done: Promise<unknown> }>();

  constructor(
    private readonly deps: BackfillDeps,
    private readonly connectors: CrmConnector[],
    private readonly mapping: (crm: string, objectType: string) => CompiledMapping | undefined,
    private readonly store: Store,
  ) {}

  private resolve(connection: string, object: string): { connector: CrmConnector; objectType: string; mapping: CompiledMapping } {
    const connector = this.connectors.find((c) => c.connection === connection);
    if (!connector) throw new BackfillError('unknown_connection', `no connection named "${connection}"; configured: ${this.connectors.map((c) => c.connection).join(', ') || 'none'}`);
    const objectType = connector.objectTypes.find((o) => o.toLowerCase() === object.toLowerCase());
    const mapping = objectType ? this.mapping(connector.kind, objectType) : undefined;
    if (!objectType || !mapping) {
      const mapped = connector.objectTypes.filter((o) => this.mapping(connector.kind, o));
      throw new BackfillError('unknown_object', `"${object}" is not a mapped object of ${connection}; mapped: ${mapped.join(', ') || 'none'}`);
    }
    return { connector, objectType, mapping };
  }

  /** Starts a run, or returns the one already listing this object. */
  async start(connection: string, object: string, limit: number | null): Promise<BackfillProgress> {
    const { connector, objectType, mapping } = this.resolve(connection, object);
    const run = await startBackfill(this.deps, connector.connection, objectType, limit);
    this.drive(connector, mapping, run);
    return this.progress(connection, objectType);
  }

  async progress(connection: string, object: string): Promise<BackfillProgress> {
    const { connector, objectType } = this.resolve(connection, object);
    const run = await readBackfill(this.deps.kv, connector.connection, objectType);
    if (!run) throw new BackfillError('unknown_object', `no backfill has run for ${connection} ${objectType}`);
    const counts = (await this.store.queue.counts()).find((q) => q.queue === queueName(connector.connection, objectType));
    const pending = (counts?.depth ?? 0) + (counts?.active ?? 0);
    return { ...run, pending, done: run.status === 'listed' && pending === 0 };
  }

  /** Picks up every run that was still listing when the service last stopped. */
  resumeAll(): void {
    for (const connector of this.connectors) {
      for (const objectType of connector.objectTypes) {
        const mapping = this.mapping(connector.kind, objectType);
        if (!mapping) continue;
        void readBackfill(this.deps.kv, connector.connection, objectType).then((run) => {
          if (run?.status === 'running') {
            log.info({ connection: run.connection, objectType: run.objectType, listed: run.listed }, 'resuming a backfill');
            this.drive(connector, mapping, run);
          }
        });
      }
    }
  }

  private drive(connector: CrmConnector, mapping: CompiledMapping, run: BackfillRun): void {
    const key = `${run.connection}/${run.objectType}`;
    if (this.running.has(key)) return;
    const abort = new AbortController();
    const done = driveBackfill(this.deps, connector, mapping, run, abort.signal)
      .catch((error: unknown) => log.error({ err: error, connection: run.connection, objectType: run.objectType }, 'backfill listing stopped; it resumes on the next start or request'))
      .finally(() => this.running.delete(key));
    this.running.set(key, { abort, done });
  }

  async stop(): Promise<void> {
    for (const { abort } of this.running.values()) abort.abort();
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }
}
