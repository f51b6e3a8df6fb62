/**
 * The refresh of one CRM list's members, asked for by an admin ("refresh the trade fair list now"): every
 * member crm-enrich enriched before is enqueued as a refresh, due or not, at bulk priority. A refresh asks
 * the partner by the key that matched last time and writes nothing when the data is unchanged, and the
 * lookup cache answers a record looked up lately, so asking twice costs no second credit. Members never
 * enriched are counted, not enqueued: enriching them for the first time is a backfill of the list.
 */
import { randomUUID } from 'node:crypto';
import type { CrmConnector } from '../../core/connector.js';
import { queueName } from '../jobs.js';
import type { EnqueuePort, NewJob, StalePort } from '../ports.js';
import { listMembers } from './list-segment.js';

export interface ListRefreshReport {
  connection: string;
  object: string;
  listId: string;
  /** The list's members. */
  members: number;
  /** Members enqueued for a refresh now. */
  enqueued: number;
  /** Members crm-enrich holds no state for: a backfill of the list enriches them. */
  notEnriched: number;
}

/** Ids asked about at once when telling enriched members from the rest. */
const CHUNK = 1_000;

export async function refreshList(
  deps: { queue: EnqueuePort; stale: StalePort },
  connector: CrmConnector,
  objectType: string,
  listId: string,
): Promise<ListRefreshReport> {
  const { connection } = connector;
  const members = await listMembers(connector, objectType, listId);
  const run = randomUUID();
  const report: ListRefreshReport = {
    connection,
    object: objectType,
    listId,
    members: members.length,
    enqueued: 0,
    notEnriched: 0,
  };
  for (let i = 0; i < members.length; i += CHUNK) {
    const ids = members.slice(i, i + CHUNK);
    const known = await deps.stale.known(connection, objectType, ids);
    report.notEnriched += ids.length - known.size;
    const jobs: NewJob[] = ids
      .filter((id) => known.has(id))
      .map((recordId) => ({
        queue: queueName(connection, objectType),
        dedupKey: `refresh:${connection}:${objectType}:${recordId}:list:${run}`,
        priority: 'bulk',
        data: { connection, objectType, recordId, reason: 'refresh' },
      }));
    if (jobs.length) report.enqueued += (await deps.queue.enqueue(jobs)).inserted;
  }
  return report;
}
