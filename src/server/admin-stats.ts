/** What an admin wants at a glance: queues, outcomes, match rate, credits, cache and CRM calls. */
import { CACHE_HITS_COUNTER, LOOKUPS_COUNTER } from '../enrich/partner-lookups.js';
import type { Service } from '../service/service.js';

export async function adminStats(service: Service) {
  const [queues, statuses, lookupsToday, cacheHitsToday] = await Promise.all([
    service.store.queue.counts(),
    service.store.state.countByStatus(),
    service.store.counters.get(LOOKUPS_COUNTER),
    service.store.counters.get(CACHE_HITS_COUNTER),
  ]);
  const matched = statuses.enriched;
  const tried = statuses.enriched + statuses.no_match;
  const jobsByOutcome = Object.fromEntries(
    (await service.metrics.jobs.get()).values.map((v) => [String(v.labels.outcome), v.value]),
  );
  const budget = service.config.PARTNER_DAILY_LOOKUP_BUDGET;
  return {
    queues: queues.map((q) => ({ queue: q.queue, waiting: q.depth, active: q.active, completed: q.completed, failed: q.failed })),
    queueDepth: queues.filter((q) => q.queue !== 'dead_letter').reduce((n, q) => n + q.depth + q.active, 0),
    deadLetters: queues.find((q) => q.queue === 'dead_letter')?.depth ?? 0,
    jobsByOutcome,
    records: statuses,
    matchRate: tried ? matched / tried : null,
    today: {
      partnerLookups: lookupsToday,
      cacheHits: cacheHitsToday,
      budget,
      budgetLeft: Math.max(0, budget - lookupsToday),
      hardCap: service.config.PARTNER_DAILY_LOOKUP_HARD_CAP,
      bulkPaused: lookupsToday >= budget,
    },
    crmCalls: Object.fromEntries(service.connectors.map((c) => [c.connection, c.stats()])),
  };
}
