/**
 * A file of 100,000 rows is previewed and enriched a chunk at a time: the heap grows by far less than
 * the file (no row list, no answer list is kept), and every row is in the result, in order. The
 * partner stands in as an in-memory lookup answering from the row's address (its rate limit would
 * make 100,000 real lookups a half-hour test); what is measured is the file's reading and writing.
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import type { CrmConnector } from '../../src/core/connector.js';
import { enrichFile, previewFile, type FileEnrichmentDeps } from '../../src/enrich/listing/file/file-enrichment.js';
import type { LookupKey } from '../../src/enrich/partner-lookups.js';
import { compileMapping, loadMappingDir } from '../../src/mapping/index.js';

const ROWS = 100_000;
const dir = mkdtempSync(join(tmpdir(), 'file-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

async function writeFile(path: string): Promise<void> {
  const out = createWriteStream(path);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write('First Name,Last Name,Email,Notes\n');
  for (let i = 0; i < ROWS; i++) {
    // Every tenth row repeats an earlier address; every thousandth has no usable key.
    const n = i % 10 === 9 ? i - 9 : i;
    const email = i % 1000 === 999 ? 'not an address' : `person${n}@company${n % 500}.example`;
    await write(`Name${i},Surname${i},${email},"note ${i}, with a comma"\n`);
  }
  out.end();
  await once(out, 'finish');
}

describe('file enrichment of 100,000 rows', () => {
  it('stays within bounded memory and writes every row in order', async () => {
    const { mappings } = await loadMappingDir('mappings');
    const doc = mappings.find((m) => m.document.crm === 'hubspot' && m.document.object === 'contact')!.document;
    const mapping = compileMapping(doc);
    const asked = new Set<string>();
    const deps: FileEnrichmentDeps = {
      // A connector without a record finder: no row is searched for in the CRM, so the file's own work is measured.
      connector: {
        connection: 'hubspot',
        crm: 'hubspot',
        batchSize: 100,
        objectTypes: ['contact'],
      } as Partial<CrmConnector> as CrmConnector,
      objectType: 'contact',
      mapping,
      lookups: {
        creditsFor: async (_kind, keys: LookupKey[]) => Promise.resolve(keys.length),
        find: async (_kind, keys: LookupKey[]) => {
          const key = keys[0]!;
          const fromCache = asked.has(key.value);
          asked.add(key.value);
          return Promise.resolve({ key, fromCache, data: { id: `p-${key.value}`, position: 'Engineer' } });
        },
      },
    };
    const input = join(dir, 'in.csv');
    const output = join(dir, 'out.csv');
    await writeFile(input);

    const before = heap();
    let peak = before;
    const sample = () => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    };
    const request = { map: new Map<string, string>(), relookup: false };
    const { preview, inCrm } = await previewFile(deps, createReadStream(input), request, sample);
    const summary = await enrichFile(deps, createReadStream(input), createWriteStream(output), request, {
      inCrm,
      progress: sample,
    });
    const after = heap();

    expect(preview.rows).toBe(ROWS);
    expect(preview.invalid).toBe(ROWS / 1000);
    // The rows without a key are among the repeats, so the distinct rows are the nine in ten that repeat none.
    expect(preview.distinct).toBe((ROWS / 10) * 9);
    expect(summary).toMatchObject({ rows: ROWS, invalid: ROWS / 1000, enriched: ROWS - ROWS / 1000 });
    expect(peak - before).toBeLessThan(100 * 1024 * 1024);
    expect(after - before).toBeLessThan(50 * 1024 * 1024);

    // Every row, in order: the first cell of row i is Name<i>.
    const lines = createInterface({ input: createReadStream(output), crlfDelay: Infinity });
    let i = -1;
    const outOfOrder: number[] = [];
    for await (const line of lines) {
      if (i >= 0 && !line.startsWith(`Name${i},`)) outOfOrder.push(i);
      i++;
    }
    expect(i).toBe(ROWS);
    expect(outOfOrder).toEqual([]);
  }, 300_000);
});
