/**
 * The running service: the parts the composition root built (src/app/compose.ts), run. Starts the
 * lanes, the schedules, the event feed readers and the HTTP server (whose webhooks go to the intake, as
 * the feeds' events do), says whether it is ready,
 * and `stop` shuts them down in the order that loses nothing.
 */
import type { RequestListener, Server } from 'node:http';
import cron, { type ScheduledTask } from 'node-cron';
import { logger } from '../logger.js';
import type { ReadinessCheck } from '../server/readiness.js';
import { createHttpServer } from '../server/http-server.js';
import type { Parts } from './parts.js';

const log = logger('service');

/** The HTTP app, given the URL the service is reached on (known once it is bound) and its readiness checks. */
export type HttpApp = (publicUrl: string, readiness: ReadinessCheck[]) => RequestListener;

export interface LifecycleOptions {
  /** Skip the cron schedule (tests drive refreshes directly). */
  schedule?: boolean;
  app: HttpApp;
}

export class Service {
  private server: Server | undefined;
  private task: ScheduledTask | undefined;
  private discoveryTask: ScheduledTask | undefined;
  private jobChangeTask: ScheduledTask | undefined;
  /** The scheduled sweep under way, which stop lets finish before the connectors close. */
  private jobChangeSweep: Promise<unknown> | undefined;
  private mappingPoll: NodeJS.Timeout | undefined;
  private reaper: NodeJS.Timeout | undefined;
  readonly startedAt = new Date();

  constructor(
    readonly parts: Parts,
    private readonly options: LifecycleOptions,
  ) {}

  /** Starts the lanes, the schedule, unfinished backfills and the HTTP server. */
  async listen(port = this.parts.config.PORT, host = this.parts.config.HOST): Promise<string> {
    const { config, store, enricher, mappings } = this.parts;
    enricher.start();
    this.parts.stats.start();
    for (const feed of this.parts.feeds) feed.start();
    if (this.options.schedule !== false) {
      this.task = cron.schedule(
        config.REFRESH_CRON,
        async () => {
          await this.parts.refreshNow();
          await this.parts.housekeeping();
        },
        { name: 'crm-enrich-refresh', distributed: true, runCoordinator: store.cron, noOverlap: true },
      );
    }
    if (this.options.schedule !== false && config.DISCOVERY_CRON !== 'off') {
      this.discoveryTask = cron.schedule(
        config.DISCOVERY_CRON,
        async () => {
          await this.parts
            .discoverScheduledNow()
            .catch((error: unknown) =>
              log.error({ err: error }, 'scheduled discovery failed; it runs again at its next time'),
            );
        },
        { name: 'crm-enrich-discovery', distributed: true, runCoordinator: store.cron, noOverlap: true },
      );
    }
    if (this.options.schedule !== false && config.JOB_CHANGE_CRON !== 'off') {
      // The tick's time, not the clock's, names the sweep's jobs: one tick is one sweep whoever runs it.
      this.jobChangeTask = cron.schedule(
        config.JOB_CHANGE_CRON,
        async (context) => {
          this.jobChangeSweep = this.sweepJobChanges(context.date);
          await this.jobChangeSweep;
        },
        { name: 'crm-enrich-job-changes', distributed: true, runCoordinator: store.cron, noOverlap: true },
      );
    }
    this.mappingPoll = setInterval(() => {
      mappings
        .reload()
        .catch((error: unknown) =>
          log.error({ err: error }, 'an active mapping saved elsewhere is invalid here; the previous one stays'),
        );
    }, 10_000);
    this.mappingPoll.unref();
    // Every instance looks for jobs whose holder stopped vouching for them (a killed or frozen
    // process): they go back at once, without spending an attempt.
    const beat = config.CRM_ENRICH_HEARTBEAT_SECONDS;
    this.reaper = setInterval(() => {
      store.queue
        .reclaimStale(enricher.queues, 3 * beat)
        .then((n) => {
          if (n === 0) return;
          log.info({ jobs: n }, 'jobs whose worker stopped giving heartbeats are handed out again');
          enricher.wakeAll();
        })
        .catch((error: unknown) =>
          log.warn({ err: error }, 'could not look for jobs of stopped workers; trying again shortly'),
        );
    }, beat * 1000);
    this.reaper.unref();
    this.parts.backfills.resumeAll();
    this.parts.health.resumeAll();
    this.parts.files.resumeAll();
    this.parts.callbacks.start();

    // Bind first: HubSpot signs the URL it calls, so the app must know the port it is reached on.
    const server = createHttpServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const address = server.address();
    const bound = typeof address === 'object' && address ? address.port : port;
    const url = `http://127.0.0.1:${bound}`;
    server.on('request', this.options.app(config.PUBLIC_URL ?? url, this.readiness()));
    this.server = server;
    return url;
  }

  /** One scheduled job-change sweep, each segment's outcome logged. */
  private async sweepJobChanges(now: Date): Promise<void> {
    for (const result of await this.parts.sweepJobChangesNow(now)) {
      if ('error' in result) log.error(result, 'a scheduled job-change sweep failed; it runs again at its next time');
      else log.info(result, 'scheduled job-change sweep');
    }
  }

  /** What /ready checks: the database, the queue, the shared limiter where there is one, an active mapping. */
  private readiness(): ReadinessCheck[] {
    const { config, store, limiter, mappings } = this.parts;
    return [
      { name: 'database', check: async () => void (await store.db.query('SELECT 1')) },
      { name: 'queue', check: async () => void (await store.queue.counts()) },
      // Without Redis no lookup can be checked against the shared limit, so none is sent; webhooks
      // are still stored, so the instance stays in the load balancer and says what is wrong.
      ...(config.REDIS_URL ? [{ name: 'rate_limiter', check: () => limiter.check(), required: false }] : []),
      {
        name: 'mappings',
        check: async () => {
          if (mappings.list().length === 0) throw new Error('no mapping is active for any configured CRM');
        },
      },
    ];
  }

  /**
   * Stops taking work and gives the work under way CRM_ENRICH_SHUTDOWN_SECONDS: lookups that have
   * not gone out are put back at once, the rest finish and their writes are sent; what is still
   * unfinished at the deadline is put back too. Nothing spends an attempt. Then closes every connection.
   */
  async stop(): Promise<void> {
    const { config, store, enricher, connectors } = this.parts;
    const deadlineMs = config.CRM_ENRICH_SHUTDOWN_SECONDS * 1000;
    log.info(
      { deadlineSeconds: deadlineMs / 1000 },
      'shutting down: no new work is claimed; work under way gets until the deadline',
    );
    await this.task?.stop();
    await this.task?.destroy?.();
    await this.discoveryTask?.stop();
    await this.discoveryTask?.destroy?.();
    await this.jobChangeTask?.stop();
    await this.jobChangeTask?.destroy?.();
    await this.jobChangeSweep?.catch(() => undefined);
    // What a feed reader has read is stored before it stops; the rest is read again by the next start.
    await Promise.all(this.parts.feeds.map((f) => f.stop()));
    if (this.mappingPoll) clearInterval(this.mappingPoll);
    if (this.reaper) clearInterval(this.reaper);
    const serverClosed = this.server
      ? new Promise<void>((resolve) => this.server!.close(() => resolve()))
      : Promise.resolve();
    this.server?.closeIdleConnections();
    await this.parts.backfills.stop();
    await this.parts.files.stop();
    await this.parts.health.stop();
    await this.parts.callbacks.stop();
    const lanes = enricher.stop({ deadlineMs });
    // The lanes no longer claim; stopping the limiter now refuses every lookup still waiting for a
    // slot, and the lanes put those jobs back for the next instance.
    await this.parts.limiter.stop();
    await lanes;
    this.server?.closeAllConnections();
    await serverClosed;
    await Promise.all(connectors.map((c) => c.close()));
    // Last, so the counts of the work finished during shutdown reach the charts too.
    await this.parts.stats.stop();
    await store.close();
  }
}
