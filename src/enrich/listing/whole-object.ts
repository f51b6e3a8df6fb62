/**
 * Reading every record of an object, for a data-health scan or a backfill: through the connector's bulk
 * export (Salesforce Bulk API 2.0 query jobs) when it has one and the read is bigger than the connector's
 * threshold, otherwise in listRecords pages. A read with a limit at or under the threshold lists without
 * asking; any other counts the object first (one call). The choice is made before the first page and
 * travels in the cursor (`bulk:` before a bulk read's), so a read resumed after a restart goes on the way it
 * started; a cursor stored before bulk reads existed lists on.
 */
import type { CrmConnector, RecordPage } from '../../core/connector.js';

const BULK = 'bulk:';

export interface WholeObjectRead {
  objectType: string;
  properties: string[];
  cursor: string | undefined;
  /** Records per listRecords page. */
  listPageSize: number;
  /** Records per bulk page: one call each, and what the reader holds in memory at once. */
  bulkPageSize: number;
  /** The most records the whole read takes (a backfill's limit); null or absent for every record. */
  limit?: number | null;
}

type ReadPath = 'bulk' | 'list';

/** Which way a read that has not started goes. */
async function choosePath(connector: CrmConnector, read: WholeObjectRead): Promise<ReadPath> {
  const threshold = connector.bulkReadThreshold;
  if (!connector.bulkRead || !connector.countRecords || threshold === undefined) return 'list';
  if (read.limit !== undefined && read.limit !== null && read.limit <= threshold) return 'list';
  const records = await connector.countRecords(read.objectType, { priority: 'bulk' });
  return Math.min(records, read.limit ?? Number.POSITIVE_INFINITY) > threshold ? 'bulk' : 'list';
}

/** One page of the read, at bulk priority. */
export async function readWholeObject(connector: CrmConnector, read: WholeObjectRead): Promise<RecordPage> {
  const path = read.cursor === undefined ? await choosePath(connector, read) : pathOf(read.cursor);
  if (path === 'bulk' && connector.bulkRead) {
    const cursor = read.cursor?.slice(BULK.length);
    const page = await connector.bulkRead(read.objectType, read.properties, cursor, {
      priority: 'bulk',
      pageSize: read.bulkPageSize,
      limit: read.limit ?? undefined,
    });
    return page.next ? { records: page.records, next: BULK + page.next } : { records: page.records };
  }
  return connector.listRecords(
    read.objectType,
    { properties: read.properties, limit: read.listPageSize, ...(read.cursor ? { cursor: read.cursor } : {}) },
    { priority: 'bulk' },
  );
}

const pathOf = (cursor: string): ReadPath => (cursor.startsWith(BULK) ? 'bulk' : 'list');
