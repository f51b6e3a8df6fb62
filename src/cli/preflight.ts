/**
 * What `serve` checks before it starts anything: every setting that can be checked without the
 * service running, the database server included, reported together and each naming its variable.
 * Without it a bad setting surfaced only after the sandboxes had started (seconds later), and an
 * unreachable DATABASE_URL as a bare `connect ECONNREFUSED`.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import pg from 'pg';
import { salesforceAuthFromConfig, SalesforceConfigError } from '../../connectors/salesforce/from-config.js';
import { toId18 } from '../../connectors/salesforce/ids.js';
import { ConfigError, type Config, type ConfigProblem } from '../config.js';
import { loadMappingDir, MappingError } from '../mapping/index.js';
import { parseLookupParams } from '../partner/lookup-params.js';
import { otherHolder } from '../store/pglite-lock.js';
import { embeddedDatabaseLock } from '../store/store.js';

/** How long the database server has to accept a connection before start-up gives up on it. */
const DATABASE_CONNECT_TIMEOUT_MS = 5_000;

/**
 * Throws ConfigError naming every bad variable (`known`: those the configuration's own reading found,
 * reported with the rest), or MappingError for invalid mapping files. A check whose variables are
 * already reported is skipped: it would only say the same thing of a value that was set aside.
 */
export async function preflight(
  config: Config,
  options: { mappingsDir: string; known?: ConfigProblem[] },
): Promise<void> {
  const known = options.known ?? [];
  const bad = new Set(known.map((p) => p.variable));
  const clear = (...variables: string[]) => variables.every((v) => !bad.has(v));
  const problems: ConfigProblem[] = [...known, ...settingProblems(config, clear)];
  if (clear('CRM_ENRICH_DATA_DIR')) problems.push(...dataDirProblems(config));
  if (config.DATABASE_URL) {
    const problem = clear('DATABASE_URL') ? await databaseProblem(config.DATABASE_URL) : undefined;
    if (problem) problems.push({ variable: 'DATABASE_URL', message: problem });
  } else if (clear('CRM_ENRICH_DATA_DIR')) {
    problems.push(...embeddedDatabaseProblems(config));
  }
  const port = clear('HOST', 'PORT') ? await portProblem(config.HOST, config.PORT) : undefined;
  if (port) problems.push({ variable: 'PORT', message: port });
  if (problems.length) throw new ConfigError(problems);
  const loaded = await loadMappingDir(options.mappingsDir);
  if (loaded.problems.length) throw new MappingError(loaded.problems);
}

/** Settings that hold a value only a later step parses, or that only a connector can judge. */
function settingProblems(config: Config, clear: (...variables: string[]) => boolean): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (clear('PARTNER_LOOKUP_PARAMS')) {
    try {
      parseLookupParams(config.PARTNER_LOOKUP_PARAMS);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
  }
  if (Object.keys(config).every((variable) => !variable.startsWith('SALESFORCE_') || clear(variable))) {
    try {
      salesforceAuthFromConfig(config);
    } catch (error) {
      if (!(error instanceof SalesforceConfigError)) throw error;
      problems.push({ variable: error.variable, message: error.message });
    }
  }
  // A 15-character id whose 18-character form cannot be made: found here rather than as the sandbox starts.
  if (
    clear('SANDBOX_SALESFORCE_ORG_ID') &&
    config.SANDBOX_SALESFORCE_ORG_ID &&
    !toId18(config.SANDBOX_SALESFORCE_ORG_ID)
  )
    problems.push({
      variable: 'SANDBOX_SALESFORCE_ORG_ID',
      message: 'its last three characters do not match the 15-character id',
    });
  return problems;
}

/** The data directory keeps the embedded database and the generated secrets: it must be writable. */
function dataDirProblems(config: Config): ConfigProblem[] {
  const dir = config.CRM_ENRICH_DATA_DIR;
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return [];
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const message = `${dir} cannot be created or written to (${code}); point it at a directory this user may write`;
    return [{ variable: 'CRM_ENRICH_DATA_DIR', message }];
  }
}

/**
 * A second `serve` on the same data directory would open the embedded database another process has
 * open, and its sandboxes would write that directory's sandbox files: say so before either starts.
 */
function embeddedDatabaseProblems(config: Config): ConfigProblem[] {
  const holder = otherHolder(embeddedDatabaseLock(config.CRM_ENRICH_DATA_DIR));
  if (holder === undefined) return [];
  const message =
    `the embedded database in ${config.CRM_ENRICH_DATA_DIR} is already open in process ${holder} ` +
    '(another crm-enrich?); stop that process, point CRM_ENRICH_DATA_DIR at another directory, ' +
    'or set DATABASE_URL to a Postgres server';
  return [{ variable: 'CRM_ENRICH_DATA_DIR', message }];
}

/** Listens on the service's address for a moment: a port another process holds is named before anything starts. */
async function portProblem(host: string, port: number): Promise<string | undefined> {
  if (port === 0) return undefined;
  const server = createServer();
  const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    server.once('error', resolve);
    server.listen(port, host, () => resolve(undefined));
  });
  if (!error) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return undefined;
  }
  if (error.code === 'EADDRINUSE')
    return `${host}:${port} is already in use (another crm-enrich?); stop that process or set PORT to a free port`;
  if (error.code === 'EACCES')
    return `${host}:${port} may not be listened on by this user (EACCES); choose a port above 1023`;
  return `cannot listen on ${host}:${port} (${error.code ?? 'error'})`;
}

/** Connects once; what went wrong, in words that name the server but never the credentials. */
async function databaseProblem(url: string): Promise<string | undefined> {
  let where: string;
  try {
    const parsed = new URL(url);
    where = `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`;
  } catch {
    return 'expected a postgres:// URL';
  }
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS });
  // A failed connection also emits 'error'; the rejected connect() below carries the same error.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return `cannot use the Postgres server at ${where}: ${describeConnectError(error, where)}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function describeConnectError(error: unknown, where: string): string {
  const code = (error as { code?: string }).code;
  switch (code) {
    case 'ECONNREFUSED':
      return `nothing accepts connections there (connection refused); start the server or correct the host and port`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host name is not known (${code})`;
    case '28P01':
    case '28000':
      return 'the server refused the user name or password';
    case '3D000':
      return 'the database named in the URL does not exist';
    default:
      if (/timeout/i.test((error as Error).message ?? '')) {
        return `no answer within ${DATABASE_CONNECT_TIMEOUT_MS / 1000} s from ${where}`;
      }
      return `the connection failed (${code ?? 'error'})`;
  }
}
