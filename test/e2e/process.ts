/**
 * The service as a process of its own, as it runs in production: `crm-enrich serve` on the sandboxes
 * of the test process and a schema of its own on the Postgres server, so a test can kill it (SIGKILL
 * or SIGTERM) and start it again on the same database. Every process started here is killed by
 * `killAll` (call it in afterAll), so none outlives its test file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SERVER_URL, uniqueSchema } from '../support/db.js';
import { ADMIN_TOKEN, adminClient, sandboxEnv, type AdminCall, type Sandboxes } from './stack.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * The compiled service, as `npm start` and the image run it (test/support/global-build.ts makes it):
 * one process, so a signal reaches the service itself.
 */
const CLI = ['dist/src/cli.js'];

const children = new Set<ChildProcess>();
const dataDirs: string[] = [];

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServiceProcess {
  url: string;
  pid: number;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  exited: Promise<Exit>;
  kill(signal: NodeJS.Signals): void;
  admin: AdminCall;
}

/** The environment a deployment would set to point the service at the test's sandboxes and schema. */
export function serviceEnv(
  sandboxes: Sandboxes,
  schema: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'crm-enrich-e2e-'));
  dataDirs.push(dataDir);
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dataDir,
    LOG_LEVEL: 'info',
    CRM_ENRICH_DATA_DIR: dataDir,
    DATABASE_URL: SERVER_URL,
    CRM_ENRICH_DB_SCHEMA: schema,
    ADMIN_TOKEN,
    ...sandboxEnv(sandboxes),
    ...extra,
  };
}

/** A port nobody listens on now (the service prints no port it chose itself). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || !address) throw new Error('no port was assigned');
  return address.port;
}

function run(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; output: () => string; exited: Promise<Exit> } {
  const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  return { child, output: () => text, exited };
}

/**
 * Starts `serve` (`args`, by default without demo records) on env.PORT, or on a free port when env has
 * none, and resolves once it answers /readyz; rejects with its output if it exits first. A port found
 * free can be taken before the service binds it (the local end of another test's outgoing connection):
 * the service then refuses to start, naming the port, and another free port is tried.
 */
export async function startServiceProcess(
  env: Record<string, string>,
  timeoutMs = 30_000,
  args: string[] = ['serve', '--no-demo'],
): Promise<ServiceProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(env, timeoutMs, args);
    } catch (error) {
      if (env.PORT || attempt === 3 || !(error instanceof PortTaken)) throw error;
    }
  }
}

class PortTaken extends Error {}

/** The preflight's refusal, or the listen's own failure when the port was taken after the preflight. */
const portTaken = (output: string, port: number) =>
  output.includes(`PORT: 127.0.0.1:${port} is already in use`) ||
  output.includes(`EADDRINUSE: address already in use 127.0.0.1:${port}`);

async function startOnce(env: Record<string, string>, timeoutMs: number, args: string[]): Promise<ServiceProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const { child, output, exited } = run(args, { ...env, PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  let exit: Exit | undefined;
  void exited.then((e) => (exit = e));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exit) {
      const message = `the service exited (${exit.code ?? exit.signal}) before it was ready:\n${output()}`;
      throw portTaken(output(), port) ? new PortTaken(message) : new Error(message);
    }
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service was not ready after ${timeoutMs} ms:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    output,
    exited,
    kill: (signal) => void child.kill(signal),
    admin: adminClient(url),
  };
}

/** Runs one crm-enrich command to its end. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<Exit & { output: string }> {
  const { child, output, exited } = run(args, env);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const exit = await exited;
  clearTimeout(timer);
  return { ...exit, output: output() };
}

/** Resolves with the exit, or with undefined when the process is still running after `ms`. */
export function exitWithin(service: Pick<ServiceProcess, 'exited'>, ms: number): Promise<Exit | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([service.exited, late]).finally(() => clearTimeout(timer));
}

/** A fresh schema name for one service's database. */
export function processSchema(): string {
  return uniqueSchema('e2e_proc');
}

/** Counts the jobs of one queue by state, straight from the schema the service used. */
export async function jobStates(schema: string, queue: string): Promise<Record<string, number>> {
  return withClient(async (client) => {
    const { rows } = await client.query<{ state: string; n: number }>(
      `SELECT state::text AS state, count(*)::int AS n FROM "${schema}".job WHERE name = $1 GROUP BY state`,
      [queue],
    );
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  });
}

/** The most attempts any job of the queue has spent beyond its first (completed ones included). */
export async function maxRetryCount(schema: string, queue: string): Promise<number> {
  return withClient(async (client) => {
    const { rows } = await client.query<{ n: number | null }>(
      `SELECT max(retry_count)::int AS n FROM "${schema}".job WHERE name = $1`,
      [queue],
    );
    return rows[0]?.n ?? 0;
  });
}

/** Kills every process still running, drops the schemas and removes the data directories. */
export async function killAll(schemas: string[] = []): Promise<void> {
  const running = [...children].map(
    (child) =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  );
  await Promise.all(running);
  if (schemas.length)
    await withClient((client) => client.query(schemas.map((s) => `DROP SCHEMA IF EXISTS "${s}" CASCADE;`).join(' ')));
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

async function withClient<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Resident memory of a process, from /proc (Linux). */
export function residentBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (!kb) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}
