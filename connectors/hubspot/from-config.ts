/**
 * The HubSpot connector as the service configures it from the environment (HUBSPOT_*, PUBLIC_URL,
 * REDIS_URL). Returns undefined when no HubSpot token is set, so the caller can start the sandbox instead.
 */
import type { Config } from '../../src/config.js';
import type { CrmConnector } from '../../src/core/connector.js';
import { createHubspotConnector, type HubspotConnectorOptions } from './connector.js';

/** How HubSpot's events reach the service: HUBSPOT_EVENTS, or both when the journal can be read, else webhooks. */
export function hubspotEvents(config: Config): 'webhooks' | 'journal' | 'both' {
  return config.HUBSPOT_EVENTS ?? (config.HUBSPOT_CLIENT_ID && config.HUBSPOT_CLIENT_SECRET ? 'both' : 'webhooks');
}

export function hubspotConnectorFromConfig(
  config: Config,
  extra: Partial<HubspotConnectorOptions> = {},
): CrmConnector | undefined {
  if (!config.HUBSPOT_ACCESS_TOKEN && !extra.accessToken && !extra.getAccessToken) return undefined;
  return createHubspotConnector({
    // One connection per CRM: its name keys the queue, the state rows and the limiter.
    connection: 'hubspot',
    accessToken: config.HUBSPOT_ACCESS_TOKEN,
    clientSecret: config.HUBSPOT_CLIENT_SECRET,
    basePath: config.HUBSPOT_BASE_URL,
    tier: config.HUBSPOT_TIER,
    apiVersion: config.HUBSPOT_API_VERSION,
    publicUrl: config.PUBLIC_URL,
    redisUrl: config.REDIS_URL,
    ...(hubspotEvents(config) !== 'webhooks' && config.HUBSPOT_CLIENT_ID && config.HUBSPOT_CLIENT_SECRET
      ? {
          journal: {
            clientId: config.HUBSPOT_CLIENT_ID,
            clientSecret: config.HUBSPOT_CLIENT_SECRET,
            pollMs: config.HUBSPOT_JOURNAL_POLL_MS,
          },
        }
      : {}),
    ...extra,
  });
}
