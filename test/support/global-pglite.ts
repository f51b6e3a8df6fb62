/**
 * Vitest global setup: one empty PGlite database for the whole run, dumped to a file that each test
 * file loads (test/support/pglite.ts) instead of making its own. Making one runs initdb inside the
 * process, some 5 s of CPU; loading the dump takes under one. The dump starts from the template the
 * install made (src/store/pglite-template.ts), or from initdb here when there is none.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { seedFromTemplate } from '../../src/store/pglite-template.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The file holding the dump of an empty PGlite database (PGlite's `loadDataDir`). */
    pgliteDump: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'crm-enrich-test-pglite-'));
  const dataDir = join(dir, 'data');
  const pglite = seedFromTemplate(dataDir) ? await PGlite.create(dataDir) : await PGlite.create();
  const dump = join(dir, 'empty.tar');
  try {
    await writeFile(dump, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
  } finally {
    await pglite.close();
  }
  await rm(dataDir, { recursive: true, force: true });
  project.provide('pgliteDump', dump);
  return () => rm(dir, { recursive: true, force: true });
}
