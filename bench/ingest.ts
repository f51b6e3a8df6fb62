/**
 * `npm run bench -- ingest [--seconds 10] [--connections 10] [--rounds 5]`
 *
 * Signed HubSpot webhook deliveries of 10 contact.creation events each, sent by a second process
 * (autocannon) to a hand-written baseline (Express, the v3 signature checked, one INSERT per event;
 * bench/_ingest-baseline.ts) and to /webhooks/hubspot of the service, both on the Postgres server with
 * pools of the same size. Every event is new, so each one is verified, parsed and stored before its
 * delivery is acknowledged; the service's lanes are stopped so only ingest is measured. Events stored
 * are counted in the database, not by the client. Ten connections by default: HubSpot sends at most
 * ten requests at once per installing account.
 *
 * Both servers run side by side and take turns, `--seconds` each in all, split into `--rounds` rounds
 * in the order baseline, service, service, baseline, ... after a warm-up round each: a machine whose
 * speed drifts during the run (a shared host) then slows both alike, and the ratio compares them under
 * the same conditions. Each run also says how much CPU a delivery cost, on the whole machine and in
 * each part: on a machine whose cores are all busy, that is what sets the ratio.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { rootLogger } from '../src/logger.js';
import { SERVER_URL, uniqueSchema } from '../test/support/db.js';
import { dropSchema } from '../test/e2e/probes.js';
import { HUBSPOT_SECRET, startSandboxes, startService } from '../test/e2e/stack.js';
import { startBaseline } from './_ingest-baseline.js';
import type { Latencies, Round, RoundResult } from './_ingest-load.js';

rootLogger.level = process.env.LOG_LEVEL ?? 'warn';
const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
  },
});
const ROUNDS = Math.max(1, Number(args.rounds));
const ROUND_SECONDS = Number(args.seconds) / ROUNDS;
const WARM_UP_SECONDS = 1;
const POOL = 20;

/**
 * CPU time used so far, in ms: the whole machine's (every process: server, Postgres, load generator),
 * this process's, and Postgres's.
 */
function cpuNow(): { machine: number; process: number; postgres: number } {
  // /proc/stat's first line: user nice system idle iowait irq softirq ..., in hundredths of a second.
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const usage = process.cpuUsage();
  return {
    machine: (f[0]! + f[1]! + f[2]! + f[5]! + f[6]!) * 10,
    process: (usage.user + usage.system) / 1000,
    postgres: postgresCpuMs(),
  };
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

/** One target's totals over its measured rounds. */
interface Totals {
  requests: number;
  non2xx: number;
  errors: number;
  seconds: number;
  machineMs: number;
  processMs: number;
  postgresMs: number;
  loaderMs: number;
}

const loader: ChildProcess = fork(fileURLToPath(new URL('./_ingest-load.ts', import.meta.url)), [], {
  execArgv: ['--import', 'tsx'],
  env: { ...process.env, INGEST_SECRET: HUBSPOT_SECRET, INGEST_CONNECTIONS: args.connections },
});
loader.once('exit', (code) => code !== 0 && (console.error(`the load generator exited with ${code}`), process.exit(1)));
const reply = <T>() => new Promise<T>((resolve) => loader.once('message', (m) => resolve(m as T)));

/** Loads one target for one round; a measured round adds its counts and CPU to `totals`. */
async function round(target: string, url: string, seconds: number, totals?: Totals): Promise<void> {
  const before = cpuNow();
  const started = performance.now();
  const answer = reply<RoundResult>();
  loader.send({ round: { target, url, seconds, measured: totals !== undefined } satisfies Round });
  const result = await answer;
  const after = cpuNow();
  if (!totals) return;
  totals.requests += result.requests;
  totals.non2xx += result.non2xx;
  totals.errors += result.errors;
  totals.seconds += (performance.now() - started) / 1000;
  totals.machineMs += after.machine - before.machine;
  totals.processMs += after.process - before.process;
  totals.postgresMs += after.postgres - before.postgres;
  totals.loaderMs += result.cpuMs;
}

const newTotals = (): Totals => ({
  requests: 0,
  non2xx: 0,
  errors: 0,
  seconds: 0,
  machineMs: 0,
  processMs: 0,
  postgresMs: 0,
  loaderMs: 0,
});

function report(name: string, t: Totals, latency: { p50: number; p99: number }, stored: number): number {
  const per = (ms: number) => (ms / t.requests).toFixed(2);
  // A server whose rounds leave the cores idle is waiting (for its commits, say), not computing.
  const busy = Math.round((100 * t.machineMs) / (t.seconds * 1000 * availableParallelism()));
  console.log(
    `${name}: ${t.requests} deliveries in ${t.seconds.toFixed(2)} s over ${ROUNDS} rounds ` +
      `(${t.non2xx} not 2xx, ${t.errors} errors); ` +
      `p50 ${latency.p50} ms, p99 ${latency.p99} ms; ${stored} events stored; machine ${busy}% busy; ` +
      `CPU per delivery ${per(t.machineMs)} ms on the machine: ` +
      `${per(t.processMs)} ms in the server's process, ${per(t.postgresMs)} ms in Postgres, ` +
      `${per(t.loaderMs)} ms in the load generator`,
  );
  return Math.round(stored / t.seconds);
}

const baseline = await startBaseline(SERVER_URL, uniqueSchema('bench_baseline'), HUBSPOT_SECRET, POOL);
const sandboxes = await startSandboxes({ people: 1_000, companies: 100 });
const running = await startService(sandboxes, { store: { poolSize: POOL } });
sandboxes.hubspot.setWebhookUrl(undefined);
await running.service.parts.enricher.stop();
const serviceUrl = `${running.url}/webhooks/hubspot`;
const countJobs = async () =>
  (
    await running.service.parts.store.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${running.schema}".job WHERE name = 'enrich.hubspot.contact'`,
    )
  ).rows[0]!.n;

await round('baseline', baseline.url, WARM_UP_SECONDS);
await round('service', serviceUrl, WARM_UP_SECONDS);
const stored = { baseline: await baseline.stored(), service: await countJobs() };
const totals = { baseline: newTotals(), service: newTotals() };
for (let i = 0; i < ROUNDS; i++) {
  const order = i % 2 === 0 ? (['baseline', 'service'] as const) : (['service', 'baseline'] as const);
  for (const target of order)
    await round(target, target === 'baseline' ? baseline.url : serviceUrl, ROUND_SECONDS, totals[target]);
}
stored.baseline = (await baseline.stored()) - stored.baseline;
stored.service = (await countJobs()) - stored.service;
const latencies = reply<Latencies>();
loader.send({ report: true });
const latency = await latencies;

const baselineRate = report('baseline (one INSERT per event)', totals.baseline, latency.baseline!, stored.baseline);
const rate = report('crm-enrich', totals.service, latency.service!, stored.service);
await baseline.close();
await running.stop();
await sandboxes.close();
await dropSchema(running.schema);
console.log(
  `BENCH ingest events_per_s=${rate} p99_ms=${latency.service!.p99} ` +
    `baseline_events_per_s=${baselineRate} baseline_p99_ms=${latency.baseline!.p99} ` +
    `ratio=${(rate / baselineRate).toFixed(2)}`,
);
process.exit(0);
