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
