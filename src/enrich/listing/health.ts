/**
 * Data-health scans inside the service: started from the admin API (which the CLI, the admin page and the
 * MCP tool call), read in the background, resumed after a restart, and reported with the trend of the
 * finished runs.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../../core/errors.js';
import { connectorFor } from '../../core/connector-lookup.js';
import type { CrmConnector } from '../../core/connector.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import type { HealthRunRow, HealthRuns } from '../../store/health-runs.js';
import { logger } from '../../logger.js';
import { resolveMappedObject, type MappedObject } from './mapped-object.js';
import { companyLinkProperty } from '../record/read-properties.js';
import { emptyCounts, HealthCounts } from './health-counts.js';
import { driveHealthScan, type HealthScanDeps } from './health-scan.js';

const log = logger('service.health');

export class HealthError extends AppError {
  declare readonly code: 'unknown_connection' | 'unknown_object' | 'no_report';
  constructor(code: 'unknown_connection' | 'unknown_object' | 'no_report', message: string) {
    super(code, message, 'permanent');
  }
}

export interface HealthRunView {
  id: string;
  status: 'running' | 'done';
  startedAt: string;
  finishedAt: string | null;
  records: number;
  /** Filled per property at the end of the run (so far, while it runs). */
  filled: Record<string, number>;
}

/** The latest finished scan of an object; its first fields are the report's stable JSON form. */
export type HealthReport = { connection: string; object: string } & HealthCounts & {
    scannedAt: string;
    /** The scan running now, if one is. */
    running: HealthRunView | null;
    /** Every kept run, oldest first. */
    trend: HealthRunView[];
  };

type Runs = Pick<HealthRuns, 'running' | 'allRunning' | 'start' | 'save' | 'restart' | 'seenDomains' | 'list'>;

const view = (row: HealthRunRow): HealthRunView => {
  const counts = HealthCounts.parse(row.counts);
  return {
    id: row.id,
    status: row.status,
    startedAt: row.startedAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
    records: counts.records,
    filled: Object.fromEntries(counts.properties.map((p) => [p.property, p.filled])),
  };
};

export class DataHealth {
  private readonly running = new Map<string, { abort: AbortController; done: Promise<unknown> }>();
  private stopped = false;

  constructor(
    private readonly deps: Omit<HealthScanDeps, 'runs'> & { runs: Runs },
    private readonly connectors: readonly CrmConnector[],
    private readonly mapping: (crm: string, objectType: string) => CompiledMapping | undefined,
  ) {}

  private resolve(connection: string, object: string): MappedObject {
    return resolveMappedObject(
      this.connectors,
      this.mapping,
      connection,
      object,
      (code, message) => new HealthError(code, message),
    );
  }

  /** Starts a scan of the object, or joins the one running; its progress. */
  async start(connection: string, object: string): Promise<HealthRunView> {
    const { connector, objectType, mapping } = this.resolve(connection, object);
    const linked = !!companyLinkProperty(connector, objectType, mapping);
    const run = await this.deps.runs.start(
      randomUUID(),
      connector.connection,
      objectType,
      emptyCounts(mapping, linked),
    );
    this.drive(connector, objectType, mapping, run);
    return view(run);
  }

  /** The latest finished scan's counts, the running one's progress and the trend. */
  async report(connection: string, object: string): Promise<HealthReport> {
    const { connector, objectType } = this.resolve(connection, object);
    const runs = await this.deps.runs.list(connector.connection, objectType);
    const latest = runs.find((r) => r.status === 'done');
    const running = runs.find((r) => r.status === 'running');
    if (!latest)
      throw new HealthError(
        'no_report',
        `no data-health scan of ${connector.connection} ${objectType} has finished yet` +
          (running ? ' (one is running)' : '; start one with POST /admin/data-health/<connection>/<object>/runs'),
      );
    return {
      connection: connector.connection,
      object: objectType,
      ...HealthCounts.parse(latest.counts),
      scannedAt: (latest.finishedAt ?? latest.startedAt).toISOString(),
      running: running ? view(running) : null,
      trend: runs
        .filter((r) => r.status === 'done')
        .reverse()
        .map(view),
    };
  }

  /** The object's running scan, if one is, and when the latest finished (null before the first). */
  async progress(
    connection: string,
    object: string,
  ): Promise<{ running: HealthRunView | null; lastScanAt: string | null }> {
    const { connector, objectType } = this.resolve(connection, object);
    const runs = await this.deps.runs.list(connector.connection, objectType);
    const running = runs.find((r) => r.status === 'running');
    const last = runs.find((r) => r.status === 'done');
    return { running: running ? view(running) : null, lastScanAt: last?.finishedAt?.toISOString() ?? null };
  }

  /** Picks up every scan that was still reading when the service last stopped. */
  resumeAll(): void {
    this.deps.runs.allRunning().then(
      (runs) => {
        for (const run of runs) {
          const connector = connectorFor(this.connectors, { connection: run.connection });
          const mapping = connector && this.mapping(connector.crm, run.objectType);
          if (!connector || !mapping || this.stopped) continue;
          log.info({ connection: run.connection, objectType: run.objectType }, 'resuming a data-health scan');
          this.drive(connector, run.objectType, mapping, run);
        }
      },
      (error: unknown) => {
        if (this.stopped) return;
        log.warn({ err: error }, 'could not check for unfinished data-health scans; looking again in 10 s');
        setTimeout(() => this.resumeAll(), 10_000).unref();
      },
    );
  }

  private drive(connector: CrmConnector, objectType: string, mapping: CompiledMapping, run: HealthRunRow): void {
    const key = `${connector.connection}/${objectType}`;
    if (this.running.has(key) || this.stopped) return;
    const abort = new AbortController();
    const done = driveHealthScan(this.deps, connector, objectType, mapping, run, abort.signal)
      .catch((error: unknown) =>
        log.error(
          { err: error, connection: connector.connection, objectType },
          'data-health scan stopped; it resumes on the next start or request',
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
