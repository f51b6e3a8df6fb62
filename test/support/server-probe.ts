/** Whether a Postgres server answers; shared by the suites and the global setup that starts one when none does. */
import pg from 'pg';

export const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** Why a server cannot be used, or undefined when it answers. */
export async function serverUnavailable(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return `no Postgres server answers at ${url} (${(error as Error).message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}
