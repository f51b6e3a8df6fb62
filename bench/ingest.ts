/**
 * `npm run bench -- ingest [--seconds 10] [--connections 10]`
 *
 * Signed HubSpot webhook deliveries of 10 contact.creation events each, sent by a second process
 * (autocannon), first to a hand-written baseline (Express, the v3 signature checked, one INSERT per
 * event; bench/_ingest-baseline.ts), then to /webhooks/hubspot of the service, both on the Postgres
 * server with pools of the same size. Every event is new, so each one is verified, parsed and stored
 * before its delivery is acknowledged; the service's lanes are stopped so only ingest is measured.
 * Events stored are counted in the database, not by the client. Ten connections by default: HubSpot
 * sends at most ten requests at once per installing account. Each run also says how much CPU a
 * delivery cost, on the whole machine and in the server's process: on a machine whose cores are all
 * busy, that is what sets the ratio.
 */
import { fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { rootLogger } from '../src/logger.js';
import { SERVER_URL, uniqueSchema } from '../test/support/db.js';
import { HUBSPOT_SECRET, startSandboxes, startService } from '../test/e2e/stack.js';
import { startBaseline } from './_ingest-baseline.js';

rootLogger.level = process.env.LOG_LEVEL ?? 'warn';
const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '10' } } });
const POOL = 20;

interface LoadResult {
  requests: number;
  non2xx: number;
  errors: number;
  p99: number;
  p50: number;
  seconds: number;
  /** The load generator's own CPU time, in ms. */
  cpuMs: number;
}

async function load(url: string): Promise<LoadResult> {
  const child = fork(fileURLToPath(new URL('./_ingest-load.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, INGEST_URL: url, INGEST_SECRET: HUBSPOT_SECRET, INGEST_SECONDS: args.seconds, INGEST_CONNECTIONS: args.connections },
  });
  return new Promise<LoadResult>((resolve, reject) => {
    child.once('message', (m) => resolve(m as LoadResult));
    child.once('exit', (code) => code !== 0 && reject(new Error(`the load generator exited with ${code}`)));
  });
}

/** CPU time used so far, in ms: the whole machine's (every process: server, Postgres, load generator), this process's, and Postgres's. */
function cpuNow(): { machine: number; process: number; postgres: number } {
  // /proc/stat's first line: user nice system idle iowait irq softirq ..., in hundredths of a second.
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const usage = process.cpuUsage();
  return { machine: (f[0]! + f[1]! + f[2]! + f[5]! + f[6]!) * 10, process: (usage.user + usage.system) / 1000, postgres: postgresCpuMs() };
}

/** The CPU time of every running postgres process (the server's backends and workers), in ms. */
function postgresCpuMs(): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      // Fields after the command: state is the 3rd field overall; utime and stime are the 14th and 15th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return ticks * 10;
}

/** Runs the load against `url` and says how much CPU each delivery cost. */
async function measured(url: string): Promise<LoadResult & { cpu: string }> {
  const before = cpuNow();
  const result = await load(url);
  const after = cpuNow();
  const per = (ms: number) => (ms / result.requests).toFixed(2);
  return {
    ...result,
    cpu: `CPU per delivery ${per(after.machine - before.machine)} ms on the machine: ${per(after.process - before.process)} ms in the server's process, ${per(after.postgres - before.postgres)} ms in Postgres, ${per(result.cpuMs)} ms in the load generator`,
  };
}

function report(name: string, result: LoadResult & { cpu: string }, stored: number): number {
  console.log(`${name}: ${result.requests} deliveries in ${result.seconds} s (${result.non2xx} not 2xx, ${result.errors} errors); p50 ${result.p50} ms, p99 ${result.p99} ms; ${stored} events stored; ${result.cpu}`);
  return Math.round(stored / result.seconds);
}

const baseline = await startBaseline(SERVER_URL, uniqueSchema('bench_baseline'), HUBSPOT_SECRET, POOL);
const baselineResult = await measured(baseline.url);
const baselineRate = report('baseline (one INSERT per event)', baselineResult, await baseline.stored());
await baseline.close();

const sandboxes = await startSandboxes({ people: 1_000, companies: 100 });
const running = await startService(sandboxes, { store: { poolSize: POOL } });
sandboxes.hubspot.setWebhookUrl(undefined);
await running.service.enricher.stop();
const count = async () =>
  (await running.service.store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${running.schema}".job WHERE name = 'enrich.hubspot.contact'`)).rows[0]!.n;
const before = await count();
const result = await measured(`${running.url}/webhooks/hubspot`);
const rate = report('crm-enrich', result, (await count()) - before);
await running.stop();
await sandboxes.close();
console.log(`BENCH ingest events_per_s=${rate} p99_ms=${result.p99} baseline_events_per_s=${baselineRate} baseline_p99_ms=${baselineResult.p99} ratio=${(rate / baselineRate).toFixed(2)}`);
process.exit(0);
