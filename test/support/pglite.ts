/**
 * Empty in-memory PGlite databases for tests, loaded from the dump test/support/global-pglite.ts made
 * once for the run rather than each made by initdb (some 5 s of CPU apiece). Outside a run with that
 * setup they are made as PGlite.create makes them.
 */
import { readFile } from 'node:fs/promises';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { inject } from 'vitest';

let dump: Promise<Blob> | undefined;

/** Options that open an empty database from the run's dump; pass to PGlite.create or YieldingPGlite.open. */
export async function freshPgliteOptions(options: PGliteOptions = {}): Promise<PGliteOptions> {
  const file = inject('pgliteDump');
  if (!file) return options;
  dump ??= readFile(file).then((bytes) => new Blob([bytes]));
  return { ...options, loadDataDir: await dump };
}

/** An empty in-memory PGlite, as PGlite.create() makes, without running initdb again. */
export async function freshPglite(options: PGliteOptions = {}): Promise<PGlite> {
  return PGlite.create(await freshPgliteOptions(options));
}
