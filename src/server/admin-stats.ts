/** What an admin wants at a glance: queues, outcomes, match rate, credits, cache and CRM calls. */
import { FOREIGN_TOKEN_COUNTER } from '../enrich/lane/lane-events.js';
import { CACHE_HITS_COUNTER, LOOKUPS_COUNTER } from '../enrich/partner-lookups.js';
import type { AdminContext } from './admin-context.js';

export async function adminStats(service: AdminContext) {
  const [queues, statuses, lookupsToday, cacheHitsToday, foreignToday, companies, duplicates, nearMatches] =
    await Promise.all([
      service.store.queue.counts(),
      service.store.state.countByStatus(),
      service.store.counters.get(LOOKUPS_COUNTER),
      service.store.counters.get(CACHE_HITS_COUNTER),
      service.store.counters.get(FOREIGN_TOKEN_COUNTER),
      service.store.companies.counts(),
      service.store.companies.duplicates(),
      service.store.companies.nearMatches(),
    ]);
  const matched = statuses.enriched;
  const tried = statuses.enriched + statuses.no_match;
  const jobsByOutcome = Object.fromEntries(
    (await service.metrics.jobs.get()).values.map((v) => [String(v.labels.outcome), v.value]),
  );
  const budget = service.config.PARTNER_DAILY_LOOKUP_BUDGET;
  return {
    queues: queues.map((q) => ({
      queue: q.queue,
      waiting: q.depth,
      active: q.active,
      completed: q.completed,
      failed: q.failed,
    })),
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
      /** Creations and changes made with crm-enrich's token by something else (a script reusing it): enriched. */
      foreignTokenChanges: foreignToday,
    },
    companies: {
      /** Companies crm-enrich created for employers, by connection. */
      created: companies.created,
      /** Person records linked with their employer's company. */
      linkedRecords: companies.linkedRecords,
      /** Domains several companies share: linked to the oldest, never merged; an admin decides. */
      duplicateDomains: duplicates.map((d) => ({
        connection: d.connection,
        domain: d.domain,
        companyIds: d.companyIds,
        seenAt: d.seenAt.toISOString(),
      })),
      /** Companies with an employer's name but not its domain or partner id: never linked by name alone. */
      nearMatches: nearMatches.map((d) => ({
        connection: d.connection,
        domain: d.domain,
        name: d.name,
        companyIds: d.companyIds,
        seenAt: d.seenAt.toISOString(),
      })),
    },
    crmCalls: Object.fromEntries(service.connectors.map((c) => [c.connection, c.stats()])),
  };
}
