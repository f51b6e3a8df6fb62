/**
 * A data-health scan of a HubSpot portal of 100,000 contacts: read through the official client from the
 * local sandbox over HTTP, 100 a call, counted page by page into an embedded Postgres (PGlite), as the
 * service scans. It measures the list calls the scan spends (docs/data-health.md states 1,000) and the
 * heap it holds beyond the portal itself: a page's records are dropped once counted, so the heap may not
 * grow with the portal. The sandbox's rate limit is lifted, so the time is the scan's own work, not
 * HubSpot's ten-second budget (at `starter`, 1,000 calls take at least 100 s). It fails (exit 1) when
 * the calls or the heap exceed their bounds.
 * Usage: npm run bench -- health-scan [--records 100000]
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PGlite } from '@electric-sql/pglite';
import { createHubspotConnector } from '../connectors/hubspot/connector.js';
import { startHubspotSandbox } from '../connectors/hubspot/sandbox/server.js';
import { cachedAnswers } from '../src/app/cached-answers.js';
import { emptyCounts } from '../src/enrich/listing/health-counts.js';
import { driveHealthScan, wholeObjectReader } from '../src/enrich/listing/health-scan.js';
import { compileMapping, loadMappingDir } from '../src/mapping/index.js';
import { openStore } from '../src/store/store.js';

const recordsArg = process.argv.indexOf('--records');
const RECORDS = recordsArg > 0 ? Number(process.argv[recordsArg + 1]) : 100_000;
/** The heap the scan may add to the portal's: one page and the counts, with room for the runtime's own. */
const HEAP_BOUND_MB = 48;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMb = () => process.memoryUsage().heapUsed / 2 ** 20;

const sandbox = await startHubspotSandbox({ rateLimit: 1_000_000 });
const hubspot = createHubspotConnector({
  connection: 'bench',
  accessToken: 'sandbox-token',
  basePath: sandbox.url,
  rateLimit: { max: 1_000_000, windowMs: 10_000 },
});
// Gaps as a portal has them: a job title on a third, no e-mail on one in fifty, a free-mail address on one in ten.
for (let i = 0; i < RECORDS; i++)
  sandbox.createContact({
    ...(i % 50 === 49
      ? { firstname: `Keyless ${i}` }
      : { email: `person${i}@${i % 10 ? `co${i % 997}.example` : 'gmail.com'}` }),
    ...(i % 3 === 0 ? { jobtitle: 'Buyer' } : {}),
  });

const pglite = await PGlite.create();
const store = await openStore({ pglite, schema: 'bench_health' });
const { mappings } = await loadMappingDir('mappings');
const mapping = compileMapping(
  mappings.find((m) => m.document.crm === 'hubspot' && m.document.object === 'contact')!.document,
);

sandbox.resetStats();
gc();
const before = heapMb();
let peak = before;
let pages = 0;
const t0 = performance.now();
const run = await store.health.start('bench', 'bench', 'contact', emptyCounts(mapping, true));
const counts = await driveHealthScan(
  {
    runs: store.health,
    states: (connection, objectType, ids) => store.state.getMany(connection, objectType, ids) as never,
    cached: cachedAnswers(store.cache),
    freeMail: { has: (domain) => domain === 'gmail.com' },
    refreshAfterDays: 30,
    reader: (connector) => {
      const read = wholeObjectReader(connector);
      return async (objectType, properties, cursor) => {
        // Every 50 pages: the heap after a collection, what the scan holds rather than what it made.
        if (++pages % 50 === 0) {
          gc();
          peak = Math.max(peak, heapMb());
        }
        return read(objectType, properties, cursor);
      };
    },
  },
  hubspot,
  'contact',
  mapping,
  run,
);
const seconds = (performance.now() - t0) / 1000;
gc();
const after = heapMb();
const calls = sandbox.stats().calls;
await hubspot.close();
await sandbox.close();
await store.close();
await pglite.close();

const growth = peak - before;
console.log(
  `scanned ${counts.records} contacts in ${seconds.toFixed(1)} s: ${calls} HubSpot calls, ` +
    `heap ${before.toFixed(1)} MB before (the sandbox's portal included), at most ${growth.toFixed(1)} MB more ` +
    `during the scan, ${(after - before).toFixed(1)} MB after`,
);
console.log(
  `BENCH health-scan records=${counts.records} calls=${calls} seconds=${seconds.toFixed(1)} ` +
    `heap_before_mb=${before.toFixed(1)} heap_growth_mb=${growth.toFixed(1)} ` +
    `records_per_s=${Math.round(counts.records / seconds)}`,
);
const problems = [
  counts.records === RECORDS ? undefined : `counted ${counts.records} records of ${RECORDS}`,
  calls <= Math.ceil(RECORDS / 100) + 1 ? undefined : `${calls} calls, more than one per 100 records`,
  growth <= HEAP_BOUND_MB ? undefined : `the heap grew by ${growth.toFixed(1)} MB, more than ${HEAP_BOUND_MB} MB`,
].filter(Boolean);
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
