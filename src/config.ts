/**
 * All configuration comes from environment variables, parsed once here. A bad value stops start-up
 * with a message that names the variable and says what it expects. Nothing else reads process.env.
 */
import { z } from 'zod';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

const url = (what: string) =>
  optionalString.refine((v) => v === undefined || URL.canParse(v), { message: `expected ${what}` });

const int = (def: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce
    .number({ error: `expected a whole number from ${min} to ${max}` })
    .int(`expected a whole number from ${min} to ${max}`)
    .min(min, `expected a whole number from ${min} to ${max}`)
    .max(max, `expected a whole number from ${min} to ${max}`)
    .default(def);

export const ConfigSchema = z.object({
  PORT: int(3000, 0, 65535),
  CRM_ENRICH_DATA_DIR: z.string().default('./.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  DATABASE_URL: url('a postgres:// URL'),
  /** Several deployments can share one database, each in a schema of its own. */
  CRM_ENRICH_DB_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'expected a schema name: lower-case letters, digits and underscores, starting with a letter')
    .default('crm_enrich'),
  /** A job claimed this long without being settled lost its worker (a crash) and is handed out again. */
  CRM_ENRICH_JOB_EXPIRE_SECONDS: int(300, 2, 86_400),
  /** First retry delay of a failed or expired job; later ones double, up to an hour. */
  CRM_ENRICH_JOB_RETRY_DELAY_SECONDS: int(10, 1, 3600),
  REDIS_URL: url('a redis:// URL'),

  PARTNER_API_KEY: optionalString,
  PARTNER_BASE_URL: url('the partner API base URL, e.g. https://api.example.com/v1'),
  PARTNER_RATE_LIMIT: int(50, 1, 1000),
  PARTNER_TIMEOUT_MS: int(10_000, 100, 120_000),
  PARTNER_MAX_RETRIES: int(4, 0, 10),
  PARTNER_DAILY_LOOKUP_BUDGET: int(10_000, 0),
  PARTNER_DAILY_LOOKUP_HARD_CAP: int(12_000, 0),
  /** Lookup parameter names the specification does not give; JSON object overriding the defaults. */
  PARTNER_LOOKUP_PARAMS: optionalString,

  HUBSPOT_ACCESS_TOKEN: optionalString,
  HUBSPOT_CLIENT_SECRET: optionalString,
  HUBSPOT_BASE_URL: url('the HubSpot API base URL'),
  HUBSPOT_TIER: z.enum(['starter', 'pro', 'oauth']).default('starter'),

  SALESFORCE_LOGIN_URL: url('the Salesforce login URL, e.g. https://login.salesforce.com'),
  SALESFORCE_INSTANCE_URL: url('the Salesforce instance URL'),
  SALESFORCE_ACCESS_TOKEN: optionalString,
  SALESFORCE_CLIENT_ID: optionalString,
  SALESFORCE_CLIENT_SECRET: optionalString,
  SALESFORCE_USERNAME: optionalString,
  SALESFORCE_PRIVATE_KEY_FILE: optionalString,
  SALESFORCE_ORG_ID: optionalString,
  SALESFORCE_WEBHOOK_SECRET: optionalString,
  SALESFORCE_API_VERSION: z.string().regex(/^\d+\.\d$/, 'expected an API version such as 62.0').default('62.0'),
  SALESFORCE_API_RESERVE: int(5_000, 0),

  PUBLIC_URL: url('the public base URL the CRMs call, e.g. https://enrich.example.com'),
  ADMIN_TOKEN: optionalString,
  REFRESH_CRON: z.string().default('0 3 * * *'),
  REFRESH_AFTER_DAYS: int(30, 1, 3650),
});

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: { variable: string; message: string }[]) {
    super(
      'Invalid configuration:\n' +
        problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n'),
    );
    this.name = 'ConfigError';
  }
}

/** Parses the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = ConfigSchema.safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => ({ variable: String(issue.path[0] ?? '?'), message: issue.message })),
  );
}
