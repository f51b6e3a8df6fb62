/**
 * `npm run bench -- ingest [--seconds 10] [--connections 10]`
 *
 * Signed HubSpot webhook deliveries of 10 contact.creation events each, sent by a second process
 * (autocannon) to /webhooks/hubspot of a service on the Postgres server. Every event is new, so each
 * one is verified, parsed and stored as a job before its delivery is acknowledged; the lanes are
 * stopped so only ingest is measured. Events stored are counted in the database, not by the client.
 * Ten connections by default: HubSpot sends at most ten requests at once per installing account.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { rootLogger } from '../src/logger.js';
import { HUBSPOT_SECRET, startSandboxes, startService } from '../test/e2e/stack.js';

rootLogger.level = process.env.LOG_LEVEL ?? 'warn';
const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '10' } } });

const sandboxes = await startSandboxes({ people: 1_000, companies: 100 });
const running = await startService(sandboxes, { store: { poolSize: 20 } });
sandboxes.hubspot.setWebhookUrl(undefined);
await running.service.enricher.stop();
const before = await running.service.store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${running.schema}".job WHERE name = 'enrich.hubspot.contact'`);

const child = fork(fileURLToPath(new URL('./_ingest-load.ts', import.meta.url)), [], {
  execArgv: ['--import', 'tsx'],
  env: { ...process.env, INGEST_URL: `${running.url}/webhooks/hubspot`, INGEST_SECRET: HUBSPOT_SECRET, INGEST_SECONDS: args.seconds, INGEST_CONNECTIONS: args.connections },
});
const result = await new Promise<{ requests: number; non2xx: number; errors: number; p99: number; p50: number; seconds: number }>((resolve, reject) => {
  child.once('message', (m) => resolve(m as never));
  child.once('exit', (code) => code !== 0 && reject(new Error(`the load generator exited with ${code}`)));
});
const after = await running.service.store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${running.schema}".job WHERE name = 'enrich.hubspot.contact'`);
const stored = after.rows[0]!.n - before.rows[0]!.n;
console.log(`${result.requests} deliveries in ${result.seconds} s (${result.non2xx} not 2xx, ${result.errors} errors); p50 ${result.p50} ms, p99 ${result.p99} ms; ${stored} events stored`);
await running.stop();
await sandboxes.close();
console.log(`BENCH ingest events_per_s=${Math.round(stored / result.seconds)} p99_ms=${result.p99}`);
process.exit(0);
