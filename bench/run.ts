/**
 * `npm run bench -- <name> [options]` runs bench/<name>.ts, which prints its figures and, as its last
 * line, `BENCH <name> key=value ...`.
 */
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
await import(join(here, `${name}.ts`));
