/**
 * `npm run bench -- load [--records 15000] [--singles 20] [--timeout-s 1200] [--node-options=...]
 *   [--node-flags=...]`
 *
 * A revenue team's first import, against `npm start`'s embedded default as a new user runs it (its
 * own process, PGlite, the sandboxes inside it, the default heap flag): `records` contacts are
 * imported through HubSpot's batch create API (100 per call, as HubSpot's importer and sync tools
 * do), while `singles` contacts are created one at a time in the sandbox's stand-in for HubSpot's
 * UI, as a person types them in (the events say CRM_UI, the import's INTEGRATION with the importing
 * app's id), spread over the import. The daily lookup budget is raised to fit the import, as its owner
 * would. Reports:
 * - settled: imported contacts the service has finished with (enriched, no match or skipped);
 * - peak_rss_mb: the largest resident memory of the whole process tree, start-up included, and
 *   running_peak_rss_mb the same from the first import call on (the backlog's effect);
 * - single_p95_ms: from creating a single contact until its enriched properties can be seen in the CRM
 *   (read as a person sees them, not through the API, whose rate limit the service needs), and
 *   single_settled_p95_ms until the service has stored its outcome, which waits for the company link;
 * - readyz_worst_s: the longest run of failing /readyz answers (polled every 500 ms);
 * - seconds: from the first import call until every contact has settled;
 * - partner_utilisation: lookups a second over the key's busy stretch (first lookup to last) against
 *   its limit of 50, and partner_of_limiter_rate the same against the limiter's rate (50 less its 3 %
 *   margin); lookup_time_ratio: the import's time against what its lookups need at that rate;
 * - hubspot_calls: the service's HubSpot calls, against hubspot_min, the fewest any service makes.
 * It also prints the lookups served in each second and the HubSpot calls by endpoint.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDataset } from '../src/partner/sandbox/dataset.js';
import { SANDBOX_KEY, type SandboxStats } from '../src/partner/sandbox/server.js';

const { values: args } = parseArgs({
  options: {
    'node-options': { type: 'string' },
    'node-flags': { type: 'string' },
    records: { type: 'string', default: '15000' },
    singles: { type: 'string', default: '20' },
    'timeout-s': { type: 'string', default: '1200' },
    port: { type: 'string', default: '47300' },
  },
});
const records = Number(args.records);
const singles = Number(args.singles);
const port = Number(args.port);
const dataDir = mkdtempSync(join(tmpdir(), 'crm-enrich-load-'));
const logFile = join(tmpdir(), `crm-enrich-load-${process.pid}.log`);

// The embedded partner sandbox's data: the same seed and sizes give the same people everywhere.
const people = createDataset().personRecords.filter((p) => p.workEmail);
const emailAt = (i: number) => (i < people.length ? people[i]!.workEmail! : `import-${i}@unknown-${i % 997}.example`);

// The heap flags `npm start` gives the service when NODE_OPTIONS is not set (--node-options to try others).
const startScript = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start;
const nodeOptions = args['node-options'] ?? /NODE_OPTIONS:-([^}]*)\}/.exec(startScript)![1]!;
// Flags NODE_OPTIONS may not carry go on node's command line, before the script.
const nodeFlags = (args['node-flags'] ?? /\bnode ((?:--\S+ )*)dist\/src\/cli\.js/.exec(startScript)?.[1] ?? '')
  .split(' ')
  .filter(Boolean);

// Exactly what `npm start` runs (package.json: the build, which bench/run.ts has just made, then the
// compiled service), without npm in between.
const service = spawn(process.execPath, [...nodeFlags, 'dist/src/cli.js', 'serve', '--no-demo'], {
  // The import needs more lookups than the default daily budget (10,000), as a real import would.
  env: {
    ...process.env,
    NODE_OPTIONS: nodeOptions,
    PORT: String(port),
    CRM_ENRICH_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    PARTNER_DAILY_LOOKUP_BUDGET: String(4 * records),
    PARTNER_DAILY_LOOKUP_HARD_CAP: String(5 * records),
  },
  stdio: ['ignore', openSync(logFile, 'w'), 'inherit'],
});
console.log(`service log (warnings and errors): ${logFile}`);

/** Resident memory of the service and every process under it (a TypeScript loader would run esbuild in one). */
function treeRssKb(root: number): number {
  const parents = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
      rss.set(Number(entry), Number(fields[21]) * 4);
    } catch {
      // gone
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    total += rss.get(pid) ?? 0;
    for (const [child, parent] of parents) if (parent === pid) stack.push(child);
  }
  return total;
}

/**
 * Resident memory of the embedded database: PGlite's WebAssembly memory is one anonymous mapping of
 * at least its initial 128 MB, the largest the process has; only the pages Postgres has touched count.
 */
function wasmRssKb(pid: number): number {
  let best = { size: 0, rss: 0 };
  let size = 0;
  let anonymousRw = false;
  try {
    for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
      const range = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(\S*)$/.exec(line);
      if (range) {
        size = (parseInt(range[2]!, 16) - parseInt(range[1]!, 16)) / 1024;
        anonymousRw = range[3] === 'rw-p' && range[4] === '';
      } else if (anonymousRw && line.startsWith('Rss:') && size >= 128 * 1024 && size > best.size) {
        best = { size, rss: Number(line.split(/\s+/)[1]) };
      }
    }
  } catch {
    // gone
  }
  return best.rss;
}

let peakKb = 0;
/** The peak once the service is up: how memory behaves with the backlog, apart from start-up. */
let runningPeakKb = 0;
let started_ = false;
const sampler = setInterval(() => {
  const kb = treeRssKb(service.pid!);
  peakKb = Math.max(peakKb, kb);
  if (started_) runningPeakKb = Math.max(runningPeakKb, kb);
}, 250);

const base = `http://127.0.0.1:${port}`;

/**
 * Where the service's memory goes, every two seconds: the V8 heap (reserved and used) from its
 * /metrics, the embedded database's resident pages from smaps, and the rest of its resident memory
 * (code, the runtime, buffers), kept for the largest sample.
 */
const composition = { rssMb: 0, heapTotalMb: 0, heapUsedMb: 0, databaseMb: 0 };
let heapUsedPeakMb = 0;
const metricMb = (text: string, name: string) =>
  Number(new RegExp(`^crm_enrich_${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? 0) / 2 ** 20;
const memoryProbe = setInterval(() => {
  fetch(`${base}/metrics`, { signal: AbortSignal.timeout(2_000) })
    .then((r) => r.text())
    .then((text) => {
      const sample = {
        rssMb: metricMb(text, 'process_resident_memory_bytes'),
        heapTotalMb: metricMb(text, 'nodejs_heap_size_total_bytes'),
        heapUsedMb: metricMb(text, 'nodejs_heap_size_used_bytes'),
        databaseMb: wasmRssKb(service.pid!) / 1024,
      };
      heapUsedPeakMb = Math.max(heapUsedPeakMb, sample.heapUsedMb);
      if (sample.rssMb > composition.rssMb) Object.assign(composition, sample);
    })
    .catch(() => undefined);
}, 2_000);
const hubspot = `http://127.0.0.1:${port + 2}`;
// The import is another app in the portal (an import or sync tool), with its own token and rate limit.
const headers = { authorization: 'Bearer sandbox-importer-token', 'content-type': 'application/json' };

async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
  intervalMs = 250,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Calls the HubSpot sandbox as a client would, waiting out its 429s. */
async function call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  for (;;) {
    const res = await fetch(`${hubspot}${path}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
    if (res.status === 429) {
      await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
      continue;
    }
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  }
}

await until('the service to be ready', 120_000, async () => ((await fetch(`${base}/readyz`)).ok ? true : undefined));
const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
console.log(`service ready; peak RSS so far ${Math.round(peakKb / 1024)} MB; importing ${records} contacts`);

let readyWorstMs = 0;
let readyFailingSince: number | undefined;
const readiness = setInterval(() => {
  const at = Date.now();
  // Never rejects: a failed probe reads as not ready.
  void fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5_000) })
    .then((r) => r.ok)
    .catch(() => false)
    .then((ok) => {
      if (ok) readyFailingSince = undefined;
      else readyFailingSince ??= at;
      if (readyFailingSince !== undefined) readyWorstMs = Math.max(readyWorstMs, Date.now() - readyFailingSince);
    });
}, 500);

type HubspotStats = { calls: number; byEndpoint: Record<string, number>; rateLimited: Record<string, number> };
const hubspotStats = async () => (await (await fetch(`${hubspot}/__sandbox/stats`)).json()) as HubspotStats;
const partnerServedNow = async () =>
  ((await (await fetch(`http://127.0.0.1:${port + 1}/__sandbox/stats`)).json()) as SandboxStats).keys[SANDBOX_KEY]
    ?.served ?? 0;
const hubspotBefore = await hubspotStats();
const partnerBefore = await partnerServedNow();
// The partner key's busy stretch: from the first lookup of the import to its last (sampled every 250 ms).
let firstLookupAt: number | undefined;
let lastLookupAt: number | undefined;
let lastServed = partnerBefore;
/** Lookups served in each second of the import, for where the key stood idle. */
const servedBySecond: number[] = [];
const lookupSampler = setInterval(() => {
  void partnerServedNow()
    .then((served) => {
      const at = Date.now();
      const second = Math.floor((at - started) / 1000);
      servedBySecond[second] = (servedBySecond[second] ?? 0) + served - lastServed;
      if (served > lastServed) {
        firstLookupAt ??= at - 250;
        lastLookupAt = at;
      }
      lastServed = served;
    })
    .catch(() => undefined);
}, 250);

const started = Date.now();
started_ = true;
const imported: string[] = [];
const importing = (async () => {
  for (let from = 0; from < records; from += 100) {
    const inputs = Array.from({ length: Math.min(100, records - from) }, (_, i) => ({
      properties: { email: emailAt(from + i) },
      associations: [],
    }));
    const answer = await call('POST', '/crm/v3/objects/contacts/batch/create', { inputs });
    imported.push(...(answer.results as { id: string }[]).map((r) => r.id));
  }
})();

// Single contacts, one every few seconds while the import is processed, with people the partner knows.
// They start once the import's API calls are done: those calls spend the portal's rate limit that the
// service shares here (one sandbox token), which a real importer, another app, would not.
const singleTimes: number[] = [];
const singleSettledTimes: number[] = [];
const singlesDone = (async () => {
  await importing;
  const jobs: Promise<void>[] = [];
  for (let i = 0; i < singles; i++) {
    await new Promise((r) => setTimeout(r, 3_000));
    const email = people[people.length - 1 - i]!.workEmail!;
    const createdAt = Date.now();
    // As a person creates one in HubSpot's UI (changeSource CRM_UI); the import is an app's (INTEGRATION).
    const created = (await call('POST', '/__sandbox/ui/contacts', { properties: { email } })) as { id: string };
    // Watched as a person looking at the record in HubSpot's UI sees it (the enrichment time stamp),
    // not through HubSpot's API: polling the API would spend the portal's rate limit that the service
    // itself needs.
    jobs.push(
      until(
        `single contact ${created.id} to be written`,
        600_000,
        async () => {
          const res = await fetch(`${hubspot}/__sandbox/ui/contacts/${created.id}`);
          if (!res.ok) return undefined;
          const { properties } = (await res.json()) as { properties: Record<string, string> };
          return properties.crm_enrich_enriched_at ? true : undefined;
        },
        50,
      ).then(() => void singleTimes.push(Date.now() - createdAt)),
    );
    // And through the admin API: the state is stored once the write and the company link are done.
    jobs.push(
      until(
        `single contact ${created.id} to be enriched`,
        600_000,
        async () => {
          const res = await fetch(`${base}/admin/api/records/hubspot/contact/${created.id}`, {
            headers: { authorization: `Bearer ${adminToken}` },
          });
          if (!res.ok) return undefined;
          const { state } = (await res.json()) as { state: { status: string } | null };
          return state?.status === 'enriched' ? true : undefined;
        },
        50,
      ).then(() => void singleSettledTimes.push(Date.now() - createdAt)),
    );
  }
  await Promise.all(jobs);
})();

await importing;
console.log(
  `imported ${imported.length} contacts in ${((Date.now() - started) / 1000).toFixed(1)} s; waiting for them to settle`,
);
const stats = async () => {
  const res = await fetch(`${base}/admin/api/stats`, { headers: { authorization: `Bearer ${adminToken}` } });
  return (await res.json()) as { queueDepth: number; records: Record<string, number> };
};
let lastReport = 0;
const final = await until('every contact to settle', Number(args['timeout-s']) * 1000, async () => {
  const s = await stats();
  const settledNow = Object.values(s.records).reduce((a, b) => a + b, 0);
  if (Date.now() - lastReport > 15_000) {
    lastReport = Date.now();
    console.log(`  ${settledNow} records settled, ${s.queueDepth} jobs left, peak RSS ${Math.round(peakKb / 1024)} MB`);
  }
  return s.queueDepth === 0 && settledNow >= imported.length ? s : undefined;
});
const seconds = (Date.now() - started) / 1000;
await singlesDone;
clearInterval(readiness);
clearInterval(sampler);
clearInterval(memoryProbe);
// The embedded partner sandbox (the port after the service's) counts arrivals in its own sliding second.
const partnerStats = (await fetch(`http://127.0.0.1:${port + 1}/__sandbox/stats`)
  .then((r) => r.json())
  .catch(() => undefined)) as SandboxStats | undefined;
const partnerKey = partnerStats?.keys[SANDBOX_KEY];
clearInterval(lookupSampler);
const hubspotAfter = await hubspotStats();
const importCalls = Math.ceil(records / 100);
// The service's HubSpot calls by kind (the import's own batch creates are the other app's).
const callsOf = (test: (endpoint: string) => boolean) =>
  Object.entries(hubspotAfter.byEndpoint)
    .filter(([endpoint]) => test(endpoint))
    .reduce((sum, [endpoint, n]) => sum + n - (hubspotBefore.byEndpoint[endpoint] ?? 0), 0);
const hubspotCalls = hubspotAfter.calls - hubspotBefore.calls - importCalls;
const reads = callsOf((e) => /contacts\/batch\/read|GET \/crm\/.*contacts\/:id/.test(e));
const writes = callsOf((e) => /contacts\/batch\/update|PATCH \/crm\/.*contacts\//.test(e));
const searches = callsOf((e) => /companies\/search/.test(e));
// Company creations, not the contact-to-company association batches whose path also ends in companies/batch/create.
const creations = callsOf((e) =>
  /objects\/[^/ ]+\/companies\/batch\/create|POST \/crm\/[^ ]*objects[^ ]*\/companies$/.test(e),
);
const associations = callsOf((e) => /associations/.test(e));
// The fewest calls any service makes: one read per 100 contacts, one write per 100 known, one search per 100
// work domains, one creation per 100 new employers, one association batch per 100 linked; and each single
// contact alone (a read, a write, and its employer's search, creation and link).
const known = Math.min(records, people.length);
const workDomains = new Set(people.slice(0, known).map((p) => p.workEmail!.split('@')[1]!.toLowerCase())).size;
const perHundred = (n: number) => Math.ceil(n / 100);
const kindMin = {
  reads: perHundred(records) + singles,
  writes: perHundred(known) + singles,
  searches: perHundred(workDomains) + singles,
  creations: perHundred(workDomains) + singles,
  associations: perHundred(known) + singles,
};
const hubspotMin = Object.values(kindMin).reduce((a, b) => a + b, 0);
const partnerServed = (partnerKey?.served ?? 0) - partnerBefore;
const busySeconds =
  firstLookupAt !== undefined && lastLookupAt !== undefined ? (lastLookupAt - firstLookupAt) / 1000 : 0;
// The limiter's rate: the key's 50 a second less its 3 % margin.
const limiterRate = 50 / 1.03;
console.log(
  `hubspot calls of the service: ${hubspotCalls} (reads ${reads}, writes ${writes}, searches ${searches}, ` +
    `company creations ${creations}, association batches ${associations}); the fewest: ${hubspotMin} ` +
    `(${JSON.stringify(kindMin)}, from ${workDomains} work domains); ` +
    `partner lookups ${partnerServed} in ${busySeconds.toFixed(0)} s of a busy key, which the limiter's rate ` +
    `needs ${(partnerServed / limiterRate).toFixed(0)} s for`,
);
const endpoints = Object.entries(hubspotAfter.byEndpoint)
  .map(([endpoint, n]) => [endpoint, n - (hubspotBefore.byEndpoint[endpoint] ?? 0)] as const)
  .filter(([, n]) => n > 0);
console.log(
  `hubspot calls by endpoint (the import's included): ${endpoints.map(([e, n]) => `${e} ${n}`).join(', ')}; ` +
    `refused by its rate limits: ${JSON.stringify(hubspotAfter.rateLimited)}`,
);
console.log(`partner lookups served each second: ${Array.from(servedBySecond, (n) => n ?? 0).join(' ')}`);
service.kill('SIGTERM');
await new Promise((r) => service.once('exit', r));
rmSync(dataDir, { recursive: true, force: true });

const settled = Object.values(final.records).reduce((a, b) => a + b, 0) - singles;
const sorted = [...singleTimes].sort((a, b) => a - b);
const p95Of = (xs: number[]) => xs[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)] ?? 0;
const p95 = p95Of(sorted);
const settledSorted = [...singleSettledTimes].sort((a, b) => a - b);
console.log(
  `records by status: ${JSON.stringify(final.records)}; ` +
    `single contacts written: p50 ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted.at(-1)} ms; ` +
    `settled (linked with their company): p50 ${settledSorted[Math.floor(settledSorted.length / 2)]} ms, ` +
    `max ${settledSorted.at(-1)} ms; /readyz worst failing run ${(readyWorstMs / 1000).toFixed(1)} s`,
);
const mb = (n: number) => Math.round(n);
console.log(
  `the service's largest resident memory seen on /metrics: ${mb(composition.rssMb)} MB, ` +
    `of which the V8 heap ${mb(composition.heapTotalMb)} MB (${mb(composition.heapUsedMb)} MB in use), ` +
    `the embedded database ${mb(composition.databaseMb)} MB, ` +
    'and the rest (code, the runtime, buffers) ' +
    `${mb(composition.rssMb - composition.heapTotalMb - composition.databaseMb)} MB; ` +
    `heap in use at most ${mb(heapUsedPeakMb)} MB`,
);
console.log(
  `BENCH load records=${records} settled=${settled} peak_rss_mb=${Math.round(peakKb / 1024)} ` +
    `partner_peak_second=${partnerKey?.maxWindow ?? 'unknown'} partner_429=${partnerKey?.rejected ?? 'unknown'} ` +
    `running_peak_rss_mb=${Math.round(runningPeakKb / 1024)} single_p95_ms=${p95} ` +
    `single_settled_p95_ms=${p95Of(settledSorted)} readyz_worst_s=${(readyWorstMs / 1000).toFixed(1)} ` +
    `seconds=${seconds.toFixed(0)} partner_lookups=${partnerServed} ` +
    `partner_utilisation=${busySeconds > 0 ? (partnerServed / busySeconds / 50).toFixed(3) : 'unknown'} ` +
    `partner_of_limiter_rate=${busySeconds > 0 ? (partnerServed / busySeconds / limiterRate).toFixed(3) : 'unknown'} ` +
    `lookup_time_ratio=${(seconds / (partnerServed / limiterRate)).toFixed(2)} ` +
    `hubspot_calls=${hubspotCalls} hubspot_min=${hubspotMin} ` +
    `hubspot_ratio=${(hubspotCalls / hubspotMin).toFixed(2)}`,
);
process.exit(0);
