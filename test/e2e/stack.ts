/**
 * The whole loop for end-to-end tests: partner, HubSpot and Salesforce sandboxes over real HTTP, and
 * the service on the Postgres server (a schema of its own) or on PGlite, wired as the embedded
 * default wires them, with short retry and expiry times so failures show within a test.
 */
import {
  startHubspotSandbox,
  type HubspotSandbox,
  type HubspotSandboxOptions,
} from '../../connectors/hubspot/sandbox/server.js';
import {
  startSalesforceSandbox,
  type SalesforceSandbox,
  type SalesforceSandboxOptions,
} from '../../connectors/salesforce/sandbox/server.js';
import type { PGlite } from '@electric-sql/pglite';
import { loadConfig, type Config } from '../../src/config.js';
import { loadMappingDir } from '../../src/mapping/index.js';
import { startPartnerSandbox, type PartnerSandbox } from '../../src/partner/sandbox/server.js';
import { provisionHubspotSandbox, salesforceSandboxFields } from '../../src/cli/embedded.js';
import { startService as composeAndStart, type ServiceOptions } from '../../src/app/start-service.js';
import type { Service } from '../../src/service/service.js';
import type { QueueSettings } from '../../src/store/queue.js';
import { SERVER_URL, uniqueSchema } from '../support/db.js';

export const HUBSPOT_SECRET = 'e2e-client-secret';
export const SALESFORCE_SECRET = 'e2e-outbound-secret';
export const SALESFORCE_ACTION_SECRET = 'e2e-flow-action-secret-of-32-characters';
export const ADMIN_TOKEN = 'e2e-admin-token';

export interface Sandboxes {
  partner: PartnerSandbox;
  hubspot: HubspotSandbox;
  salesforce: SalesforceSandbox;
  close(): Promise<void>;
}

export interface StackOptions {
  partnerLatencyMs?: number;
  /** Partner dataset size (smaller is faster to start). */
  people?: number;
  companies?: number;
  partnerFailRate?: number;
  /** Requests a second the partner sandbox allows per key (the partner's 50 by default). */
  partnerRateLimit?: number;
  /** HubSpot's search indexing lag in the sandbox (default 0 here). */
  searchLagMs?: number;
  /** Salesforce fields the integration user has no field-level access to. */
  salesforceHiddenFields?: SalesforceSandboxOptions['hiddenFields'];
  /** The Salesforce org's View Setup permission and its concurrent long-running request limit. */
  salesforceOrg?: Pick<SalesforceSandboxOptions, 'viewSetup' | 'longRunning'>;
  /** Properties the HubSpot portal requires on an app's creates and updates (the sandbox's `require`). */
  hubspotRequire?: HubspotSandboxOptions['require'];
  /** Properties it requires when another property has a value (the sandbox's `requireWhen`). */
  hubspotRequireWhen?: HubspotSandboxOptions['requireWhen'];
  queue?: Partial<QueueSettings>;
  env?: Record<string, string>;
  schema?: string;
  /** The service's database; default the test server. */
  databaseUrl?: string;
  /** An open PGlite (the embedded database) to run the service on instead of the test server. */
  pglite?: PGlite;
}

export async function startSandboxes(options: StackOptions = {}): Promise<Sandboxes> {
  const { mappings } = await loadMappingDir('mappings');
  const partner = await startPartnerSandbox({
    port: 0,
    latencyMs: options.partnerLatencyMs ?? 0,
    failRate: options.partnerFailRate ?? 0,
    rateLimitPerSecond: options.partnerRateLimit,
    people: options.people ?? 5_000,
    companies: options.companies ?? 500,
  });
  // Search sees changes at once here unless a test asks for HubSpot's indexing lag (the sandbox's own default is 2 s).
  const hubspot = await startHubspotSandbox({
    port: 0,
    clientSecret: HUBSPOT_SECRET,
    webhookDelaysMs: [200, 400, 800, 1_600],
    searchLagMs: options.searchLagMs ?? 0,
    require: options.hubspotRequire,
    requireWhen: options.hubspotRequireWhen,
  });
  const salesforce = await startSalesforceSandbox({
    port: 0,
    customFields: salesforceSandboxFields(mappings),
    outboundDelaysMs: [200, 400, 800, 1_600],
    ...(options.salesforceHiddenFields ? { hiddenFields: options.salesforceHiddenFields } : {}),
    ...options.salesforceOrg,
  });
  await provisionHubspotSandbox(
    loadConfig({ HUBSPOT_ACCESS_TOKEN: 'sandbox-token', HUBSPOT_BASE_URL: hubspot.url }),
    mappings,
  );
  return {
    partner,
    hubspot,
    salesforce,
    async close() {
      await Promise.allSettled([partner.close(), hubspot.close(), salesforce.close()]);
    },
  };
}

/** The environment variables that point a service at these sandboxes, as a deployment would set them. */
export function sandboxEnv(sandboxes: Sandboxes): Record<string, string> {
  return {
    PARTNER_API_KEY: 'sandbox-key',
    PARTNER_BASE_URL: sandboxes.partner.url,
    HUBSPOT_ACCESS_TOKEN: 'sandbox-token',
    HUBSPOT_CLIENT_SECRET: HUBSPOT_SECRET,
    HUBSPOT_BASE_URL: sandboxes.hubspot.url,
    SALESFORCE_LOGIN_URL: sandboxes.salesforce.url,
    SALESFORCE_CLIENT_ID: 'sandbox',
    SALESFORCE_CLIENT_SECRET: 'sandbox',
    SALESFORCE_ORG_ID: sandboxes.salesforce.orgId,
    SALESFORCE_WEBHOOK_SECRET: SALESFORCE_SECRET,
    SALESFORCE_ACTION_SECRET,
  };
}

export function stackConfig(sandboxes: Sandboxes, options: StackOptions & { databaseUrl?: string } = {}): Config {
  return loadConfig({
    LOG_LEVEL: 'silent',
    PARTNER_MAX_RETRIES: '3',
    ...sandboxEnv(sandboxes),
    DATABASE_URL: options.databaseUrl ?? SERVER_URL,
    ...options.env,
  });
}

export interface RunningService {
  service: Service;
  url: string;
  schema: string;
  admin: AdminCall;
  stop(): Promise<void>;
}

/** Starts the service on the sandboxes and points their webhooks at it. */
export async function startService(
  sandboxes: Sandboxes,
  options: StackOptions & Partial<ServiceOptions> = {},
): Promise<RunningService> {
  const schema = options.schema ?? uniqueSchema('e2e');
  const config = stackConfig(sandboxes, options);
  const service = await composeAndStart({
    config,
    adminToken: ADMIN_TOKEN,
    schedule: options.schedule ?? false,
    ...(options.mappingsDir ? { mappingsDir: options.mappingsDir } : {}),
    store: {
      schema,
      ...(options.pglite ? { databaseUrl: undefined, pglite: options.pglite } : {}),
      queue: {
        retryDelaySeconds: 1,
        retryDelayMaxSeconds: 2,
        expireInSeconds: 5,
        superviseIntervalSeconds: 1,
        ...options.queue,
      },
    },
    lanes: { pollMs: 200, companyLingerMs: 200, ...options.lanes },
  });
  const url = await service.listen(0, '127.0.0.1');
  sandboxes.hubspot.setWebhookUrl(`${url}/webhooks/hubspot`);
  sandboxes.salesforce.setOutboundUrl(`${url}/webhooks/salesforce/${SALESFORCE_SECRET}`);
  return {
    service,
    url,
    schema,
    admin: adminClient(url),
    async stop() {
      sandboxes.hubspot.setWebhookUrl(undefined);
      sandboxes.salesforce.setOutboundUrl(undefined);
      await service.stop();
    },
  };
}

export type AdminCall = <T = unknown>(
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; body: T }>;

/** Calls the admin API of the service at `url` with the tests' admin token. */
export function adminClient(url: string): AdminCall {
  return async (method, path, body) => {
    const res = await fetch(`${url}/admin/api${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as never };
  };
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
  what = 'the condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** People the partner sandbox knows, with a work e-mail. */
export function partnerPeople(sandboxes: Sandboxes, n: number, offset = 0) {
  return sandboxes.partner.dataset.personRecords.filter((p) => p.workEmail).slice(offset, offset + n);
}
