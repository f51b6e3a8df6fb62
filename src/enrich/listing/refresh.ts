/**
 * The scheduled work: re-enrich records whose data is older than the refresh threshold, and sweep
 * each CRM for records created or changed since the last sweep that no webhook told us about.
 * Both only enqueue bulk jobs; the lanes do the rest, so an unchanged record costs no CRM write.
 */
import { propertiesToRead } from '../record/read-properties.js';
import type { CrmConnector } from '../../core/connector.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import { logger } from '../../logger.js';
import { queueName } from '../jobs.js';
import type { EnqueuePort, KeyValuePort, NewJob, StaleCursor, StalePort } from '../ports.js';

const log = logger('enrich.refresh');

export interface RefreshOptions {
  connectors: CrmConnector[];
  mapping: (crm: string, objectType: string) => CompiledMapping | undefined;
  stale: StalePort;
  queue: EnqueuePort;
  kv: KeyValuePort;
  pageSize?: number;
  /** Most records one tick enqueues, so a large backlog spreads over several ticks. */
  maxPerTick?: number;
}

export interface RefreshSummary {
  refresh: number;
  catchup: number;
}

export async function enqueueStale(options: RefreshOptions, now = new Date()): Promise<number> {
  const pageSize = options.pageSize ?? 500;
  const max = options.maxPerTick ?? 50_000;
  let total = 0;
  for (const connector of options.connectors) {
    for (const objectType of connector.objectTypes) {
      if (!options.mapping(connector.crm, objectType)) continue;
      const { connection } = connector;
      let after: StaleCursor | undefined;
      while (total < max) {
        const page = await options.stale.pickStale(connection, objectType, Math.min(pageSize, max - total), now, after);
        const jobs: NewJob[] = page.records.map((r) => ({
          queue: queueName(connection, objectType),
          // Keyed by the due time: the same stale record is one job until a run moves its due time.
          dedupKey: `refresh:${connection}:${objectType}:${r.recordId}:${r.nextRefreshAt.toISOString()}`,
          priority: 'bulk',
          data: { connection, objectType, recordId: r.recordId, reason: 'refresh' },
        }));
        if (jobs.length) total += (await options.queue.enqueue(jobs)).inserted;
        if (!page.next) break;
        after = page.next;
      }
    }
  }
  return total;
}

/** Records the CRM created or changed since the last sweep that we hold no state for. */
export async function sweepMissed(options: RefreshOptions, now = new Date()): Promise<number> {
  let total = 0;
  for (const connector of options.connectors) {
    for (const objectType of connector.objectTypes) {
      const mapping = options.mapping(connector.crm, objectType);
      if (!mapping) continue;
      const key = `sweep:${connector.connection}:${objectType}`;
      const last = await options.kv.get(key);
      // The first sweep looks one day back: webhooks older than that were retried for a day already.
      const since = last ? new Date(last) : new Date(now.getTime() - 86_400_000);
      const read = propertiesToRead(connector, objectType, mapping);
      let cursor: string | undefined;
      do {
        const page = await connector.listRecords(
          objectType,
          { properties: read, changedSince: since, ...(cursor ? { cursor } : {}) },
          { priority: 'bulk' },
        );
        const candidates = page.records.filter((r) => mapping.matchKeys(r.properties).length > 0);
        const known = await options.stale.known(
          connector.connection,
          objectType,
          candidates.map((r) => r.id),
        );
        const at = new Date().toISOString();
        const jobs: NewJob[] = candidates
          .filter((r) => !known.has(r.id))
          .map((r) => ({
            queue: queueName(connector.connection, objectType),
            dedupKey: `catchup:${connector.connection}:${objectType}:${r.id}`,
            priority: 'bulk',
            data: {
              connection: connector.connection,
              objectType,
              recordId: r.id,
              reason: 'catchup',
              snapshot: { at, read, properties: r.properties },
            },
          }));
        if (jobs.length) total += (await options.queue.enqueue(jobs)).inserted;
        cursor = page.next;
      } while (cursor);
      // The next sweep starts back by the CRM's listing lag: a record changed just before this sweep may
      // not have been visible to it yet. Records seen twice are known by then and not enqueued again.
      await options.kv.set(key, new Date(now.getTime() - (connector.listingLagMs ?? 0)).toISOString());
    }
  }
  return total;
}

export async function runRefreshTick(options: RefreshOptions, now = new Date()): Promise<RefreshSummary> {
  const refresh = await enqueueStale(options, now);
  const catchup = await sweepMissed(options, now);
  log.info({ refresh, catchup }, 'scheduled refresh enqueued its work');
  return { refresh, catchup };
}
