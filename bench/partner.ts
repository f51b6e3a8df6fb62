/**
 * `npm run bench -- partner [--redis] [--lookups 3000] [--latency-ms 120] [--concurrency 32] [--instances 2]`
 *
 * Drives company and person lookups of real sandbox identifiers through the partner client and the
 * key's limiter as fast as the limiter allows, against a sandbox that answers after `latency-ms`.
 * The sandbox's own count of arrivals judges the limiter: the busiest sliding second (max_window)
 * and the 429s it gave. With --redis, `instances` clients, each with its own limiter instance,
 * share the limit through Redis as separate service instances would.
 */
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createRateLimiter, type SharedRateLimiter } from '../src/limits/create-rate-limiter.js';
import { PartnerClient, type CompanyLookup, type PersonLookup } from '../src/partner/client.js';
import { startPartnerSandbox, SANDBOX_KEY } from '../src/partner/sandbox/server.js';

const LIMIT = 50;
const { values: args } = parseArgs({
  options: {
    redis: { type: 'boolean', default: false },
    'redis-url': { type: 'string', default: 'redis://127.0.0.1:6379' },
    lookups: { type: 'string', default: '3000' },
    'latency-ms': { type: 'string', default: '120' },
    concurrency: { type: 'string', default: '32' },
    instances: { type: 'string' },
  },
});
const lookups = Number(args.lookups);
const latencyMs = Number(args['latency-ms']);
const concurrency = Number(args.concurrency);
const instances = Number(args.instances ?? (args.redis ? 2 : 1));
for (const [name, value] of Object.entries({ lookups, 'latency-ms': latencyMs, concurrency, instances })) {
  if (!Number.isInteger(value) || value < (name === 'latency-ms' ? 0 : 1)) {
    console.error(`--${name} expects a whole number${name === 'latency-ms' ? '' : ' of at least 1'}`);
    process.exit(2);
  }
}
if (instances > 1 && !args.redis) {
  console.error('--instances above 1 needs --redis: separate instances share the limit only through Redis');
  process.exit(2);
}

type Work = { kind: 'company'; lookup: CompanyLookup } | { kind: 'person'; lookup: PersonLookup };
type Sample = { companies: Array<Record<string, string>>; people: Array<Record<string, string>> };

const sandbox = await startPartnerSandbox({ port: 0, latencyMs });
const work: Work[] = [];
for (let offset = 0; work.length < lookups; offset += 100) {
  const sample = (await (await fetch(`${sandbox.url}/__sandbox/sample?n=100&offset=${offset}`)).json()) as Sample;
  if (sample.companies.length + sample.people.length === 0) break;
  for (const [i, c] of sample.companies.entries()) {
    const by = (['id', 'fqdn', 'website', 'ln_slug'] as const)[i % 4]!;
    work.push({ kind: 'company', lookup: { by, value: c[by]!, country: c.market as CompanyLookup['country'] } });
  }
  for (const [i, p] of sample.people.entries()) {
    const by = (['id', 'work_email', 'ln_url'] as const)[i % 3]!;
    work.push({ kind: 'person', lookup: { by, value: p[by]! } });
  }
}
work.length = Math.min(work.length, lookups);
if (work.length < lookups) console.error(`note: the sandbox sample gave ${work.length} identifiers; running those`);

const id = `partner-bench:${randomUUID().slice(0, 8)}`;
const limiters: SharedRateLimiter[] = [];
const clients = Array.from({ length: instances }, () => {
  const limiter = createRateLimiter({
    id,
    max: LIMIT,
    windowMs: 1000,
    redisUrl: args.redis ? args['redis-url'] : undefined,
  });
  limiters.push(limiter);
  return new PartnerClient({ baseUrl: sandbox.url, apiKey: SANDBOX_KEY, limiter });
});
let requests = 0;
let retries = 0;
for (const client of clients) {
  client.on('request', (e) => {
    requests++;
    if (e.kind === 'retry') retries++;
  });
}

const durations: number[] = [];
let found = 0;
let missing = 0;
let failed = 0;
let next = 0;
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async (_, worker) => {
    const client = clients[worker % clients.length]!;
    while (next < work.length) {
      const item = work[next++]!;
      const t = performance.now();
      try {
        const result =
          item.kind === 'company' ? await client.lookupCompany(item.lookup) : await client.lookupPerson(item.lookup);
        if (result) found++;
        else missing++;
      } catch (error) {
        failed++;
        if (failed <= 3) console.error(`lookup failed: ${(error as Error).message}`);
      }
      durations.push(performance.now() - t);
    }
  }),
);
const elapsedS = (performance.now() - started) / 1000;
loopDelay.disable();
const stats = sandbox.stats().keys[SANDBOX_KEY] ?? { served: 0, rejected: 0, maxWindow: 0 };
await Promise.all(limiters.map((l) => l.stop()));
await sandbox.close();

durations.sort((a, b) => a - b);
const pct = (p: number) =>
  (durations[Math.min(durations.length - 1, Math.floor((p / 100) * durations.length))] ?? 0).toFixed(0);
const rate = requests / elapsedS;
const rssMb = Math.round(process.memoryUsage().rss / 2 ** 20);
console.log(
  `backend: ${args.redis ? `redis (${instances} limiter instances sharing one id)` : 'local'}; ` +
    `sandbox latency ${latencyMs} ms; ${concurrency} callers`,
);
console.log(
  `lookups: ${work.length} (found ${found}, no match ${missing}, failed ${failed}); ` +
    `requests ${requests} (retries ${retries})`,
);
console.log(
  `elapsed: ${elapsedS.toFixed(2)} s; ` +
    `lookup time incl. queueing p50 ${pct(50)} ms, p95 ${pct(95)} ms, max ${pct(100)} ms`,
);
console.log(
  'event loop delay (client and in-process sandbox): ' +
    `p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms, max ${(loopDelay.max / 1e6).toFixed(1)} ms`,
);
console.log(
  `sandbox: served ${stats.served}, 429s ${stats.rejected}, ` +
    `busiest sliding second ${stats.maxWindow} arrivals (limit ${LIMIT})`,
);
console.log(
  `BENCH partner rate=${rate.toFixed(2)} utilisation=${(rate / LIMIT).toFixed(3)} ` +
    `max_window=${stats.maxWindow} rejected=${stats.rejected} rss_mb=${rssMb}`,
);
