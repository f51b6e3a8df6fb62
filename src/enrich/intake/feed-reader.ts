/**
 * Reads one connection's event feed (HubSpot's webhooks journal) into the intake: from the stored
 * position, a few entries at a time, each entry's events stored as jobs before its position is saved,
 * so nothing read is lost and a restart reads on from where the last instance stopped. The feed is read
 * again at once while it has more, else every `pollMs`. Events the webhooks already brought have the
 * same dedup keys and are dropped by the queue as duplicates, so no event runs twice.
 */
import type { RecordEvent } from '../../core/connector.js';
import { FeedPositionLost, type EventFeed } from '../../core/event-feed.js';
import { logger } from '../../logger.js';
import type { IntakeResult } from './intake.js';

const log = logger('enrich.feed');

/** Where a feed's position is kept: per connection and the connection's current account. */
export interface FeedPositionPort {
  get(connection: string, feed: string): Promise<string | undefined>;
  set(connection: string, feed: string, position: string): Promise<void>;
  clear(connection: string, feed: string): Promise<void>;
}

export interface FeedReaderOptions {
  connection: string;
  feed: EventFeed;
  positions: FeedPositionPort;
  receive: (events: RecordEvent[]) => Promise<IntakeResult>;
  /** Entries read per call. */
  batchLimit?: number;
  /** Wait after a failed read before the next (doubling up to ten times the feed's `pollMs`). */
  retryMs?: number;
}

export interface FeedReaderStats {
  reads: number;
  entries: number;
  stored: number;
  duplicates: number;
  failures: number;
}

export class FeedReader {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private prepared = false;
  private failuresInRow = 0;
  readonly stats: FeedReaderStats = { reads: 0, entries: 0, stored: 0, duplicates: 0, failures: 0 };

  constructor(private readonly options: FeedReaderOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Lets the read under way store what it has read, then reads no more. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.tick().then((next) => {
        this.running = undefined;
        this.schedule(next);
      });
    }, ms);
  }

  /** One read and what it held stored; the wait before the next. */
  private async tick(): Promise<number> {
    const { connection, feed, positions } = this.options;
    try {
      if (!this.prepared) {
        await feed.prepare();
        this.prepared = true;
      }
      const more = await this.readOnce(await positions.get(connection, feed.name));
      this.failuresInRow = 0;
      return more ? 0 : feed.pollMs;
    } catch (error) {
      this.stats.failures++;
      this.failuresInRow++;
      const wait = Math.min((this.options.retryMs ?? feed.pollMs) * 2 ** (this.failuresInRow - 1), feed.pollMs * 10);
      log.warn(
        { err: error, connection, feed: feed.name, retryInMs: wait },
        'could not read the event feed; nothing read is lost, it is read again from the stored position',
      );
      return wait;
    }
  }

  private async readOnce(position: string | undefined): Promise<boolean> {
    const { connection, feed, positions } = this.options;
    let read;
    try {
      read = await feed.read(position, this.options.batchLimit ?? 10);
    } catch (error) {
      if (!(error instanceof FeedPositionLost)) throw error;
      log.error(
        { connection, feed: feed.name },
        `${error.message} Events between the stored position and the oldest one kept were not read.`,
      );
      await positions.clear(connection, feed.name);
      read = await feed.read(undefined, this.options.batchLimit ?? 10);
    }
    this.stats.reads++;
    for (const batch of read.batches) {
      if (batch.events.length > 0) {
        const result = await this.options.receive(batch.events);
        this.stats.stored += result.stored;
        this.stats.duplicates += result.duplicates;
      }
      await positions.set(connection, feed.name, batch.position);
      this.stats.entries++;
      // Stopping: what is stored stays stored, the rest is read again by the next start.
      if (this.stopped) return false;
    }
    return read.more;
  }
}
