/**
 * `crm-enrich serve` with bad settings: every problem is reported at once, each naming its variable,
 * before any sandbox starts. The embedded default would otherwise start the partner, HubSpot and
 * Salesforce sandboxes first (a few seconds, and the HubSpot sandbox's secret written to the data
 * directory), and an unreachable DATABASE_URL surfaced as a bare `connect ECONNREFUSED`.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVER_URL } from '../support/db.js';
import { freePort, runCli } from './process.js';

const dirs: string[] = [];

/** An environment with nothing set but a fresh data directory: the embedded default. */
async function bareEnv(extra: Record<string, string>): Promise<{ env: Record<string, string>; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'crm-enrich-startup-'));
  dirs.push(dataDir);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dataDir,
    LOG_LEVEL: 'debug',
    CRM_ENRICH_DATA_DIR: dataDir,
    PORT: String(await freePort()),
    ...extra,
  };
  return { env, dataDir };
}

/** What a started sandbox leaves behind: its URL in the output, the HubSpot sandbox's secret in the data directory. */
function expectNoSandboxStarted(output: string, dataDir: string): void {
  expect(output).not.toMatch(/http:\/\/127\.0\.0\.1:\d+/);
  expect(output).not.toMatch(/sandbox/i);
  expect(existsSync(join(dataDir, 'hubspot-client-secret'))).toBe(false);
}

describe('start-up with bad settings', () => {
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('names an unreachable DATABASE_URL, without its password, before any sandbox starts', async () => {
    const port = await freePort();
    const { env, dataDir } = await bareEnv({ DATABASE_URL: `postgres://enrich:hunter2-secret@127.0.0.1:${port}/crm` });
    const result = await runCli(['serve', '--no-demo'], env);
    expect(result.code).toBe(1);
    expect(result.output).toMatch(
      new RegExp(
        `DATABASE_URL: cannot use the Postgres server at 127\\.0\\.0\\.1:${port}: nothing accepts connections there`,
      ),
    );
    expect(result.output).not.toContain('hunter2-secret');
    expectNoSandboxStarted(result.output, dataDir);
  });

  it('names a database that does not exist on a server that answers', async () => {
    const url = new URL(SERVER_URL);
    url.pathname = '/no_such_database_here';
    const { env, dataDir } = await bareEnv({ DATABASE_URL: url.toString() });
    const result = await runCli(['serve', '--no-demo'], env);
    expect(result.code).toBe(1);
    expect(result.output).toMatch(
      /DATABASE_URL: cannot use the Postgres server at .*: the database named in the URL does not exist/,
    );
    expectNoSandboxStarted(result.output, dataDir);
  });

  it('reports every setting only a later step used to parse, all at once, each by its variable', async () => {
    const { env, dataDir } = await bareEnv({
      PARTNER_API_KEY: 'a-key',
      PARTNER_LOOKUP_PARAMS: '{"company": {"fqdn": ',
      SALESFORCE_CLIENT_ID: 'an-app',
    });
    const result = await runCli(['serve', '--no-demo'], env);
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/PARTNER_BASE_URL: must be set with PARTNER_API_KEY/);
    expect(result.output).toMatch(/PARTNER_LOOKUP_PARAMS: expected a JSON object/);
    expect(result.output).toMatch(/SALESFORCE_CLIENT_SECRET: The client credentials flow needs both/);
    expectNoSandboxStarted(result.output, dataDir);
  });

  it('reports bad values, a bad schedule, an unknown log level and a URL without its key in one list', async () => {
    const { env, dataDir } = await bareEnv({
      LOG_LEVEL: 'verbose',
      REFRESH_CRON: '0 3 * *',
      HUBSPOT_TIER: 'gold',
      PARTNER_API_KEY: '',
      PARTNER_BASE_URL: 'https://partner.example.com/v1',
      SALESFORCE_CLIENT_ID: 'an-app',
    });
    const result = await runCli(['serve', '--no-demo'], env);
    expect(result.code).toBe(1);
    const listed = result.output.split('\n').filter((line) => /^ {2}[A-Z_]+: /.test(line));
    expect(listed.map((line) => line.trim().split(':')[0])).toEqual([
      'LOG_LEVEL',
      'HUBSPOT_TIER',
      'REFRESH_CRON',
      'PARTNER_API_KEY',
      'SALESFORCE_CLIENT_SECRET',
    ]);
    expect(result.output).toContain('LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent');
    expect(result.output).toContain('REFRESH_CRON: expected 5 or 6 fields, got 4;');
    expect(result.output).toContain('PARTNER_API_KEY: must be set with PARTNER_BASE_URL');
    // A list, not a stack trace (pino refused the level at import before the configuration was read).
    expect(result.output).not.toMatch(/^\s+at /m);
    // The message names the sandbox a key-less URL would have started; none did.
    expect(result.output).not.toMatch(/http:\/\/127\.0\.0\.1:\d+/);
    expect(existsSync(join(dataDir, 'hubspot-client-secret'))).toBe(false);
  });

  it('names a data directory it cannot make', async () => {
    const { env, dataDir } = await bareEnv({});
    // A directory inside a plain file cannot be made, whoever runs the test.
    writeFileSync(join(dataDir, 'a-file'), '');
    const result = await runCli(['serve', '--no-demo'], {
      ...env,
      CRM_ENRICH_DATA_DIR: join(dataDir, 'a-file', 'data'),
    });
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/CRM_ENRICH_DATA_DIR: .*a-file\/data cannot be created or written to \(ENOTDIR\)/);
    expect(readdirSync(dataDir)).toEqual(['a-file']);
  });

  it('names a port another process listens on, before any sandbox starts', async () => {
    const { env, dataDir } = await bareEnv({});
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(Number(env.PORT), '127.0.0.1', resolve));
    try {
      const result = await runCli(['serve', '--no-demo'], env);
      expect(result.code).toBe(1);
      expect(result.output).toContain(
        `PORT: 127.0.0.1:${env.PORT} is already in use (another crm-enrich?); ` +
          'stop that process or set PORT to a free port',
      );
      expect(result.output).not.toMatch(/Cannot read properties/);
      expectNoSandboxStarted(result.output, dataDir);
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });

  it('names a data directory whose embedded database another live process has open', async () => {
    const { env, dataDir } = await bareEnv({});
    // The lock file an open embedded database keeps beside itself, held by a process that runs: this one.
    writeFileSync(join(dataDir, 'pglite.lock'), String(process.pid));
    const result = await runCli(['serve', '--no-demo'], env);
    expect(result.code).toBe(1);
    expect(result.output).toContain(
      `CRM_ENRICH_DATA_DIR: the embedded database in ${dataDir} is already open in process ${process.pid}`,
    );
    expectNoSandboxStarted(result.output, dataDir);
  });
});
