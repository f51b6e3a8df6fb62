/**
 * `npm run bench -- backlog [--records 100000] [--latency-ms 1000]`
 *
 * Whether the service's memory follows its backlog. `crm-enrich serve` runs in a process of its own on
 * the Postgres server (a schema of its own) with the heap flag `npm start` uses; `records` contacts
 * are created in the HubSpot sandbox as an import (100 per webhook delivery), far faster than the
 * partner, answering after `latency-ms`, lets them be enriched, so the backlog grows. The service's
 * resident memory is read (Linux's VmRSS) when the backlog of waiting jobs first reaches 1,000, 10,000
 * and 100,000 (or `records`), after a short settle; the lane keeps working meanwhile. Prints
 * `BENCH backlog jobs=N rss_1k_mb=X rss_10k_mb=X rss_max_mb=X growth_mb=X peak_rss_mb=X`, where
 * growth is the change from 1,000 waiting jobs to the most.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { SERVER_URL } from '../test/support/db.js';
import { dropSchema } from '../test/e2e/probes.js';
import { killAll, processSchema, serviceEnv, startServiceProcess } from '../test/e2e/process.js';
import { startSandboxes } from '../test/e2e/stack.js';

const { values: args } = parseArgs({
  options: { records: { type: 'string', default: '100000' }, 'latency-ms': { type: 'string', default: '1000' } },
});
const records = Number(args.records);
if (!Number.isInteger(records) || records < 1_000) throw new Error('--records expects a whole number of at least 1000');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const sandboxes = await startSandboxes({ partnerLatencyMs: Number(args['latency-ms']), people: 2_000, companies: 200 });
const schema = processSchema();
const service = await startServiceProcess(
  serviceEnv(sandboxes, schema, {
    LOG_LEVEL: 'warn',
    NODE_OPTIONS: process.env.NODE_OPTIONS ?? '--max-old-space-size=192 --max-semi-space-size=4',
    PARTNER_DAILY_LOOKUP_BUDGET: String(4 * records),
    PARTNER_DAILY_LOOKUP_HARD_CAP: String(5 * records),
  }),
  60_000,
);
sandboxes.hubspot.setWebhookUrl(`${service.url}/webhooks/hubspot`);
const status = (field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${service.pid}/status`, 'utf8'))![1]) / 1024;

const db = new pg.Client({ connectionString: SERVER_URL });
await db.connect();
const waiting = async () => {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM "${schema}".job ` +
      `WHERE name = 'enrich.hubspot.contact' AND state IN ('created', 'retry')`,
  );
  return rows[0]!.n;
};

const marks = [1_000, 10_000, records].filter((m, i, all) => m <= records && all.indexOf(m) === i);
const rssAt = new Map<number, number>();
const people = sandboxes.partner.dataset.personRecords.filter((p) => p.workEmail);
let created = 0;
/** An import: contacts in deliveries of 100 events, paced so the sandbox keeps delivering. */
async function createUpTo(total: number): Promise<void> {
  while (created < total) {
    for (let i = 0; i < 500 && created < total; i++, created++) {
      const p = people[created % people.length]!;
      sandboxes.hubspot.createContact(
        { email: created < people.length ? p.workEmail! : `import-${created}@backlog-${created % 997}.example` },
        'IMPORT',
      );
    }
    await sleep(100);
  }
}

let peak = 0;
for (const mark of marks) {
  await createUpTo(mark);
  // Until the deliveries are in (the lane takes some meanwhile: a little below the mark is enough).
  for (let i = 0; i < 240; i++) {
    peak = Math.max(peak, status('VmRSS'));
    if ((await waiting()) >= mark * 0.9) break;
    await sleep(500);
  }
  await sleep(3_000);
  rssAt.set(mark, status('VmRSS'));
  console.log(`backlog ${await waiting()} waiting jobs: rss ${rssAt.get(mark)!.toFixed(0)} MB`);
}
const peakRss = Math.max(peak, status('VmHWM'));
const jobs = await waiting();
const first = rssAt.get(marks[0]!)!;
const max = rssAt.get(marks[marks.length - 1]!)!;

service.kill('SIGTERM');
await service.exited;
await killAll();
await sandboxes.close();
await db.end();
await dropSchema(schema);
console.log(
  `BENCH backlog jobs=${jobs} rss_1k_mb=${first.toFixed(0)} rss_10k_mb=${(rssAt.get(10_000) ?? max).toFixed(0)} ` +
    `rss_max_mb=${max.toFixed(0)} growth_mb=${(max - first).toFixed(0)} peak_rss_mb=${peakRss.toFixed(0)}`,
);
process.exit(0);
