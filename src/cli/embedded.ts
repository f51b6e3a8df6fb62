/**
 * The embedded default: every outside service that has no credentials configured is replaced by its
 * local sandbox, one by one, so `npm start` with nothing set runs the whole loop on one machine.
 * The CRM sandboxes send their webhooks to this service, and a few demo records arrive over the
 * first minute so the log shows records being enriched.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hubspotConnectorFromConfig } from '../../connectors/hubspot/from-config.js';
import { startHubspotSandbox, type HubspotSandbox } from '../../connectors/hubspot/sandbox/server.js';
import { parseRequired, parseRequiredWhen } from '../../connectors/hubspot/sandbox/command.js';
import { SALESFORCE_JOB_CHANGE_FIELDS } from '../../connectors/salesforce/job-change-actions.js';
import { SALESFORCE_PREVIOUS_ACCOUNT_FIELD } from '../../connectors/salesforce/job-change-employer.js';
import { describeFieldsFor } from '../../connectors/salesforce/sandbox/fields-from-specs.js';
import {
  startSalesforceSandbox,
  type SalesforceSandbox,
  type SalesforceSandboxOptions,
} from '../../connectors/salesforce/sandbox/server.js';
import { toId18 } from '../../connectors/salesforce/ids.js';
import type { Config } from '../config.js';
import { createRateLimiter } from '../limits/create-rate-limiter.js';
import { logger } from '../logger.js';
import { customPropertiesOf, loadMappingDir, type LoadedMapping } from '../mapping/index.js';
import { SANDBOX_KEY } from '../partner/sandbox/server.js';
import { startPartnerSandboxThread, type ThreadedPartnerSandbox } from '../partner/sandbox/thread.js';

const log = logger('service.embedded');
const HUBSPOT_SANDBOX_TOKEN = 'sandbox-token';

export interface EmbeddedEnvironment {
  config: Config;
  adminToken: string;
  partner?: ThreadedPartnerSandbox;
  hubspot?: HubspotSandbox;
  salesforce?: SalesforceSandbox;
  /** The file holding the flow action's secret, when it was generated rather than set. */
  actionSecretFile?: string;
  close(): Promise<void>;
}

/** The file under the data directory that keeps the embedded default's flow action secret. */
const SALESFORCE_ACTION_SECRET_FILE = 'salesforce-action-secret';

/** ADMIN_TOKEN, or one generated once and kept in the data directory (readable by its owner only). */
export function adminTokenFor(config: Config): string {
  return config.ADMIN_TOKEN ?? keptSecret(config, 'admin-token');
}

/**
 * A secret generated once per data directory and kept there, readable by its owner only: never a
 * constant that anyone reading this code could use to sign requests to someone's service.
 */
function keptSecret(config: Config, name: string): string {
  const file = join(config.CRM_ENRICH_DATA_DIR, name);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(config.CRM_ENRICH_DATA_DIR, { recursive: true });
    const secret = randomBytes(24).toString('base64url');
    writeFileSync(file, `${secret}\n`, { mode: 0o600 });
    return secret;
  }
}

/**
 * Gives a HubSpot sandbox portal the custom properties the mappings need, as an admin would provision them.
 *
 * The calls go out at most 10 per 100 ms, on a limiter of their own. The connector's budget (the tier's
 * 100 calls per 10 s) spreads calls 100 ms apart, which made the some 35 property calls take 3.5 s of every
 * start; the sandbox allows the tier's 100 per 10 s, so they fit in its window at once (were there more,
 * its 429 would be waited out as any other). A limiter of its own, because one of the service's id and
 * another budget in the same process is refused.
 */
export async function provisionHubspotSandbox(config: Config, mappings: LoadedMapping[]): Promise<void> {
  const limiter = createRateLimiter({ id: `hubspot:provisioning:${randomUUID()}`, max: 10, windowMs: 100 });
  const provisioner = hubspotConnectorFromConfig(config, { limiter });
  if (!provisioner) {
    await limiter.stop();
    throw new Error('provisioning the HubSpot sandbox needs HUBSPOT_ACCESS_TOKEN and HUBSPOT_BASE_URL');
  }
  try {
    for (const { document } of mappings.filter((m) => m.document.crm === 'hubspot')) {
      const result = await provisioner.ensureProperties(document.object, customPropertiesOf(document));
      if (result.created.length)
        log.info(
          { object: document.object, created: result.created },
          'provisioned custom properties in the HubSpot sandbox',
        );
    }
    // The job-change actions' properties too (mappings/job-changes.yaml), so a sandbox move can set them.
    for (const [object, specs] of Object.entries(provisioner.jobChangeProperties ?? {}))
      await provisioner.ensureProperties(object, [...specs]);
    // And the "Former employee" association label the employer action puts on the company a contact left.
    await provisioner.provisionJobChangeSchema?.();
  } finally {
    await provisioner.close();
    await limiter.stop();
  }
}

/** The custom fields a Salesforce sandbox org starts with: those the mappings need, as an admin would add them. */
export function salesforceSandboxFields(mappings: LoadedMapping[]): SalesforceSandboxOptions['customFields'] {
  const fields: NonNullable<SalesforceSandboxOptions['customFields']> = Object.fromEntries(
    mappings
      .filter((m) => m.document.crm === 'salesforce')
      .map((m) => [m.document.object, describeFieldsFor(customPropertiesOf(m.document))]),
  );
  // The job-change actions' fields too (mappings/job-changes.yaml), as an admin adds them.
  for (const object of ['Contact', 'Lead'] as const)
    fields[object] = [...(fields[object] ?? []), ...describeFieldsFor([...SALESFORCE_JOB_CHANGE_FIELDS])];
  fields.Contact = [...(fields.Contact ?? []), ...describeFieldsFor([SALESFORCE_PREVIOUS_ACCOUNT_FIELD])];
  return fields;
}

/** Where the CRM sandboxes keep their records across restarts: one file per portal or org. */
function sandboxDir(config: Config): string {
  return join(config.CRM_ENRICH_DATA_DIR, 'sandboxes');
}

/** Listens on the preferred port, or on any free one when it is taken. */
async function onPort<T>(preferred: number, start: (port: number) => Promise<T>): Promise<T> {
  try {
    return await start(preferred);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    return start(0);
  }
}

export async function embeddedEnvironment(
  config: Config,
  options: { mappingsDir?: string; port?: number } = {},
): Promise<EmbeddedEnvironment> {
  const port = options.port ?? config.PORT;
  const next: Config = { ...config };
  const env: EmbeddedEnvironment = { config: next, adminToken: adminTokenFor(config), close: async () => undefined };
  const closers: (() => Promise<void>)[] = [];
  env.close = async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  };
  const publicUrl = config.PUBLIC_URL ?? `http://127.0.0.1:${port}`;
  const offset = (n: number) => (port === 0 ? 0 : port + n);
  const { mappings } = await loadMappingDir(options.mappingsDir ?? 'mappings');

  try {
    if (!config.PARTNER_API_KEY) {
      env.partner = await onPort(offset(1), (p) => startPartnerSandboxThread({ port: p }));
      closers.push(() => env.partner!.close());
      next.PARTNER_API_KEY = SANDBOX_KEY;
      next.PARTNER_BASE_URL = env.partner.url;
    }
    if (!config.HUBSPOT_ACCESS_TOKEN) {
      // The secret the user set, or one of this data directory: the sandbox signs with the secret
      // the service checks, and nobody else knows it.
      const clientSecret = config.HUBSPOT_CLIENT_SECRET ?? keptSecret(config, 'hubspot-client-secret');
      env.hubspot = await onPort(offset(2), (p) =>
        startHubspotSandbox({
          port: p,
          portalId: config.SANDBOX_HUBSPOT_PORTAL_ID,
          ...(config.SANDBOX_HUBSPOT_REQUIRE ? { require: parseRequired(config.SANDBOX_HUBSPOT_REQUIRE) } : {}),
          ...(config.SANDBOX_HUBSPOT_REQUIRE_WHEN
            ? { requireWhen: parseRequiredWhen(config.SANDBOX_HUBSPOT_REQUIRE_WHEN) }
            : {}),
          dataDir: sandboxDir(config),
          accessToken: HUBSPOT_SANDBOX_TOKEN,
          clientSecret,
          ...(config.HUBSPOT_CLIENT_ID ? { clientId: config.HUBSPOT_CLIENT_ID } : {}),
          // Journal only: as behind a firewall, no webhook reaches the service.
          ...(config.HUBSPOT_EVENTS === 'journal' ? {} : { webhookUrl: `${publicUrl}/webhooks/hubspot` }),
          appUrl: publicUrl,
        }),
      );
      closers.push(() => env.hubspot!.close());
      next.HUBSPOT_ACCESS_TOKEN = HUBSPOT_SANDBOX_TOKEN;
      next.HUBSPOT_CLIENT_SECRET = clientSecret;
      // The sandbox keeps its app's webhooks journal too: by default the service hears of records both ways.
      next.HUBSPOT_CLIENT_ID = config.HUBSPOT_CLIENT_ID ?? 'sandbox-client-id';
      next.HUBSPOT_BASE_URL = env.hubspot.url;
      await provisionHubspotSandbox(next, mappings);
    }
    if (!config.SALESFORCE_ACCESS_TOKEN && !config.SALESFORCE_CLIENT_ID) {
      const secret = config.SALESFORCE_WEBHOOK_SECRET ?? randomBytes(12).toString('hex');
      const customFields = salesforceSandboxFields(mappings);
      const orgId = config.SANDBOX_SALESFORCE_ORG_ID && toId18(config.SANDBOX_SALESFORCE_ORG_ID);
      if (orgId === undefined && config.SANDBOX_SALESFORCE_ORG_ID)
        throw new Error('SANDBOX_SALESFORCE_ORG_ID: its last three characters do not match the 15-character id');
      env.salesforce = await onPort(offset(3), (p) =>
        startSalesforceSandbox({
          port: p,
          ...(orgId ? { orgId } : {}),
          viewSetup: config.SANDBOX_SALESFORCE_VIEW_SETUP,
          dataDir: sandboxDir(config),
          outboundUrl: `${publicUrl}/webhooks/salesforce/${secret}`,
          customFields,
        }),
      );
      closers.push(() => env.salesforce!.close());
      next.SALESFORCE_LOGIN_URL = env.salesforce.url;
      next.SALESFORCE_CLIENT_ID = 'sandbox';
      next.SALESFORCE_CLIENT_SECRET = 'sandbox';
      next.SALESFORCE_ORG_ID = env.salesforce.orgId;
      next.SALESFORCE_WEBHOOK_SECRET = secret;
      // The flow action's own secret, as an admin would put in the External Credential: the one set, or
      // one of this data directory.
      next.SALESFORCE_ACTION_SECRET = config.SALESFORCE_ACTION_SECRET;
      if (!config.SALESFORCE_ACTION_SECRET) {
        next.SALESFORCE_ACTION_SECRET = keptSecret(config, SALESFORCE_ACTION_SECRET_FILE);
        env.actionSecretFile = join(config.CRM_ENRICH_DATA_DIR, SALESFORCE_ACTION_SECRET_FILE);
      }
    }
  } catch (error) {
    await env.close();
    throw error;
  }
  return env;
}
