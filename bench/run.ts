/**
 * `npm run bench -- <name> [options]` runs bench/<name>.ts, which prints its figures and, as its last
 * line, `BENCH <name> key=value ...`.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .map((f) => f.slice(0, -3));

const name = process.argv[2];
if (!name || !available.includes(name)) {
  console.error(`usage: npm run bench -- <${available.join('|')}> [options]`);
  process.exit(2);
}
process.argv.splice(2, 1);
// Benches that start the service as its own process run the compiled one (dist/), as `npm start`
// does: build it first, so a fresh clone or an edited source never runs a missing or stale build.
execFileSync(process.execPath, [join(here, '..', 'bin', 'build.js')], { stdio: 'inherit' });
await import(join(here, `${name}.ts`));
