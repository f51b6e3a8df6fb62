/**
 * A webhooks journal file read into the events the webhook handler reads: an OBJECT event (`action`
 * CREATE, UPDATE, DELETE, MERGE, GDPR_DELETE on objectTypeId 0-1 or 0-2) becomes the classic event of
 * the same change (`contact.creation`, one `contact.propertyChange` per changed property, ...), with
 * the change's own occurredAt. So the same change, whether a webhook or the journal brought it, has the
 * same dedup key, and the intake runs it once. HubSpot's description gives the journal read answers
 * (offset, link, expiry) but not the file's fields; they are read as docs/hubspot-events.md lists them.
 */
import { z } from 'zod';
import type { RecordEvent } from '../../src/core/connector.js';
import { CrmError } from '../../src/core/connector.js';
import { EventSchema, hubspotRecordEvents, type HubspotEvent, type WatchedProperties } from './webhook.js';

const id = z.union([z.number().int(), z.string().regex(/^\d+$/).transform(Number)]);
/** Milliseconds since the epoch, or an ISO 8601 time. */
const time = z.union([
  z.number().int().nonnegative(),
  z.iso.datetime({ offset: true }).transform((t) => Date.parse(t)),
]);

const JournalEventSchema = z.looseObject({
  eventId: id.optional(),
  subscriptionId: id.optional(),
  portalId: id,
  appId: id.optional(),
  occurredAt: time,
  action: z.string().max(40),
  objectTypeId: z.string().max(20),
  objectId: id,
  changeSource: z.string().optional(),
  sourceId: z.union([z.string().max(64), z.number()]).optional(),
  propertyChanges: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).nullable()).optional(),
  primaryObjectId: id.optional(),
  mergedObjectIds: z.array(id).optional(),
  newObjectId: id.optional(),
});

export const JournalFileSchema = z.looseObject({
  offset: z.string().optional(),
  publishedAt: z.string().optional(),
  journalEvents: z.array(JournalEventSchema),
});

type JournalEvent = z.infer<typeof JournalEventSchema>;

const SINGULAR: Record<string, string | undefined> = { '0-1': 'contact', '0-2': 'company' };
const CLASSIC_ACTION: Record<string, string | undefined> = {
  CREATE: 'creation',
  DELETE: 'deletion',
  MERGE: 'merge',
  GDPR_DELETE: 'privacyDeletion',
};

/** The classic events of one journal event: none for other objects and actions (snapshots, lists, associations). */
export function classicEvents(e: JournalEvent): HubspotEvent[] {
  const singular = SINGULAR[e.objectTypeId];
  if (!singular) return [];
  const base = {
    eventId: e.eventId ?? 0,
    ...(e.subscriptionId === undefined ? {} : { subscriptionId: e.subscriptionId }),
    portalId: e.portalId,
    ...(e.appId === undefined ? {} : { appId: e.appId }),
    occurredAt: e.occurredAt,
    objectId: e.objectId,
    objectTypeId: e.objectTypeId,
    ...(e.changeSource === undefined ? {} : { changeSource: e.changeSource }),
    ...(e.sourceId === undefined ? {} : { sourceId: e.sourceId }),
  };
  if (e.action === 'UPDATE') {
    return Object.entries(e.propertyChanges ?? {}).map(([propertyName, value]) => ({
      ...base,
      subscriptionType: `${singular}.propertyChange`,
      propertyName,
      propertyValue: value === null ? null : String(value),
    }));
  }
  const action = CLASSIC_ACTION[e.action];
  if (!action) return [];
  return [
    {
      ...base,
      subscriptionType: `${singular}.${action}`,
      ...(e.action === 'CREATE' ? { changeFlag: 'CREATED' } : {}),
      ...(e.primaryObjectId === undefined ? {} : { primaryObjectId: e.primaryObjectId }),
      ...(e.mergedObjectIds === undefined ? {} : { mergedObjectIds: e.mergedObjectIds }),
      ...(e.newObjectId === undefined ? {} : { newObjectId: e.newObjectId }),
    },
  ];
}

export interface JournalEventOptions {
  connection: string;
  watchProperties?: Partial<WatchedProperties>;
  /** The connected portal: events of any other portal are not this connection's, and are left out. */
  portalId: number;
}

/** A journal file's record events, in the file's order; a file that is not one throws, naming the field. */
export function journalRecordEvents(file: unknown, options: JournalEventOptions): RecordEvent[] {
  const parsed = JournalFileSchema.safeParse(file);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new CrmError(
      'hubspot',
      'invalid_response',
      `A webhooks journal file is not in the expected shape: ${issue.path.join('.') || 'file'}: ${issue.message}`,
    );
  }
  const toRecordEvent = hubspotRecordEvents(options);
  const seen = new Set<string>();
  const events: RecordEvent[] = [];
  for (const journalEvent of parsed.data.journalEvents) {
    if (journalEvent.portalId !== options.portalId) continue;
    for (const classic of classicEvents(journalEvent)) {
      const checked = EventSchema.safeParse(classic);
      if (!checked.success) {
        const issue = checked.error.issues[0]!;
        throw new CrmError(
          'hubspot',
          'invalid_response',
          `Webhooks journal event ${classic.eventId}: ${issue.path.join('.')}: ${issue.message}`,
        );
      }
      const event = toRecordEvent(checked.data);
      if (event && !seen.has(event.dedupKey)) {
        seen.add(event.dedupKey);
        events.push(event);
      }
    }
  }
  return events;
}
