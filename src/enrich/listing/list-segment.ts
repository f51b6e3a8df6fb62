/**
 * A CRM list as the segment of a backfill, its dry run or a refresh: a HubSpot list, or a Salesforce list
 * view or report, named by id or by name. Resolved to the list's id once, when the work is asked for (so a
 * wrong name or id is refused at once, naming the field), then read as its members' ids and paged through
 * by id like a listing.
 */
import { CrmError, type CrmConnector, type RecordPage } from '../../core/connector.js';

/** A list as a person names it: by the CRM's id, or by its name. */
export type ListRef = { listId: string } | { listName: string };

export type ListSegmentErrorCode = 'segment_not_supported' | 'unknown_list' | 'unusable_list';

export class ListSegmentError extends Error {
  constructor(
    readonly code: ListSegmentErrorCode,
    message: string,
    /** The request field at fault: `listId` or `listName`. */
    readonly field: 'listId' | 'listName',
  ) {
    super(message);
  }
}

/** The field a reference was given in, for errors. */
const fieldOf = (ref: ListRef): 'listId' | 'listName' => ('listId' in ref ? 'listId' : 'listName');

/**
 * The list's id: a name is looked up; an id is read (its members, once) when `check`, so work that runs
 * later is refused now. Work that reads the members at once leaves `check` off rather than read them twice.
 */
export async function resolveList(
  connector: CrmConnector,
  objectType: string,
  ref: ListRef,
  check = true,
): Promise<string> {
  const field = fieldOf(ref);
  if (!connector.listMembers)
    throw new ListSegmentError(
      'segment_not_supported',
      `${connector.connection} has no lists; leave out ${field}`,
      field,
    );
  if ('listName' in ref) {
    if (!connector.findList)
      throw new ListSegmentError(
        'segment_not_supported',
        `${connector.connection} cannot find a list by name; give listId`,
        field,
      );
    const id = await connector.findList(objectType, ref.listName, { priority: 'bulk' });
    if (id === undefined)
      throw new ListSegmentError(
        'unknown_list',
        `listName: ${connector.connection} has no ${objectType} list named "${ref.listName}"`,
        field,
      );
    return id;
  }
  if (check) await listMembers(connector, objectType, ref.listId, field);
  return ref.listId;
}

/** Every member's id; the CRM's refusals as ListSegmentErrors naming `field`. */
export async function listMembers(
  connector: CrmConnector,
  objectType: string,
  listId: string,
  field: 'listId' | 'listName' = 'listId',
): Promise<string[]> {
  if (!connector.listMembers)
    throw new ListSegmentError(
      'segment_not_supported',
      `${connector.connection} has no lists; leave out ${field}`,
      field,
    );
  try {
    return await connector.listMembers(objectType, listId, { priority: 'bulk' });
  } catch (error) {
    if (error instanceof CrmError && error.code === 'not_found')
      throw new ListSegmentError('unknown_list', `${field}: ${connector.connection} has no list ${listId}`, field);
    if (error instanceof CrmError && error.code === 'validation')
      throw new ListSegmentError('unusable_list', `${field}: ${error.message}`, field);
    throw error;
  }
}

/**
 * One page of a list's members, read by id from `cursor` (an offset into the members): a member the CRM
 * no longer has is left out, as a listing would.
 */
export async function memberPage(
  connector: CrmConnector,
  objectType: string,
  members: readonly string[],
  cursor: string | null | undefined,
  limit: number,
  properties: string[],
): Promise<RecordPage> {
  const from = cursor ? Number(cursor) : 0;
  const ids = members.slice(from, from + limit);
  const records = ids.length ? await connector.readRecords(objectType, ids, properties, { priority: 'bulk' }) : [];
  const next = from + ids.length;
  return { records, ...(next < members.length ? { next: String(next) } : {}) };
}
