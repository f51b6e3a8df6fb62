/**
 * Keeps the admin page's charts fed: counts what happens (job outcomes, partner requests, cache hits,
 * CRM calls) in memory, per minute, and writes them to stat_series every few seconds in one upsert,
 * so a busy lane costs no extra query per job. Each flush also samples the gauges (queue depth, the
 * oldest waiting job's age). Counts from several instances add up in the table; a failed write keeps
 * its counts for the next flush, up to a bound, so a database outage loses at most the overflow.
 */
import { logger } from '../logger.js';
import { GAUGE_PREFIX, minuteOf, type SeriesPoint } from './stat-series.js';

const log = logger('service.stats');

/** Names written to stat_series; the admin series route reads the same ones. */
export const SERIES = {
  job: (outcome: string) => `jobs.${outcome}`,
  partnerRequests: 'partner.requests',
  cacheHits: 'lookups.cache_hit',
  cacheMisses: 'lookups.cache_miss',
  crmCalls: (connection: string) => `crm.${connection}.calls`,
  queueDepth: `${GAUGE_PREFIX}queue_depth`,
  oldestJobAge: `${GAUGE_PREFIX}oldest_job_age_seconds`,
} as const;

export interface RecorderOptions {
  write(points: SeriesPoint[]): Promise<void>;
  /** Waiting and running jobs, and the oldest waiting job's age in seconds. */
  backlog(): Promise<{ depth: number; oldestAgeSeconds: number | null }>;
  /** Calls made so far by each CRM connection (the connectors count in process, from start). */
  crmCalls(): Record<string, number>;
  flushMs?: number;
  /** Minute-and-name rows kept across failed writes before the oldest are dropped. */
  maxPending?: number;
  now?: () => Date;
}

export class StatsRecorder {
  private pending = new Map<string, SeriesPoint>();
  private readonly crmSeen = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly options: RecorderOptions) {}

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  count(name: string, by = 1): void {
    if (by <= 0) return;
    const bucket = minuteOf(this.now());
    const key = `${bucket.getTime()}\u0000${name}`;
    const point = this.pending.get(key);
    if (point) point.value += by;
    else this.pending.set(key, { bucket, name, value: by });
  }

  private gauge(name: string, value: number): void {
    const bucket = minuteOf(this.now());
    const key = `${bucket.getTime()}\u0000${name}`;
    const point = this.pending.get(key);
    this.pending.set(key, { bucket, name, value: Math.max(point?.value ?? 0, value) });
  }

  /** Samples the gauges and CRM call counts, then writes everything counted since the last flush. */
  flush(): Promise<void> {
    // One flush at a time: the timer's and shutdown's must not write the same counts twice.
    this.flushing = this.flushing.then(() => this.flushNow());
    return this.flushing;
  }

  private async flushNow(): Promise<void> {
    for (const [connection, calls] of Object.entries(this.options.crmCalls())) {
      this.count(SERIES.crmCalls(connection), calls - (this.crmSeen.get(connection) ?? 0));
      this.crmSeen.set(connection, calls);
    }
    try {
      const backlog = await this.options.backlog();
      this.gauge(SERIES.queueDepth, backlog.depth);
      if (backlog.oldestAgeSeconds !== null) this.gauge(SERIES.oldestJobAge, Math.round(backlog.oldestAgeSeconds));
    } catch (error) {
      log.warn({ err: error }, 'could not sample the queue for the stats charts; trying again at the next flush');
    }
    const points = [...this.pending.values()];
    if (points.length === 0) return;
    this.pending = new Map();
    try {
      await this.options.write(points);
    } catch (error) {
      log.warn(
        { err: error, rows: points.length },
        "could not write the stats charts' counts; they are kept for the next flush",
      );
      this.keep(points);
    }
  }

  /** Puts unwritten counts back, merged with what was counted meanwhile, newest kept when over the bound. */
  private keep(points: SeriesPoint[]): void {
    const counted = this.pending;
    this.pending = new Map();
    for (const p of [...points, ...counted.values()]) {
      const key = `${p.bucket.getTime()}\u0000${p.name}`;
      const seen = this.pending.get(key);
      if (!seen) this.pending.set(key, { ...p });
      else seen.value = p.name.startsWith(GAUGE_PREFIX) ? Math.max(seen.value, p.value) : seen.value + p.value;
    }
    const max = this.options.maxPending ?? 50_000;
    if (this.pending.size <= max) return;
    const newest = [...this.pending.entries()]
      .sort(([, a], [, b]) => b.bucket.getTime() - a.bucket.getTime())
      .slice(0, max);
    this.pending = new Map(newest);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.options.flushMs ?? 10_000);
    this.timer.unref();
  }

  /** Stops the timer and writes what is left; call before the store closes. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
