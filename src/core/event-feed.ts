/**
 * A CRM's record of its events that the service reads from a stored position (HubSpot's webhooks
 * journal), besides or instead of webhooks: the service calls out, so it needs no public URL, and
 * after an outage it reads on from where it stopped. What a feed gives is the same `RecordEvent` a
 * webhook gives, with the same dedup key, so the intake treats both alike and runs an event once.
 */
import type { RecordEvent } from './connector.js';

/** A stretch of the feed, in order: its events, and the position to read on from once they are stored. */
export interface FeedBatch {
  events: RecordEvent[];
  position: string;
}

export interface FeedRead {
  batches: FeedBatch[];
  /** The feed has more after the last batch: read again without waiting. */
  more: boolean;
}

export interface EventFeed {
  /** Names the feed's stored position, with the connection and the account (`hubspot-journal`). */
  readonly name: string;
  /** How long to wait before reading again once the feed has nothing new. */
  readonly pollMs: number;
  /** Makes the CRM keep the events the service needs (HubSpot: the journal subscriptions); run at each start. */
  prepare(): Promise<void>;
  /**
   * What the feed holds after `position` (from its start when undefined), up to `limit` batches.
   * Throws a `FeedPositionLost` when the feed no longer holds `position` (it kept events too short a time).
   */
  read(position: string | undefined, limit: number): Promise<FeedRead>;
}

/** The feed has dropped the stored position: the events between it and the feed's start are gone from it. */
export class FeedPositionLost extends Error {
  readonly code = 'feed_position_lost';
  constructor(
    readonly feed: string,
    readonly position: string,
  ) {
    super(
      `${feed} no longer holds position ${position}: it was not read for longer than the feed keeps events. ` +
        'Reading goes on from the oldest event it holds; run a backfill to catch records changed in between.',
    );
  }
}
