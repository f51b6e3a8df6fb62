import { ConfigError, type Config } from '../config.js';
import { createRateLimiter, type SharedRateLimiter } from '../limits/create-rate-limiter.js';
import { limiterIdFor } from '../limits/limiter-id.js';
import { PartnerClient } from './client.js';
import { parseLookupParams } from './lookup-params.js';

export type PartnerConfig = Pick<
  Config,
  | 'PARTNER_API_KEY'
  | 'PARTNER_BASE_URL'
  | 'PARTNER_RATE_LIMIT'
  | 'PARTNER_TIMEOUT_MS'
  | 'PARTNER_MAX_RETRIES'
  | 'PARTNER_LOOKUP_PARAMS'
  | 'REDIS_URL'
>;

/**
 * Slots the partner limiter's pace may give at once after it fell behind. Partner requests say when they
 * leave and are counted late when they leave late (a credit reservation the embedded database holds
 * 50-300 ms); without room to catch up, each such departure left the key idle for good, and an import
 * kept it at 0.92 of its limit. The limiter's log still allows no more than the limit in any second.
 * A limit shared through Redis catches up by one: with four, three of five runs of three instances had
 * the partner count 51 in a second and refuse one request; with one, none of three, the key at 0.95.
 * (There a late departure reaches the shared log a round trip after it left, while other instances go on.)
 */
export function partnerCatchUpSlots(redisUrl: string | undefined): number {
  return redisUrl ? 1 : 4;
}

/**
 * The partner client and its key's limiter, from configuration. `overrides` points it elsewhere
 * (the in-process sandbox when no credentials are configured). With REDIS_URL, every instance
 * using the same key shares one limit. Stop the limiter on shutdown.
 */
export function createPartnerClient(
  config: PartnerConfig,
  overrides: { baseUrl?: string; apiKey?: string } = {},
): { client: PartnerClient; limiter: SharedRateLimiter } {
  const baseUrl = overrides.baseUrl ?? config.PARTNER_BASE_URL;
  const apiKey = overrides.apiKey ?? config.PARTNER_API_KEY;
  const missing = [
    ...(baseUrl
      ? []
      : [
          {
            variable: 'PARTNER_BASE_URL',
            message: 'expected the partner API base URL, e.g. https://api.example.com/v1',
          },
        ]),
    ...(apiKey
      ? []
      : [{ variable: 'PARTNER_API_KEY', message: 'expected the API key from the partner dashboard (integrations)' }]),
  ];
  if (!baseUrl || !apiKey) throw new ConfigError(missing);
  const paramNames = parseLookupParams(config.PARTNER_LOOKUP_PARAMS);
  const limiter = createRateLimiter({
    id: limiterIdFor('partner', apiKey),
    max: config.PARTNER_RATE_LIMIT,
    windowMs: 1000,
    redisUrl: config.REDIS_URL,
    catchUpSlots: partnerCatchUpSlots(config.REDIS_URL),
  });
  const client = new PartnerClient({
    baseUrl,
    apiKey,
    limiter,
    timeoutMs: config.PARTNER_TIMEOUT_MS,
    maxRetries: config.PARTNER_MAX_RETRIES,
    paramNames,
  });
  return { client, limiter };
}
