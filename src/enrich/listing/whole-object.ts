/**
 * Reading every record of an object, for a data-health scan or a backfill: through the connector's bulk
 * export (Salesforce Bulk API 2.0 query jobs) when it has one and the read is bigger than the connector's
 * threshold, otherwise in listRecords pages. A read with a limit at or under the threshold lists without
 * asking; any other counts the object first (one call). The choice is made before the first page and
 * travels in the cursor (`bulk:` before a bulk read's), so a read resumed after a restart goes on the way it
 * started; a cursor stored before bulk reads existed lists on. A bulk export is kept a while only
 * (Salesforce: 7 days after its job ended): a cursor whose export is gone throws ExportGoneError, and the
 * read must start again.
 */
import { CrmError, type CrmConnector, type ListCondition, type RecordPage } from '../../core/connector.js';
import { AppError } from '../../core/errors.js';

const BULK = 'bulk:';

/** The CRM no longer keeps the bulk export a cursor names: the read starts again from the beginning. */
export class ExportGoneError extends AppError {
  constructor(cause: CrmError) {
    super('export_gone', `the bulk export being read is gone (${cause.message}); the read starts again`, 'transient', {
      cause: cause.code,
    });
  }
}

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
  /**
   * Conditions the CRM may apply to a listing page (a segment's); a bulk export reads every record and
   * leaves them to the caller, which checks every record against its segment whichever way it was read.
   */
  where?: ListCondition[];
  /** Stops waiting for a bulk export being made (a scan or backfill being stopped). */
  signal?: AbortSignal;
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
    const page = await connector
      .bulkRead(read.objectType, read.properties, cursor, {
        priority: 'bulk',
        pageSize: read.bulkPageSize,
        limit: read.limit ?? undefined,
        signal: read.signal,
      })
      .catch((error: unknown) => {
        if (cursor && error instanceof CrmError && error.code === 'not_found') throw new ExportGoneError(error);
        throw error;
      });
    return page.next ? { records: page.records, next: BULK + page.next } : { records: page.records };
  }
  return connector.listRecords(
    read.objectType,
    {
      properties: read.properties,
      limit: read.listPageSize,
      ...(read.cursor ? { cursor: read.cursor } : {}),
      ...(read.where?.length ? { where: read.where } : {}),
    },
    { priority: 'bulk' },
  );
}

const pathOf = (cursor: string): ReadPath => (cursor.startsWith(BULK) ? 'bulk' : 'list');
