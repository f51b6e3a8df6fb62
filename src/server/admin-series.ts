/**
 * The admin page's charts, over one of four periods: enrichments by outcome, match rate, cache hits,
 * partner requests, CRM calls against each CRM's limit and the queue gauges (from stat_series, per
 * step), partner credits per day against the budget (the daily counters the budget itself uses), and
 * field coverage before and after (from the audit trail).
 */
import { LOOKUPS_COUNTER } from '../enrich/partner-lookups.js';
import { SERIES } from '../store/stats-recorder.js';
import { utcDay } from '../store/daily-counters.js';
import type { CallLimit } from '../core/connector.js';
import type { AdminContext } from './admin-context.js';
import { HttpError } from './http-error.js';

/** Each period and its step: about 60 to 170 points, fine enough to read and cheap to draw on a phone. */
export const RANGES = {
  '1h': { seconds: 3_600, step: 60 },
  '24h': { seconds: 86_400, step: 900 },
  '7d': { seconds: 7 * 86_400, step: 3_600 },
  '30d': { seconds: 30 * 86_400, step: 6 * 3_600 },
} as const;
export type RangeName = keyof typeof RANGES;

export const OUTCOMES = {
  written: 'enriched',
  unchanged: 'unchanged',
  no_match: 'no_match',
  failed: 'failed',
} as const;

export function parseRange(value: unknown): RangeName {
  const range = value ?? '24h';
  if (typeof range === 'string' && Object.hasOwn(RANGES, range)) return range as RangeName;
  throw new HttpError(400, 'invalid_request', `range: expected one of ${Object.keys(RANGES).join(', ')}`, {
    field: 'range',
  });
}

/** The most calls the CRM allows in one step, by its tightest limit (a daily allocation spread evenly). */
export function limitPerStep(limits: readonly CallLimit[] | undefined, stepSeconds: number): number | null {
  if (!limits?.length) return null;
  return Math.floor(Math.min(...limits.map((l) => (l.max * stepSeconds) / l.windowSeconds)));
}

export async function adminSeries(service: AdminContext, range: RangeName, now = new Date()) {
  const { seconds, step } = RANGES[range];
  // The current step is included, so what just happened shows; the period ends where that step ends.
  const to = new Date(Math.ceil((now.getTime() + 1) / (step * 1000)) * step * 1000);
  const from = new Date(to.getTime() - seconds * 1000);
  await service.stats.flush();
  const { steps, values } = await service.store.series.read(from, to, step);
  const zeros = () => steps.map(() => 0);
  const counter = (name: string) => (values[name] ?? zeros()) as number[];
  const gauge = (name: string) => values[name] ?? steps.map(() => null);

  const enrichments = Object.fromEntries(
    Object.entries(OUTCOMES).map(([label, outcome]) => [label, counter(SERIES.job(outcome))]),
  ) as Record<keyof typeof OUTCOMES, number[]>;
  const hits = counter(SERIES.cacheHits);
  const misses = counter(SERIES.cacheMisses);

  const days: string[] = [];
  for (let d = new Date(`${utcDay(from)}T00:00:00Z`); d <= now; d = new Date(d.getTime() + 86_400_000))
    days.push(utcDay(d));
  const used = await service.store.counters.range(LOOKUPS_COUNTER, days[0]!, days.at(-1)!);
  const budget = service.config.PARTNER_DAILY_LOOKUP_BUDGET;

  return {
    range,
    stepSeconds: step,
    from: from.toISOString(),
    to: to.toISOString(),
    steps: steps.map((s) => s.toISOString()),
    series: {
      enrichments,
      /** Matched (written or already up to date) of the records looked up, per step; null where none was. */
      matchRate: steps.map((_, i) => {
        const matched = enrichments.written[i]! + enrichments.unchanged[i]!;
        const tried = matched + enrichments.no_match[i]!;
        return tried ? matched / tried : null;
      }),
      cache: { hits, misses },
      partnerRequests: counter(SERIES.partnerRequests),
      creditsPerDay: days.map((day) => ({ day, used: used[day] ?? 0, budget })),
      crmCalls: Object.fromEntries(
        service.connectors.map((c) => [
          c.connection,
          {
            crm: c.crm,
            calls: counter(SERIES.crmCalls(c.connection)),
            limitPerStep: limitPerStep(c.stats().limits, step),
          },
        ]),
      ),
      queue: { depth: gauge(SERIES.queueDepth), oldestAgeSeconds: gauge(SERIES.oldestJobAge) },
    },
    fieldCoverage: await fieldCoverage(service),
  };
}

async function fieldCoverage(service: AdminContext) {
  const rows = [];
  for (const { compiled, version } of service.mappings.list()) {
    const connection = service.connectors.find((c) => c.crm === version.crm)?.connection;
    if (!connection) continue;
    // The enriched-at stamp is filled on every write by design; it says nothing about the data.
    const properties = Object.keys(compiled.rules).filter((p) => p !== compiled.stampProperty);
    for (const row of await service.store.coverage.of(connection, version.objectType, properties)) {
      rows.push({ crm: version.crm, object: version.objectType, ...row });
    }
  }
  return rows;
}
