/**
 * All configuration comes from environment variables, parsed once here. Bad values stop start-up with
 * one message that names every variable at fault and says what each expects: each variable is read on
 * its own, then the pairs that only make sense together. Nothing else reads process.env.
 *
 * Adding a variable is one entry in ConfigSchema (with a default or optional); a variable that must
 * agree with another adds an entry to RELATIONS; and the README's configuration table gets a row.
 */
import { AppError } from './core/errors.js';
import cron from 'node-cron';
import { pino } from 'pino';
import { z } from 'zod';
import { isSecureOrigin, redirectUriProblem } from './core/oauth-urls.js';
import { isOriginForm, normaliseOrigin } from './core/web-origin.js';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

const url = (what: string) =>
  optionalString.refine((v) => v === undefined || URL.canParse(v), { message: `expected ${what}` });

/** A URL the service calls over HTTP: a bare host name or another scheme would only fail at the first call. */
const httpUrl = (what: string) =>
  optionalString.refine((v) => v === undefined || (URL.canParse(v) && /^https?:$/.test(new URL(v).protocol)), {
    message: `expected ${what}`,
  });

/**
 * A schedule, checked by the library that runs it (node-cron), so a mistake is named at start-up
 * rather than when the service schedules it; `off` where the schedule may be switched off.
 */
const cronExpression = (def: string, options: { off: boolean }) =>
  z
    .string()
    .default(def)
    .superRefine((v, ctx) => {
      if (options.off && v === 'off') return;
      const example = def === 'off' ? '0 5 * * 1' : def;
      const problem = cronProblem(v);
      const expected = `expected a cron expression (five fields, or six with seconds)${options.off ? ' or off' : ''}`;
      if (problem) ctx.addIssue({ code: 'custom', message: `${problem}; ${expected}, e.g. ${example}` });
    });

function cronProblem(expression: string): string | undefined {
  let detail: string | undefined;
  try {
    detail = cron.validateDetailed(expression).errors[0]?.message;
  } catch (error) {
    detail = (error as Error).message;
  }
  if (detail) return detail.replace(/ but got /, ', got ').replace(/ is a invalid /, ' is an invalid ');
  return cron.validate(expression) ? undefined : `${expression} is not a schedule node-cron can run`;
}

/** pino's own levels, so a level the logger would refuse is refused here, by name, before it is used. */
export const LOG_LEVELS = [...Object.keys(pino.levels.values), 'silent'];

const int = (def: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce
    .number({ error: `expected a whole number from ${min} to ${max}` })
    .int(`expected a whole number from ${min} to ${max}`)
    .min(min, `expected a whole number from ${min} to ${max}`)
    .max(max, `expected a whole number from ${min} to ${max}`)
    .default(def);

const bool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { error: 'expected true or false' })
    .optional()
    .transform((v) => (v === undefined ? def : ['true', '1', 'yes', 'on'].includes(v)));

/** A comma-separated list of items, spaces around the commas allowed. */
const listOf = (item: string) => new RegExp(`^\\s*${item}(\\s*,\\s*${item})*\\s*$`);
const REQUIRE_LIST = listOf('(contacts|companies):[a-z0-9_]+');
const REQUIRE_WHEN_LIST = listOf('(contacts|companies):[a-z0-9_]+=[a-z0-9_]+:[^\\s=,]+');

export const ConfigSchema = z
  .object({
    PORT: int(3000, 0, 65535),
    /** Where to listen: loopback unless set (a container sets 0.0.0.0 to be reachable from outside it). */
    HOST: z
      .string()
      .regex(
        /^(?:[0-9a-fA-F:.]+|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)$/,
        'expected an interface address such as 127.0.0.1, 0.0.0.0 or ::',
      )
      .default('127.0.0.1'),
    CRM_ENRICH_DATA_DIR: z.string().default('./.data'),
    /** The portal id of the embedded HubSpot sandbox (another id: another portal, with records of its own). */
    SANDBOX_HUBSPOT_PORTAL_ID: int(62515, 1),
    /**
     * Properties the embedded HubSpot sandbox's portal requires (its `--require`), e.g.
     * `companies:founded_year,contacts:jobtitle`: refused on writes through API version 2026-09.
     */
    SANDBOX_HUBSPOT_REQUIRE: optionalString.refine((v) => v === undefined || REQUIRE_LIST.test(v), {
      message: 'expected <object>:<property>[,...] with object contacts or companies, e.g. companies:founded_year',
    }),
    /**
     * Properties it requires when another property has a value (its `--require-when`), e.g.
     * `companies:industry=lifecyclestage:customer`.
     */
    SANDBOX_HUBSPOT_REQUIRE_WHEN: optionalString.refine((v) => v === undefined || REQUIRE_WHEN_LIST.test(v), {
      message:
        'expected <object>:<property>=<property>:<value>[,...] with object contacts or companies, e.g. ' +
        'companies:industry=lifecyclestage:customer',
    }),
    /** The org id of the embedded Salesforce sandbox; its default org when unset. */
    SANDBOX_SALESFORCE_ORG_ID: optionalString.refine(
      (v) => v === undefined || /^00D[a-zA-Z0-9]{12}([a-zA-Z0-9]{3})?$/.test(v),
      {
        message: 'expected a 15- or 18-character organization id starting with 00D',
      },
    ),
    /**
     * false: the embedded Salesforce sandbox's integration user lacks "View Setup and Configuration", so
     * GET /limits answers 403 (its `--no-view-setup`).
     */
    SANDBOX_SALESFORCE_VIEW_SETUP: bool(true),
    LOG_LEVEL: optionalString
      .transform((v) => (v ?? 'info').trim().toLowerCase())
      .refine((v) => LOG_LEVELS.includes(v), { message: `expected one of ${LOG_LEVELS.join(', ')}` }),

    DATABASE_URL: url('a postgres:// URL'),
    /** Several deployments can share one database, each in a schema of its own. */
    CRM_ENRICH_DB_SCHEMA: z
      .string()
      .regex(
        /^[a-z_][a-z0-9_]{0,62}$/,
        'expected a schema name: lower-case letters, digits and underscores, starting with a letter',
      )
      .default('crm_enrich'),
    /**
     * Last resort: a job whose holder gave no heartbeat for this
     * long is failed (an attempt spent) and handed out again.
     */
    CRM_ENRICH_JOB_EXPIRE_SECONDS: int(300, 2, 86_400),
    /**
     * How often a worker vouches for the jobs it holds; a job unvouched
     * for three times this long goes to another worker, unspent.
     */
    CRM_ENRICH_HEARTBEAT_SECONDS: int(1, 1, 60),
    /** How long SIGTERM gives work under way before the rest is put back for the next instance. */
    CRM_ENRICH_SHUTDOWN_SECONDS: int(10, 1, 600),
    /** Records one lane holds at once (0: two CRM batches). The backlog waits in Postgres, not in memory. */
    CRM_ENRICH_LANE_MAX_IN_FLIGHT: int(0, 0, 10_000),
    /** First retry delay of a failed or expired job; later ones double, up to an hour. */
    CRM_ENRICH_JOB_RETRY_DELAY_SECONDS: int(10, 1, 3600),
    /** Attempts a job gets before it is parked in the dead letter, the first one included. */
    CRM_ENRICH_JOB_ATTEMPTS: int(5, 1, 20),
    REDIS_URL: url('a redis:// URL'),
    /** Extra free-mail domains (comma separated) beside the maintained list: their addresses never name an employer. */
    CRM_ENRICH_FREE_EMAIL_DOMAINS: z
      .string()
      .optional()
      .transform((v) =>
        (v ?? '')
          .split(',')
          .map((d) => d.trim().toLowerCase())
          .filter(Boolean),
      )
      .refine((list) => list.every((d) => /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(d)), {
        message: 'expected domains separated by commas, e.g. mail.example,post.example',
      }),

    PARTNER_API_KEY: optionalString,
    PARTNER_BASE_URL: httpUrl('the partner API base URL, an http(s) URL such as https://api.example.com/v1'),
    PARTNER_RATE_LIMIT: int(50, 1, 1000),
    PARTNER_TIMEOUT_MS: int(10_000, 100, 120_000),
    PARTNER_MAX_RETRIES: int(4, 0, 10),
    PARTNER_DAILY_LOOKUP_BUDGET: int(10_000, 0),
    PARTNER_DAILY_LOOKUP_HARD_CAP: int(12_000, 0),
    /** Lookup parameter names the specification does not give; JSON object overriding the defaults. */
    PARTNER_LOOKUP_PARAMS: optionalString,

    HUBSPOT_ACCESS_TOKEN: optionalString,
    HUBSPOT_CLIENT_SECRET: optionalString,
    /** The app's client id: with the client secret, the client-credentials token that reads the webhooks journal. */
    HUBSPOT_CLIENT_ID: optionalString,
    /**
     * How HubSpot's events reach the service: webhooks (HubSpot calls PUBLIC_URL), the webhooks journal (the
     * service reads it; no public URL needed), or both (webhooks first, the journal closing gaps). Unset:
     * both when HUBSPOT_CLIENT_ID is set, else webhooks.
     */
    HUBSPOT_EVENTS: optionalString.pipe(
      z.enum(['webhooks', 'journal', 'both'], { error: 'expected webhooks, journal or both' }).optional(),
    ),
    /** How often the webhooks journal is read for new events, in milliseconds. */
    HUBSPOT_JOURNAL_POLL_MS: int(3_000, 250, 60_000),
    HUBSPOT_BASE_URL: url('the HubSpot API base URL'),
    HUBSPOT_TIER: z.enum(['starter', 'pro', 'oauth']).default('starter'),
    /**
     * Which of HubSpot's API versions the connector calls: the date-based 2026-09 (validation rules held
     * on writes), or v3 to stay on the legacy v3/v4 paths, which HubSpot stops supporting in 2027.
     */
    HUBSPOT_API_VERSION: z
      .enum(['2026-09', 'v3'], { error: 'expected 2026-09 (the date-based API) or v3 (the legacy paths)' })
      .default('2026-09'),
    /** Create a company for a person's employer when none has its domain (it must be known to the partner). */
    HUBSPOT_CREATE_COMPANIES: bool(true),
    /**
     * How long the workflow action waits for a record's run before answering BLOCK and completing the
     * step later through HubSpot's callback; under HubSpot's time for a synchronous answer.
     */
    HUBSPOT_ACTION_WAIT_MS: int(4_000, 0, 20_000),

    SALESFORCE_LOGIN_URL: url('the Salesforce login URL, e.g. https://login.salesforce.com'),
    SALESFORCE_INSTANCE_URL: url('the Salesforce instance URL'),
    SALESFORCE_ACCESS_TOKEN: optionalString,
    SALESFORCE_CLIENT_ID: optionalString,
    SALESFORCE_CLIENT_SECRET: optionalString,
    SALESFORCE_USERNAME: optionalString,
    SALESFORCE_PRIVATE_KEY_FILE: optionalString,
    SALESFORCE_ORG_ID: optionalString,
    SALESFORCE_WEBHOOK_SECRET: optionalString,
    /**
     * The flow action's own secret, held by the External Credential CrmEnrich, which signs each call
     * with it (HMAC-SHA256 over a timestamp and the body); never the outbound messages' URL secret.
     */
    SALESFORCE_ACTION_SECRET: optionalString.refine((v) => v === undefined || v.length >= 32, {
      message: 'expected at least 32 characters, e.g. the output of: openssl rand -hex 32',
    }),
    SALESFORCE_API_VERSION: z
      .string()
      .regex(/^\d+\.\d$/, 'expected an API version such as 62.0')
      .default('62.0'),
    SALESFORCE_API_RESERVE: int(5_000, 0),
    /**
     * Data-health scans and backfills of more records than this read through Bulk API 2.0 query jobs
     * (a few calls for the whole object) rather than REST query pages; Salesforce recommends it above 2,000.
     */
    SALESFORCE_BULK_THRESHOLD: int(2_000, 0),
    /**
     * Bulk writes (refresh, backfill) of at least this many records of one object go through one Bulk API
     * 2.0 ingest job rather than a collections call per 200 records; 0 never uses the Bulk API for writes.
     */
    SALESFORCE_BULK_WRITE_MIN: int(2_000, 0, 10_000),
    /** Create an Account for a Contact's employer when none has its website (it must be known to the partner). */
    SALESFORCE_CREATE_ACCOUNTS: bool(true),
    /** The integration user's permission set, which `mappings provision` grants the fields it creates. */
    SALESFORCE_PERMISSION_SET: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_]{0,79}$/, 'expected a permission set API name such as Crm_Enrich_Integration')
      .default('Crm_Enrich_Integration'),
    /**
     * How long the flow action waits for its records' runs; those not
     * settled by then answer `pending`. Under the Apex callout timeout.
     */
    SALESFORCE_ACTION_WAIT_MS: int(8_000, 0, 110_000),

    /** How long a webhook body may take to arrive after its headers; a slower sender is cut off. */
    WEBHOOK_BODY_TIMEOUT_SECONDS: int(10, 1, 120),
    /** Webhook body megabytes held in memory at once, across requests; beyond it senders get 503 and Retry-After. */
    WEBHOOK_BODY_BUDGET_MB: int(16, 2, 1024),

    PUBLIC_URL: url('the public base URL the CRMs call, e.g. https://enrich.example.com'),
    ADMIN_TOKEN: optionalString,
    REFRESH_CRON: cronExpression('0 3 * * *', { off: false }),
    REFRESH_AFTER_DAYS: int(30, 1, 3650),

    /** Largest number of people one discovery run may add; runs ask for fewer. */
    DISCOVERY_RUN_LIMIT: int(100, 1, 1000),
    /** Records discovery may create per UTC day, across instances. */
    DISCOVERY_DAILY_LIMIT: int(200, 0),
    /** When scheduled discovery visits the companies whose persona property names a saved persona; `off` to never. */
    DISCOVERY_CRON: cronExpression('30 4 * * *', { off: true }),
    /**
     * A job-change sweep looks up only people whose partner data
     * is at least this many days old (0: everyone in the segment).
     */
    JOB_CHANGE_MIN_AGE_DAYS: int(30, 0, 3650),
    /** When the segments of the job-change actions file's `sweep` section are swept; `off` (the default) to never. */
    JOB_CHANGE_CRON: cronExpression('off', { off: true }),
    /** People scheduled discovery may add per company per visit. */
    DISCOVERY_SCHEDULED_LIMIT: int(10, 1, 1000),
    /** The MCP server at /mcp and its OAuth authorization server (consent by the admin token). */
    MCP_ENABLED: bool(true),
    /** The pre-registered public client id, for assistants and developer tools that cannot register. */
    MCP_CLIENT_ID: optionalString
      .refine((v) => v === undefined || /^[A-Za-z0-9._~-]{1,128}$/.test(v), {
        message: 'expected a client id of 1 to 128 letters, digits and . _ ~ -',
      })
      .transform((v) => v ?? 'crm-enrich-mcp'),
    /** Where the pre-registered client may be sent back to; loopback addresses match on any port. */
    MCP_CLIENT_REDIRECT_URIS: optionalString
      .transform((v) =>
        (v ?? 'http://127.0.0.1:53612/callback,http://localhost:53612/callback')
          .split(',')
          .map((u) => u.trim())
          .filter(Boolean),
      )
      .superRefine((list, ctx) => {
        if (list.length === 0) ctx.addIssue({ code: 'custom', message: 'expected redirect URIs separated by commas' });
        for (const uri of list) {
          const problem = redirectUriProblem(uri);
          if (problem) ctx.addIssue({ code: 'custom', message: `${uri}: ${problem}` });
        }
      }),
    /** Lifetime of an MCP access token; at most an hour, after which the client uses its refresh token. */
    MCP_ACCESS_TOKEN_SECONDS: int(3600, 60, 3600),
    /** Lifetime of a refresh token; each use replaces it with a new one. */
    MCP_REFRESH_TOKEN_DAYS: int(30, 1, 365),
    /** How long enrich_record waits for the enrichment lane before answering "still running". */
    MCP_ENRICH_WAIT_SECONDS: int(30, 0, 120),
    /**
     * Browser origins besides the service's own that may call /mcp (comma separated, e.g.
     * https://app.example.com); any other Origin is refused (DNS rebinding, cross-site requests).
     */
    MCP_ALLOWED_ORIGINS: optionalString
      .transform((v) =>
        (v ?? '')
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean),
      )
      .superRefine((list, ctx) => {
        for (const origin of list) {
          if (!isOriginForm(origin))
            ctx.addIssue({ code: 'custom', message: `${origin}: expected an origin such as https://app.example.com` });
        }
      })
      .transform((list) => list.map(normaliseOrigin)),
    /**
     * Percent of PARTNER_DAILY_LOOKUP_BUDGET one MCP client may spend in a UTC day (lookups, enrichments,
     * discovery), so no single assistant can use up the credits new CRM records need.
     */
    MCP_CLIENT_DAILY_LOOKUP_SHARE: int(10, 0, 100),
    /** Requests one MCP client may send to /mcp per minute, per instance; past it the answer is 429. */
    MCP_CLIENT_REQUESTS_PER_MINUTE: int(120, 1, 100_000),
  })
  // Unknown variables (the rest of the environment) are left out of the configuration.
  .strip();

export type Config = z.infer<typeof ConfigSchema>;

export interface ConfigProblem {
  variable: string;
  message: string;
}

/**
 * Variables that are each valid alone but not together. A relation runs only when every variable it
 * reads was valid, so a value already reported is not reported again in other words.
 */
interface Relation {
  reads: (keyof Config)[];
  problems(config: Config): ConfigProblem[];
}

const RELATIONS: Relation[] = [
  {
    // Without an access token the embedded HubSpot sandbox is started, and it supplies the app's credentials.
    reads: ['HUBSPOT_EVENTS', 'HUBSPOT_ACCESS_TOKEN', 'HUBSPOT_CLIENT_ID', 'HUBSPOT_CLIENT_SECRET'],
    problems: (c) =>
      (c.HUBSPOT_EVENTS === 'journal' || c.HUBSPOT_EVENTS === 'both') &&
      c.HUBSPOT_ACCESS_TOKEN &&
      (!c.HUBSPOT_CLIENT_ID || !c.HUBSPOT_CLIENT_SECRET)
        ? [
            {
              variable: 'HUBSPOT_EVENTS',
              message:
                `${c.HUBSPOT_EVENTS} reads the webhooks journal, which needs the app's client credentials: set ` +
                'HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET, or HUBSPOT_EVENTS=webhooks',
            },
          ]
        : [],
  },
  {
    reads: ['SALESFORCE_ACTION_SECRET', 'SALESFORCE_WEBHOOK_SECRET'],
    problems: (c) =>
      c.SALESFORCE_ACTION_SECRET && c.SALESFORCE_ACTION_SECRET === c.SALESFORCE_WEBHOOK_SECRET
        ? [
            {
              variable: 'SALESFORCE_ACTION_SECRET',
              message: "must differ from SALESFORCE_WEBHOOK_SECRET, which is written into the outbound messages' URL",
            },
          ]
        : [],
  },
  {
    // The OAuth issuer and the MCP resource are PUBLIC_URL: tokens must not travel in clear text off this machine.
    reads: ['MCP_ENABLED', 'PUBLIC_URL'],
    problems: (c) =>
      c.MCP_ENABLED && c.PUBLIC_URL && !isSecureOrigin(c.PUBLIC_URL)
        ? [
            {
              variable: 'PUBLIC_URL',
              message:
                'the MCP sign-in needs an https:// URL here (http only on a loopback address such as 127.0.0.1); ' +
                'or set MCP_ENABLED=false',
            },
          ]
        : [],
  },
  {
    reads: ['PARTNER_API_KEY', 'PARTNER_BASE_URL'],
    problems: (c) => {
      if (c.PARTNER_API_KEY && !c.PARTNER_BASE_URL)
        return [
          {
            variable: 'PARTNER_BASE_URL',
            message: 'must be set with PARTNER_API_KEY: the partner API base URL, e.g. https://api.example.com/v1',
          },
        ];
      // Without a key the embedded default would start the partner sandbox in the URL's place.
      if (c.PARTNER_BASE_URL && !c.PARTNER_API_KEY)
        return [
          {
            variable: 'PARTNER_API_KEY',
            message:
              'must be set with PARTNER_BASE_URL (the key from the partner dashboard); unset PARTNER_BASE_URL ' +
              'too to use the local partner sandbox instead',
          },
        ];
      return [];
    },
  },
  {
    // Without a token the embedded default would start the HubSpot sandbox in the URL's place.
    reads: ['HUBSPOT_ACCESS_TOKEN', 'HUBSPOT_BASE_URL'],
    problems: (c) =>
      c.HUBSPOT_BASE_URL && !c.HUBSPOT_ACCESS_TOKEN
        ? [
            {
              variable: 'HUBSPOT_ACCESS_TOKEN',
              message:
                'must be set with HUBSPOT_BASE_URL (the private app or service key token); unset HUBSPOT_BASE_URL ' +
                'too to use the local HubSpot sandbox instead',
            },
          ]
        : [],
  },
  {
    // Without credentials the embedded default would start the Salesforce sandbox in the URLs' place.
    reads: ['SALESFORCE_ACCESS_TOKEN', 'SALESFORCE_CLIENT_ID', 'SALESFORCE_LOGIN_URL', 'SALESFORCE_INSTANCE_URL'],
    problems: (c) =>
      (c.SALESFORCE_LOGIN_URL || c.SALESFORCE_INSTANCE_URL) && !c.SALESFORCE_ACCESS_TOKEN && !c.SALESFORCE_CLIENT_ID
        ? [
            {
              variable: c.SALESFORCE_LOGIN_URL ? 'SALESFORCE_LOGIN_URL' : 'SALESFORCE_INSTANCE_URL',
              message:
                'is set without credentials (SALESFORCE_CLIENT_ID, or SALESFORCE_ACCESS_TOKEN); set them, or unset ' +
                'it to use the local Salesforce sandbox instead',
            },
          ]
        : [],
  },
];

/**
 * Reads every variable, and every relation between valid ones: the configuration (a bad value left at
 * its default, so later checks can still run) and every problem found, in one list.
 */
export function readConfig(env: NodeJS.ProcessEnv = process.env): { config: Config; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const values: Record<string, unknown> = {};
  for (const [variable, schema] of Object.entries(ConfigSchema.shape)) {
    const result = (schema as z.ZodType).safeParse(env[variable]);
    if (result.success) {
      values[variable] = result.data;
    } else {
      problems.push(...result.error.issues.map((issue) => ({ variable, message: issue.message })));
      values[variable] = (schema as z.ZodType).safeParse(undefined).data;
    }
  }
  const config = values as Config;
  const bad = new Set(problems.map((p) => p.variable));
  for (const relation of RELATIONS) {
    if (relation.reads.some((variable) => bad.has(variable))) continue;
    problems.push(...relation.problems(config));
  }
  return { config, problems };
}

export class ConfigError extends AppError {
  constructor(readonly problems: ConfigProblem[]) {
    super(
      'invalid_config',
      'Invalid configuration:\n' + problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n'),
      'config',
    );
  }
}

/** Parses the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const { config, problems } = readConfig(env);
  if (problems.length) throw new ConfigError(problems);
  return config;
}
