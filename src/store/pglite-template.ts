/**
 * A fresh embedded database made once, at install time, and copied into each new data directory.
 *
 * PGlite creates a database by running initdb inside the process, which takes the resident size to
 * about 770 MB for a moment and leaves some 180 MB of it behind; opening an existing database takes
 * about 180 MB. Making the empty database when the package is installed (`npm ci` runs this file as its
 * postinstall step, and so does an image build) keeps that peak out of the service: a container sized
 * for the service's running memory does not have to be sized for initdb. Without a template (scripts
 * skipped at install, or a PGlite upgrade since), the store falls back to initdb in the process.
 *
 * Run directly: `node --import tsx src/store/pglite-template.ts` makes the template if it is missing.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

const require = createRequire(import.meta.url);

/** Where the template of the installed PGlite version lives: node_modules/.cache, as other tools keep theirs. */
export function templateDir(): string {
  // The package does not export its package.json: walk up from its entry point to it.
  let packageDir = dirname(require.resolve('@electric-sql/pglite'));
  while (!existsSync(join(packageDir, 'package.json')) && dirname(packageDir) !== packageDir)
    packageDir = dirname(packageDir);
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  // .../node_modules/@electric-sql/pglite -> .../node_modules
  return join(dirname(dirname(packageDir)), '.cache', 'crm-enrich', `pglite-${version}`);
}

/** Copies the template into `dir` (which must not hold a database yet); false when there is no template. */
export function seedFromTemplate(dir: string): boolean {
  const template = templateDir();
  if (!existsSync(join(template, 'PG_VERSION'))) return false;
  cpSync(template, dir, { recursive: true, errorOnExist: true, force: false });
  return true;
}

/** Makes the template unless it exists; written beside and renamed, so no half-made template is ever used. */
export async function ensureTemplate(): Promise<{ dir: string; made: boolean }> {
  const dir = templateDir();
  if (existsSync(join(dir, 'PG_VERSION'))) return { dir, made: false };
  const partial = `${dir}.${process.pid}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  try {
    await (await PGlite.create(partial)).close();
    renameSync(partial, dir);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    // Another install made it meanwhile: theirs is as good as ours.
    if (existsSync(join(dir, 'PG_VERSION'))) return { dir, made: false };
    throw error;
  }
  return { dir, made: true };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const { dir, made } = await ensureTemplate();
    console.log(
      made
        ? `crm-enrich: made the embedded database template in ${dir}`
        : `crm-enrich: the embedded database template is in ${dir}`,
    );
  } catch (error) {
    // Not fatal: the service makes each new embedded database itself, with a higher start-up peak.
    console.warn(
      `crm-enrich: could not make the embedded database template (${(error as Error).message}); new embedded ` +
        'databases are made at start-up instead',
    );
  }
}
