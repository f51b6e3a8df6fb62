/** Drops what has outlived its use: expired cache entries, old event keys, counters and cron claims. */
import { logger } from '../logger.js';
import type { Store } from './store.js';

const log = logger('store.housekeeping');

export async function pruneExpired(store: Store): Promise<Record<string, number>> {
  const pruned = {
    cache: await store.cache.prune(),
    // Events are redelivered for a day (HubSpot) or hours (Salesforce); keys are kept well past that.
    eventKeys: await store.queue.pruneReceived(30),
    createdRecords: await store.created.prune(30),
    pendingWrites: await store.pendingWrites.prune(1),
    cronClaims: await store.cron.prune(),
    mcpAuth: await store.mcpAuth.prune(),
    workflowCallbacks: await store.workflowCallbacks.prune(30),
  };
  await store.counters.prune(400);
  // The charts show up to 30 days; a few more keep the oldest day whole.
  await store.series.prune(35);
  log.info(pruned, 'housekeeping done');
  return pruned;
}
