#!/usr/bin/env node
// Compiles the service to plain JavaScript in dist/ (same layout as the sources, with the migrations
// and the admin page's files beside the code that reads them), so that `npm start` and the container
// image run it without a TypeScript loader: no esbuild process, no loader thread and no source maps
// held in memory beside the service. Types are checked by `npm run typecheck`, not here.
// Usage: node bin/build.js [outdir]   (default: dist)
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = resolve(root, process.argv[2] ?? 'dist');
const sourceDirs = ['src', 'connectors'];

/** Every file under `dir`, as paths relative to the project root. */
function filesUnder(dir) {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

const files = sourceDirs.flatMap(filesUnder);
const code = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
const assets = files.filter((f) => !f.endsWith('.ts'));

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: code,
  outdir,
  outbase: '.',
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // Written beside the code but only read with --enable-source-maps, which maps stack traces back
  // to the TypeScript at the cost of keeping every map in memory.
  sourcemap: 'linked',
  logLevel: 'warning',
});
for (const asset of assets) cpSync(join(root, asset), join(outdir, asset));
console.log(`built ${code.length} modules and ${assets.length} other files into ${relative(root, outdir) || '.'}`);
