/**
 * `npm run bench -- pipeline [--records 3000] [--latency-ms 120] [--instances 1] [--kill-at 0.33]
 *   [--redis-url redis://127.0.0.1:6379] [--hubspot-by-second] [--idle-only] [--idle-by person|app|own-token]`
 *
 * The whole loop, with the service in a process of its own (`crm-enrich serve`, as deployed) on the
 * Postgres server (the local test server, in a schema of its own), against the sandboxes over HTTP:
 * 1. idle: 20 new HubSpot contacts created one at a time; each is timed from its creation in the
 *    sandbox until its enriched properties can be read there;
 * 2. backfill: N existing contacts, with the partner answering after `latency-ms`, while 50 new
 *    contacts are created during it, each timed the same way.
 * crm_calls counts every HubSpot API call of the backfill phase. crm_calls_min is what any service
 * must spend (docs/benchmarks.md says why each term): one listing page per 100 existing contacts; one
 * read, one write and one association batch per new contact, since each arrives on its own (a creation
 * webhook carries no properties) and is enriched within its latency target; one write and one
 * association batch per 100 listed contacts (HubSpot's batch limit); one company search per 100
 * distinct employer domains and one creation batch per 100 companies created, each created with its
 * enriched values (no second write). bound_by says which limit the run met: `hubspot` when some ten
 * seconds of the backfill used 90 % of the portal's calls, `partner` when the key ran at 90 % of its
 * rate, `neither` otherwise.
 * With `--instances N`, N service processes share the schema and the partner key's limit through
 * Redis, as a scaled-out deployment does; webhooks go to the first. The partner sandbox runs as its own
 * process (`crm-enrich sandbox partner`), the CRM sandboxes in this one. crm_writes counts batch updates
 * against crm_writes_min (one per 100 listed contacts and one per new contact), and duplicates counts a
 * property written twice with one value to one record. link_calls counts the calls that link contacts with
 * their employers (v4 association batches and company creations). `--kill-at x` (with two or more instances)
 * SIGKILLs the second instance once that share of the listed contacts is enriched, and says how long
 * until the partner key was busy again and how many contacts the dead instance left unsettled against
 * link_calls_min (one association batch per 100 listed contacts, one per new contact, one creation batch
 * per 100 new employer domains); duplicate_companies counts domains held by more than one company, and
 * unlinked the listed contacts left without a company. `--hubspot-by-second` prints the backfill's
 * HubSpot calls second by second, by endpoint; each new contact's time is split into creation to planned
 * (claimed, read, its lookups begun: the enriched_at stamp) and planned to written.
 * `--idle-by` says who creates the idle phase's contacts: `person` (HubSpot's UI, the default), `app`
 * (another app's token through the API, one at a time, as a web form or a sales tool does) or
 * `own-token` (a script reusing crm-enrich's own token). New contacts during the backfill are a person's.
 */
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { TIER_LIMITS } from '../connectors/hubspot/sandbox/rate-policy.js';
import { IMPORTER_TOKEN } from '../connectors/hubspot/sandbox/server.js';
import { createDataset } from '../src/partner/sandbox/dataset.js';
import type { SandboxStats } from '../src/partner/sandbox/server.js';
import { dropSchema, duplicateWrites } from '../test/e2e/probes.js';
import { killAll, processSchema, serviceEnv, startServiceProcess } from '../test/e2e/process.js';
import { startSandboxes } from '../test/e2e/stack.js';

const SERVICE_NODE_OPTIONS = '--max-old-space-size=192 --max-semi-space-size=4';

const { values: args } = parseArgs({
  options: {
    records: { type: 'string', default: '3000' },
    'latency-ms': { type: 'string', default: '120' },
    instances: { type: 'string', default: '1' },
    'redis-url': { type: 'string', default: 'redis://127.0.0.1:6379' },
    'hubspot-by-second': { type: 'boolean', default: false },
    'kill-at': { type: 'string' },
    'idle-only': { type: 'boolean', default: false },
    'idle-by': { type: 'string', default: 'person' },
  },
});
const instances = Number(args.instances);
if (!Number.isInteger(instances) || instances < 1) throw new Error('--instances expects a whole number of at least 1');
const records = Number(args.records);
const killAt = args['kill-at'] === undefined ? undefined : Number(args['kill-at']);
if (killAt !== undefined && (!(killAt > 0 && killAt < 1) || instances < 2))
  throw new Error('--kill-at expects a share between 0 and 1, with --instances 2 or more');
const latencyMs = Number(args['latency-ms']);
const IDLE_BY = { person: undefined, app: IMPORTER_TOKEN, 'own-token': 'sandbox-token' } as const;
const idleBy = args['idle-by'] as keyof typeof IDLE_BY;
if (!(idleBy in IDLE_BY)) throw new Error('--idle-by expects person, app or own-token');
if (!Number.isInteger(records) || records < 100) throw new Error('--records expects a whole number of at least 100');
const NEW_DURING = 50;
const LIMIT = 50;

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]!;
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The partner runs in a process of its own, as the real one is remote: it stamps each arrival in its
// own event loop, not in this one, which the CRM sandboxes and the polling below keep busy (stalls of
// 100 ms and more here bunched arrivals that had left evenly spaced).
const PARTNER_DATA = { people: 20_000, companies: 2_000 };
const partnerProcess = spawn(
  process.execPath,
  [
    'dist/src/cli.js',
    'sandbox',
    'partner',
    '--latency-ms',
    String(latencyMs),
    '--people',
    String(PARTNER_DATA.people),
    '--companies',
    String(PARTNER_DATA.companies),
  ],
  { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, LOG_LEVEL: 'warn' } },
);
const partnerUrl = await new Promise<string>((resolve, reject) => {
  let out = '';
  partnerProcess.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    const url = /listening on (\S+)/.exec(out)?.[1];
    if (url) resolve(url);
  });
  partnerProcess.once('exit', (code) => reject(new Error(`the partner sandbox exited with ${code}: ${out}`)));
});
const partnerServed = async () => {
  const stats = (await (await fetch(`${partnerUrl}/__sandbox/stats`)).json()) as SandboxStats;
  return stats.keys['sandbox-key'] ?? { served: 0, rejected: 0, maxWindow: 0 };
};
// The in-process partner sandbox is not used; a small one keeps startSandboxes' shape.
const sandboxes = await startSandboxes({ people: 10, companies: 10 });
const schema = processSchema();
// The heap cap `npm start` and the container image run the service with (NODE_OPTIONS overrides it).
const nodeOptions = process.env.NODE_OPTIONS ?? SERVICE_NODE_OPTIONS;
const shared: Record<string, string> = instances > 1 ? { REDIS_URL: args['redis-url'] } : {};
const services: Awaited<ReturnType<typeof startServiceProcess>>[] = [];
for (let i = 0; i < instances; i++)
  services.push(
    await startServiceProcess(
      serviceEnv(sandboxes, schema, {
        LOG_LEVEL: 'warn',
        NODE_OPTIONS: nodeOptions,
        PARTNER_BASE_URL: partnerUrl,
        ...shared,
      }),
    ),
  );
const service = services[0]!;
sandboxes.hubspot.setWebhookUrl(`${service.url}/webhooks/hubspot`);
/** The service's peak resident memory (VmHWM), from Linux's view of its process. */
/** Of the instances still running: a killed one has no status to read. */
const peakRssMb = () =>
  Math.max(
    ...services.flatMap((s) => {
      if (!existsSync(`/proc/${s.pid}/status`)) return [];
      return [Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${s.pid}/status`, 'utf8'))![1]) / 1024];
    }),
  );
// The partner process's dataset, generated again here from the same seed and sizes.
const people = createDataset(PARTNER_DATA).personRecords.filter((p) => p.workEmail);
let next = 0;
const domains = new Set<string>();
const email = () => {
  const person = people[next++]!;
  domains.add(person.employer.domain);
  return person.workEmail!;
};

/** Per new contact: from its creation to its lookups planned (the enriched_at stamp), and on to its write. */
const newSplits: { planned: number; written: number }[] = [];

/** Creates a contact through HubSpot's API with `token`, as an app does; resolves with its id. */
async function createThroughApi(token: string, properties: Record<string, string>): Promise<string> {
  const res = await fetch(`${sandboxes.hubspot.url}/crm/v3/objects/contacts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ properties }),
  });
  if (res.status !== 201) throw new Error(`the contact was not created: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/**
 * Resolves with the ms from creation to enriched properties being readable in the sandbox. `token`:
 * created through the API with it; without, by a person in HubSpot's UI.
 */
async function timeNewContact(token?: string): Promise<number> {
  const started = performance.now();
  const createdAt = Date.now();
  const id = token
    ? await createThroughApi(token, { email: email() })
    : sandboxes.hubspot.createContact({ email: email() }).id;
  for (;;) {
    const stamp = sandboxes.hubspot.getContact(id)?.crm_enrich_enriched_at;
    if (stamp) {
      const took = performance.now() - started;
      const planned = Math.max(0, Date.parse(stamp) - createdAt);
      newSplits.push({ planned, written: Math.max(0, took - planned) });
      return took;
    }
    await sleep(5);
  }
}

// 1. Idle service.
const idle: number[] = [];
const idleCalls = [sandboxes.hubspot.stats().calls];
const idleSampler = setInterval(() => idleCalls.push(sandboxes.hubspot.stats().calls), 1000);
for (let i = 0; i < 20; i++) idle.push(await timeNewContact(IDLE_BY[idleBy]));
clearInterval(idleSampler);
console.log(
  `HubSpot refusals up to the end of the idle phase: ${JSON.stringify(sandboxes.hubspot.stats().rateLimited)}; ` +
    `calls by second: ${idleCalls
      .slice(1)
      .map((n, i) => n - idleCalls[i]!)
      .join(' ')}`,
);

/** Waits until no HubSpot call and no partner request was made for a second (at most 20 s). */
async function quiet(): Promise<void> {
  const activity = async () => `${sandboxes.hubspot.stats().calls} ${(await partnerServed()).served}`;
  for (
    let quietSince = performance.now(), seen = await activity(), until = performance.now() + 20_000;
    performance.now() < until;
  ) {
    await sleep(100);
    const now = await activity();
    if (now !== seen) [seen, quietSince] = [now, performance.now()];
    else if (performance.now() - quietSince >= 1_000) break;
  }
}

/** Stops the services (`killed`, SIGKILLed during the run, again), the partner and the sandboxes; drops the schema. */
async function tearDown(killed?: (typeof services)[number]): Promise<void> {
  for (const s of services) s.kill(s === killed ? 'SIGKILL' : 'SIGTERM');
  await Promise.all(services.map((s) => s.exited));
  await killAll();
  partnerProcess.kill('SIGTERM');
  await sandboxes.close();
  await dropSchema(schema);
}

if (args['idle-only']) {
  // The employers of the idle contacts are linked after their writes: their calls are counted too.
  await quiet();
  const splits = newSplits.slice(0, idle.length);
  const ms = (xs: number[]) => `p50 ${p50(xs).toFixed(0)} p95 ${p95(xs).toFixed(0)}`;
  console.log(
    `idle: ${idle.length} new contacts created by ${idleBy}, ${ms(idle)} ms ` +
      `(min ${Math.min(...idle).toFixed(0)}, max ${Math.max(...idle).toFixed(0)}); ` +
      `creation to planned ${ms(splits.map((d) => d.planned))} ms, ` +
      `planned to written ${ms(splits.map((d) => d.written))} ms`,
  );
  console.log(`idle: each in ms: ${idle.map((t) => t.toFixed(0)).join(' ')}`);
  console.log(`hubspot calls: ${JSON.stringify(sandboxes.hubspot.stats().byEndpoint)}`);
  await tearDown();
  console.log(
    `BENCH pipeline instances=${instances} idle_only=1 idle_by=${idleBy} ` +
      `idle_p50_ms=${p50(idle).toFixed(0)} idle_p95_ms=${p95(idle).toFixed(0)}`,
  );
  process.exit(0);
}

// 2. Backfill with new contacts arriving during it.
const webhookUrl = `${service.url}/webhooks/hubspot`;
// Employers met in the idle phase were looked up then; the backfill's own are counted from here.
const domainsBefore = domains.size;
sandboxes.hubspot.setWebhookUrl(undefined);
const existing: string[] = [];
for (let i = 0; i < records; i++) existing.push(sandboxes.hubspot.createContact({ email: email() }).id);
sandboxes.hubspot.setWebhookUrl(webhookUrl);
await sandboxes.hubspot.webhooksIdle();
// The idle contacts' employers are linked after their writes; the backfill's clock and counts start
// once that work is done, or the first second of the backfill went to queueing behind it.
await quiet();

sandboxes.hubspot.recordWrites();
const writesBefore = sandboxes.hubspot.writes().length;
const partnerBefore = await partnerServed();
const hubspotBefore = sandboxes.hubspot.stats();
const companiesAtStart = sandboxes.hubspot.store.objects.companies.size;
const started = performance.now();
const startedAt = Date.now();
const res = await service.admin('POST', '/backfills', { connection: 'hubspot', object: 'contact' });
if (res.status !== 202) throw new Error(`backfill refused: ${res.status} ${JSON.stringify(res.body)}`);

// The partner's served count every 250 ms: where the backfill's seconds went (start-up, steady, tail).
const servedSamples: number[] = [];
const hsSamples: Record<string, number>[] = [];
const hsCallSamples: number[] = [];
const sampler = setInterval(() => {
  hsSamples.push({ ...sandboxes.hubspot.stats().byEndpoint });
  hsCallSamples.push(sandboxes.hubspot.stats().calls);
  const at = servedSamples.push(servedSamples.at(-1) ?? 0) - 1;
  void partnerServed().then((p) => (servedSamples[at] = p.served - partnerBefore.served));
}, 250);
// The CRM sandboxes run in this process and answer in its event loop: how long it stalled. (A partner here
// stamped arrivals late and bunched after such a stall, which is why it has a process of its own.)
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
const expectedSeconds = records / LIMIT;
/** With --kill-at: the second instance SIGKILLed once that share of the listed contacts is enriched. */
const killed = (async () => {
  if (killAt === undefined) return;
  const enrichedCount = () => existing.filter((id) => sandboxes.hubspot.getContact(id)?.crm_enrich_enriched_at).length;
  while (enrichedCount() < killAt * records) await sleep(100);
  const servedAtKill = servedSamples.at(-1) ?? 0;
  services[1]!.kill('SIGKILL');
  const killedAt = performance.now();
  console.log(
    `killed instance 2 at ${((killedAt - started) / 1000).toFixed(1)} s, ${enrichedCount()} contacts enriched`,
  );
  // The partner key is busy again when a quarter second serves at 90 % of the limit.
  for (let seen = servedSamples.length; ; seen = servedSamples.length) {
    await sleep(250);
    const quarter = (servedSamples.at(-1) ?? 0) - (servedSamples[seen - 1] ?? servedAtKill);
    if (quarter >= 0.9 * LIMIT * 0.25 || performance.now() - killedAt > 30_000) break;
  }
  console.log(
    `after the kill, the partner key ran at 90 % again within ${((performance.now() - killedAt) / 1000).toFixed(2)} s`,
  );
})();
const during: Promise<number>[] = [];
for (let i = 0; i < NEW_DURING; i++) {
  await sleep(((expectedSeconds * 0.9) / NEW_DURING) * 1000);
  during.push(timeNewContact());
}
const newLatencies = await Promise.all(during);
await killed;
// Contacts stay enriched once they are, so each poll looks only past the first that was not yet: a
// scan of all of them every 50 ms (each one copied out of the sandbox) took CPU from the services.
for (let next = 0; ;) {
  while (next < existing.length && sandboxes.hubspot.getContact(existing[next]!)?.crm_enrich_enriched_at) next++;
  if (next === existing.length) break;
  await sleep(50);
}
const seconds = (performance.now() - started) / 1000;
// Utilisation is what the key served while the backfill ran; lookups of the links that land afterwards
// (a created company's) count as credits below, not as time the key was busy in `seconds`.
const servedInTime = (await partnerServed()).served - partnerBefore.served;
clearInterval(sampler);
loopDelay.disable();
// Links are made right after each write; let the last ones land before counting.
for (let i = 0; i < 100 && existing.some((id) => !sandboxes.hubspot.getContact(id)?.associatedcompanyid); i++)
  await sleep(100);
const partnerAfter = await partnerServed();
const hubspotAfter = sandboxes.hubspot.stats();
const served = partnerAfter.served - partnerBefore.served;
const rejected = partnerAfter.rejected - partnerBefore.rejected;
const crmCalls = hubspotAfter.calls - hubspotBefore.calls;
const rssMb = peakRssMb();
const writes = sandboxes.hubspot.writes().slice(writesBefore);
const duplicates = duplicateWrites(writes);
console.log(
  `duplicates by object: contacts ${duplicateWrites(writes, 'contacts')}, ` +
    `companies ${duplicateWrites(writes, 'companies')}`,
);
const batchWrites =
  (hubspotAfter.byEndpoint['POST /crm/objects/2026-09/contacts/batch/update'] ?? 0) -
  (hubspotBefore.byEndpoint['POST /crm/objects/2026-09/contacts/batch/update'] ?? 0);
// One write per 100 listed contacts, and one per new contact: each arrives on its own and is written
// within its latency target, as crm_calls_min counts its read.
const batchWritesMin = Math.ceil(records / 100) + NEW_DURING;
// Linking with employers: association calls in batches of 100 (each new contact alone), company creations
// in batches, and never two companies for one domain.
const delta = (endpoint: string) =>
  (hubspotAfter.byEndpoint[endpoint] ?? 0) - (hubspotBefore.byEndpoint[endpoint] ?? 0);
const linkCalls =
  delta('POST /crm/associations/2026-09/contacts/companies/batch/create') +
  delta('POST /crm/objects/2026-09/companies/batch/create');
const companiesCreated = sandboxes.hubspot.store.objects.companies.size - companiesAtStart;
const perHundred = (n: number) => Math.ceil(n / 100);
const searchesMin = perHundred(domains.size - domainsBefore);
const linkCallsMin = perHundred(records) + NEW_DURING + perHundred(companiesCreated);
const crmCallsMin = perHundred(records) + NEW_DURING + batchWritesMin + searchesMin + linkCallsMin;
// The most HubSpot calls in any ten seconds of the backfill, against the portal's limit (starter tier).
const busiestTenSeconds = Math.max(
  0,
  ...hsCallSamples.map((n, i) => n - (i >= 40 ? hsCallSamples[i - 40]! : hubspotBefore.calls)),
);
const boundBy =
  busiestTenSeconds >= 0.9 * TIER_LIMITS.starter.perWindow
    ? 'hubspot'
    : servedInTime / seconds >= 0.9 * LIMIT
      ? 'partner'
      : 'neither';
const byDomain = new Map<string, number>();
for (const c of sandboxes.hubspot.store.objects.companies.values()) {
  const d = c.properties.get('domain');
  if (d) byDomain.set(d, (byDomain.get(d) ?? 0) + 1);
}
const duplicateCompanies = [...byDomain.values()].filter((n) => n > 1).length;
const unlinked = existing.filter((id) => !sandboxes.hubspot.getContact(id)?.associatedcompanyid).length;

if (args['hubspot-by-second']) {
  const keys = [...new Set(hsSamples.flatMap((x) => Object.keys(x)))];
  for (let i = 3; i < hsSamples.length; i += 4) {
    const prev = i >= 4 ? hsSamples[i - 4]! : {};
    const d = keys
      .map(
        (k) =>
          [
            k.replace('POST /crm/objects/2026-09/', '').replace('POST /crm/associations/2026-09/', 'assoc/'),
            (hsSamples[i]![k] ?? 0) - (prev[k] ?? 0),
          ] as const,
      )
      .filter(([, v]) => v > 0);
    console.log(`hs second ${(i + 1) / 4}: ${d.map(([k, v]) => `${k}=${v}`).join(' ')}`);
  }
}
console.log(`HubSpot refusals in all: ${JSON.stringify(sandboxes.hubspot.stats().rateLimited)}`);
console.log(
  `idle: ${idle.length} new contacts, p95 ${p95(idle).toFixed(0)} ms ` +
    `(min ${Math.min(...idle).toFixed(0)}, max ${Math.max(...idle).toFixed(0)})`,
);
console.log(
  `backfill: ${records} contacts + ${NEW_DURING} new in ${seconds.toFixed(1)} s; ` +
    `partner served ${served} (${(served / seconds).toFixed(1)}/s), 429s ${rejected}`,
);
{
  const perSecond = servedSamples.filter((_, i) => i % 4 === 3).map((n, i, all) => n - (i ? all[i - 1]! : 0));
  const lastServedAt = servedSamples.findIndex((n) => n === servedSamples[servedSamples.length - 1]) / 4;
  console.log(
    `partner per second: first ${perSecond.slice(0, 4).join(' ')}, last ${perSecond.slice(-4).join(' ')}; ` +
      `last request at ${lastServedAt.toFixed(2)} s of ${seconds.toFixed(1)} s`,
  );
  console.log(`partner per second, all: ${perSecond.join(' ')}`);
  console.log(
    `partner per quarter second, the first two seconds: ${servedSamples
      .slice(0, 8)
      .map((n, i, all) => n - (i ? all[i - 1]! : 0))
      .join(' ')}`,
  );
  // Each contact's enriched_at is stamped when its lookups were planned; what follows is linking and writing.
  const planned = existing
    .map((id) => Date.parse(sandboxes.hubspot.getContact(id)?.crm_enrich_enriched_at ?? '') - startedAt)
    .sort((a, b) => a - b);
  console.log(
    `last contacts planned at ${planned
      .slice(-3)
      .map((t) => (t / 1000).toFixed(2))
      .join(', ')} s; all written by ${seconds.toFixed(2)} s`,
  );
}
for (let i = Math.max(1, hsSamples.length - 10); i < hsSamples.length; i++) {
  const d = Object.entries(hsSamples[i]!)
    .map(([k, v]) => [k.replace(/^POST \/crm\/v\d\/(objects\/)?/, ''), v - (hsSamples[i - 1]![k] ?? 0)] as const)
    .filter(([, v]) => v > 0);
  console.log(
    `tail ${(i / 4).toFixed(2)} s: partner ${servedSamples[i]! - servedSamples[i - 1]!} ` +
      `hubspot ${d.map(([k, v]) => `${k}=${v}`).join(' ')}`,
  );
}
console.log(
  `the CRM sandboxes' event loop (this process) during the backfill: ` +
    `p99 ${(loopDelay.percentile(99) / 1e6).toFixed(0)} ms, max ${(loopDelay.max / 1e6).toFixed(0)} ms`,
);
// The partner counts arrivals when its loop takes them in: stalls beyond the limiter's margin there
// count requests that left evenly as if they came together.
const partnerLoop = ((await (await fetch(`${partnerUrl}/__sandbox/stats`)).json()) as SandboxStats).loopDelayMs;
console.log(
  `the partner sandbox's event loop (its own process), the whole run: ` +
    `p99 ${partnerLoop.p99.toFixed(0)} ms, max ${partnerLoop.max.toFixed(0)} ms`,
);
{
  const during = newSplits.slice(-newLatencies.length);
  console.log(
    `new during backfill: p95 ${p95(newLatencies).toFixed(0)} ms (max ${Math.max(...newLatencies).toFixed(0)}); ` +
      `creation to planned p95 ${p95(during.map((d) => d.planned)).toFixed(0)} ms, ` +
      `planned to written p95 ${p95(during.map((d) => d.written)).toFixed(0)} ms`,
  );
}
console.log(
  `hubspot calls: ${JSON.stringify(
    Object.fromEntries(
      Object.entries(hubspotAfter.byEndpoint)
        .map(([k, v]) => [k, v - (hubspotBefore.byEndpoint[k] ?? 0)])
        .filter(([, v]) => (v as number) > 0),
    ),
  )}`,
);

await tearDown(killAt !== undefined ? services[1] : undefined);
console.log(
  `BENCH pipeline instances=${instances} records=${records} seconds=${seconds.toFixed(1)} ` +
    `partner_utilisation=${(servedInTime / seconds / LIMIT).toFixed(3)} ` +
    `partner_requests=${served} partner_429=${rejected} partner_peak_second=${partnerAfter.maxWindow} ` +
    `partner_loop_max_ms=${partnerLoop.max.toFixed(0)} ` +
    `crm_calls=${crmCalls} crm_calls_min=${crmCallsMin} bound_by=${boundBy} ` +
    `idle_p95_ms=${p95(idle).toFixed(0)} new_record_p95_ms=${p95(newLatencies).toFixed(0)} ` +
    `rss_mb=${rssMb.toFixed(0)} ` +
    `crm_writes=${batchWrites} crm_writes_min=${batchWritesMin} duplicates=${duplicates} ` +
    `link_calls=${linkCalls} link_calls_min=${linkCallsMin} companies=${byDomain.size} ` +
    `duplicate_companies=${duplicateCompanies} unlinked=${unlinked}`,
);
process.exit(0);
