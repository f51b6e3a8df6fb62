/**
 * Maps and plans sandbox person records through the default HubSpot contact mapping, the work each
 * enrichment does between the partner answer and the CRM write.
 *   npm run bench -- mapping [--people 100000] [--seed 7]
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createDataset } from '../src/partner/sandbox/dataset.js';
import { compileMapping } from '../src/mapping/compile.js';
import { parseMappingDocument } from '../src/mapping/parse.js';
import { MappingError } from '../src/mapping/problems.js';
import { plan } from '../src/mapping/planner.js';
import type { CrmProperty } from '../src/core/connector.js';

const { values } = parseArgs({
  options: { people: { type: 'string', default: '100000' }, seed: { type: 'string', default: '7' } },
});
const people = Number(values.people);
const seed = Number(values.seed);

const file = 'mappings/hubspot/contact.yaml';
const parsed = parseMappingDocument(await readFile(file, 'utf8'), file);
if (!parsed.document) throw new MappingError(parsed.problems);
const schema = JSON.parse(await readFile('test/fixtures/mapping/hubspot/contact.json', 'utf8')) as CrmProperty[];
const mapping = compileMapping(parsed.document, schema, file);

const generated = Date.now();
// Only the person records are kept, so the dataset's lookup indexes do not weigh on the heap.
const records = createDataset({ seed, people, companies: Math.max(1, Math.ceil(people / 20)) }).people as Record<
  string,
  unknown
>[];
console.log(`generated ${records.length} sandbox people in ${Date.now() - generated} ms`);

// A third of the records are refreshes of what we wrote last time (nothing to write), a third have a
// person's edit to keep, and a third are new, empty CRM records.
const previous = records.map((r) => mapping.map(r));
const stamp = { property: mapping.stampProperty!, value: new Date().toISOString() };
const empty = {};
const currents = previous.map((last, i) =>
  i % 3 === 0 ? last : i % 3 === 1 ? { ...last, jobtitle: 'Edited by a person' } : empty,
);

function pass(): { writes: number; calls: number } {
  let writes = 0;
  let calls = 0;
  for (let i = 0; i < records.length; i++) {
    const mapped = mapping.map(records[i]!);
    const result = plan({
      current: currents[i]!,
      mapped,
      lastWritten: i % 3 === 2 ? empty : previous[i]!,
      rules: mapping.rules,
      stamp,
    });
    let n = 0;
    for (const _ in result.writes) n++;
    writes += n;
    if (n) calls++;
  }
  return { writes, calls };
}

pass();
const heapBefore = process.memoryUsage().heapUsed;
// Other work on the machine slows single passes; three timed passes are run and the best is reported.
const timings: number[] = [];
const cpu: number[] = [];
let last = { writes: 0, calls: 0 };
for (let round = 0; round < 3; round++) {
  const started = process.hrtime.bigint();
  const cpuStarted = process.cpuUsage();
  last = pass();
  timings.push(Number(process.hrtime.bigint() - started) / 1e9);
  const used = process.cpuUsage(cpuStarted);
  cpu.push((used.user + used.system) / 1e6);
}
const heapMb = Math.max(process.memoryUsage().heapUsed, heapBefore) / 1024 / 1024;
const best = Math.min(...timings);

console.log(
  `mapped and planned ${records.length} records per pass: ` +
    `${timings.map((t) => `${(t * 1000).toFixed(0)} ms`).join(', ')}`,
);
console.log(
  `CPU time per pass (garbage collection threads included): ` +
    `${cpu.map((t) => `${(t * 1000).toFixed(0)} ms`).join(', ')}`,
);
console.log(
  `${last.calls} records need a CRM write (${last.writes} property values); ${records.length - last.calls} need none`,
);
console.log(`heap in use, including the generated dataset: ${heapMb.toFixed(1)} MB`);
console.log(`BENCH mapping records_per_s=${Math.round(records.length / best)} heap_mb=${heapMb.toFixed(1)}`);
