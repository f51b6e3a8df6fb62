/**
 * Builds the Salesforce connector from the service's configuration. Which OAuth flow is used follows
 * from which variables are set: an access token, a JWT key, or a client secret. With none of them the
 * service has no Salesforce connection (and `serve` may start the sandbox instead).
 */
import { readFileSync } from 'node:fs';
import type { Config } from '../../src/config.js';
import type { CrmConnector } from '../../src/core/connector.js';
import type { RateLimiter } from '../../src/core/limiter.js';
import { AppError } from '../../src/core/errors.js';
import type { SalesforceAuth } from './auth.js';
import { createSalesforceConnector } from './connector.js';

const DEFAULT_LOGIN_URL = 'https://login.salesforce.com';

export class SalesforceConfigError extends AppError {
  /** `variable`: the setting to change, so start-up can report it as it reports any bad variable. */
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super('salesforce_config', message, 'config');
  }
}

export function salesforceAuthFromConfig(config: Config): SalesforceAuth | undefined {
  const loginUrl = config.SALESFORCE_LOGIN_URL ?? DEFAULT_LOGIN_URL;
  if (config.SALESFORCE_ACCESS_TOKEN) {
    if (!config.SALESFORCE_INSTANCE_URL) {
      throw new SalesforceConfigError(
        'SALESFORCE_INSTANCE_URL',
        'SALESFORCE_ACCESS_TOKEN is set without SALESFORCE_INSTANCE_URL; set the instance URL the token belongs to.',
      );
    }
    return { kind: 'token', instanceUrl: config.SALESFORCE_INSTANCE_URL, accessToken: config.SALESFORCE_ACCESS_TOKEN };
  }
  if (config.SALESFORCE_PRIVATE_KEY_FILE) {
    if (!config.SALESFORCE_CLIENT_ID || !config.SALESFORCE_USERNAME) {
      throw new SalesforceConfigError(
        config.SALESFORCE_CLIENT_ID ? 'SALESFORCE_USERNAME' : 'SALESFORCE_CLIENT_ID',
        'The JWT bearer flow needs SALESFORCE_CLIENT_ID and SALESFORCE_USERNAME as well as ' +
          'SALESFORCE_PRIVATE_KEY_FILE.',
      );
    }
    let privateKey: string;
    try {
      privateKey = readFileSync(config.SALESFORCE_PRIVATE_KEY_FILE, 'utf8');
    } catch (err) {
      throw new SalesforceConfigError(
        'SALESFORCE_PRIVATE_KEY_FILE',
        `SALESFORCE_PRIVATE_KEY_FILE cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}); ` +
          "point it at the connected app's PEM private key.",
      );
    }
    return {
      kind: 'jwt',
      loginUrl,
      clientId: config.SALESFORCE_CLIENT_ID,
      username: config.SALESFORCE_USERNAME,
      privateKey,
    };
  }
  if (config.SALESFORCE_CLIENT_ID || config.SALESFORCE_CLIENT_SECRET) {
    if (!config.SALESFORCE_CLIENT_ID || !config.SALESFORCE_CLIENT_SECRET) {
      throw new SalesforceConfigError(
        config.SALESFORCE_CLIENT_ID ? 'SALESFORCE_CLIENT_SECRET' : 'SALESFORCE_CLIENT_ID',
        'The client credentials flow needs both SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET.',
      );
    }
    if (!config.SALESFORCE_LOGIN_URL) {
      throw new SalesforceConfigError(
        'SALESFORCE_LOGIN_URL',
        "The client credentials flow needs SALESFORCE_LOGIN_URL set to the org's My Domain URL, e.g. " +
          'https://acme.my.salesforce.com.',
      );
    }
    return {
      kind: 'client_credentials',
      loginUrl,
      clientId: config.SALESFORCE_CLIENT_ID,
      clientSecret: config.SALESFORCE_CLIENT_SECRET,
    };
  }
  return undefined;
}

/** The configured connector, or undefined when no Salesforce credentials are set. */
export function salesforceConnectorFromConfig(config: Config, limiter?: RateLimiter): CrmConnector | undefined {
  const auth = salesforceAuthFromConfig(config);
  if (!auth) return undefined;
  return createSalesforceConnector({
    // One connection per CRM: its name keys the queue, the state rows and the limiter.
    connection: 'salesforce',
    auth,
    version: config.SALESFORCE_API_VERSION,
    orgId: config.SALESFORCE_ORG_ID,
    webhookSecret: config.SALESFORCE_WEBHOOK_SECRET,
    apiReserve: config.SALESFORCE_API_RESERVE,
    bulkThreshold: config.SALESFORCE_BULK_THRESHOLD,
    bulkWriteMin: config.SALESFORCE_BULK_WRITE_MIN,
    permissionSet: config.SALESFORCE_PERMISSION_SET,
    limiter,
  });
}
