/** Whether the Redis server the shared-limit tests use answers; the reason it does not, otherwise. */
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function redisUnavailable(url = REDIS_URL): Promise<string | undefined> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return `no Redis server answers at ${url} (${(error as Error).message})`;
  } finally {
    client.disconnect();
  }
}
