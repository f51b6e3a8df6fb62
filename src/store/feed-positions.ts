/**
 * The position each event feed has been read to, per connection and the connection's current account
 * (migration 015): the webhooks journal's offset, saved after each entry's events are stored.
 */
import type { ConnectionAccounts } from './connection-accounts.js';
import type { Db } from './db.js';

export class FeedPositions {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly accounts: ConnectionAccounts,
  ) {}

  async get(connection: string, feed: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ position: string }>(
      `SELECT position FROM "${this.schema}".feed_position WHERE connection = $1 AND account = $2 AND feed = $3`,
      [connection, this.accounts.of(connection), feed],
    );
    return rows[0]?.position;
  }

  async set(connection: string, feed: string, position: string): Promise<void> {
    await this.db.query(
      `INSERT INTO "${this.schema}".feed_position (connection, account, feed, position) VALUES ($1, $2, $3, $4)
       ON CONFLICT (connection, account, feed) DO UPDATE SET position = EXCLUDED.position, updated_at = now()`,
      [connection, this.accounts.of(connection), feed, position],
    );
  }

  /** Forgets the position: the feed is read from its start next time (its position was lost). */
  async clear(connection: string, feed: string): Promise<void> {
    await this.db.query(
      `DELETE FROM "${this.schema}".feed_position WHERE connection = $1 AND account = $2 AND feed = $3`,
      [connection, this.accounts.of(connection), feed],
    );
  }
}
