import { createHash } from 'node:crypto';

/**
 * The limiter id for a credential: the limit belongs to the key, so every process using the same
 * key must land on the same id, yet the id is stored in Redis and shown in metrics, so it is a
 * short hash and never the key itself.
 */
export function limiterIdFor(kind: string, secret: string): string {
  return `${kind}:${createHash('sha256').update(secret).digest('hex').slice(0, 12)}`;
}
