/**
 * The connected portal's webhooks journal as an event feed: at each start the subscriptions that make
 * HubSpot journal contact and company creations and changes of the watched properties (the ones the
 * webhooks announce too), then entries read in order from the stored offset, each entry's file turned
 * into the record events a webhook would have given.
 */
import type { EventFeed, FeedBatch } from '../../src/core/event-feed.js';
import { CrmError } from '../../src/core/connector.js';
import { JOURNAL_FEED, type JournalClient } from './journal-client.js';
import { journalRecordEvents } from './journal-events.js';
import { DEFAULT_WATCHED_PROPERTIES, type WatchedProperties } from './webhook.js';

export interface HubspotJournalFeedOptions {
  client: JournalClient;
  connection: string;
  /** The connected portal, once read (connector.readAccount). */
  portalId: () => number | undefined;
  watchProperties?: Partial<WatchedProperties>;
  /** HUBSPOT_JOURNAL_POLL_MS. */
  pollMs?: number;
}

export function hubspotJournalFeed(options: HubspotJournalFeedOptions): EventFeed {
  const watched: WatchedProperties = {
    contact: options.watchProperties?.contact ?? DEFAULT_WATCHED_PROPERTIES.contact,
    company: options.watchProperties?.company ?? DEFAULT_WATCHED_PROPERTIES.company,
  };
  const portal = (): number => {
    const id = options.portalId();
    if (id === undefined)
      throw new CrmError('hubspot', 'unavailable', 'The HubSpot portal id is not known yet; the journal waits for it.');
    return id;
  };

  return {
    name: JOURNAL_FEED,
    pollMs: options.pollMs ?? 3_000,

    async prepare() {
      const portalId = portal();
      await options.client.upsertSubscription(portalId, {
        objectTypeId: '0-1',
        actions: ['CREATE', 'UPDATE'],
        properties: watched.contact,
      });
      await options.client.upsertSubscription(portalId, {
        objectTypeId: '0-2',
        actions: ['CREATE', 'UPDATE'],
        properties: watched.company,
      });
    },

    async read(position, limit) {
      const portalId = portal();
      const links = await options.client.entries(portalId, position, limit);
      const batches: FeedBatch[] = [];
      for (const link of links) {
        const file = await options.client.file(link);
        batches.push({
          events: journalRecordEvents(file, { connection: options.connection, watchProperties: watched, portalId }),
          position: link.currentOffset,
        });
      }
      return { batches, more: links.length === limit };
    },
  };
}
