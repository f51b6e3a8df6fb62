/** Named string values the service keeps between runs and shares between instances. */
import type { Db } from './db.js';

export class Settings {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ value: string }>(
      `SELECT value FROM "${this.schema}".setting WHERE key = $1`,
      [key],
    );
    return rows[0]?.value;
  }

  async set(key: string, value: string): Promise<void> {
    await this.db.query(
      `INSERT INTO "${this.schema}".setting (key, value) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [key, value],
    );
  }
}
