/**
 * The import rules of docs/code-map.md, read from the import statements of every production file
 * (src/, connectors/, bin/): a folder imports only the floors below its own, production code never
 * imports a sandbox, and only the command line starts the composition root.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * Each folder's floor: a file may import its own folder and any folder on a lower floor, never one on
 * its own floor or above. The same table, as words, is in docs/code-map.md.
 */
const FLOORS: Record<string, number> = {
  'src/core': 0,
  'src/config.ts': 1,
  'src/logger.ts': 1,
  'src/limits': 2,
  'src/store': 2,
  'src/auth': 2,
  'src/partner': 3,
  'connectors/hubspot': 3,
  'connectors/salesforce': 3,
  'connectors/sandbox': 3,
  'src/mapping': 4,
  'src/enrich': 5,
  'src/discovery': 6,
  'src/server': 7,
  'src/mcp': 7,
  'src/service': 8,
  'src/app': 9,
  'src/cli': 10,
  'src/cli.ts': 11,
  bin: 12,
};

/** Where a sandbox may be imported from besides another sandbox: the command line's start-up and `sandbox` commands. */
const SANDBOX_IMPORTERS = ['src/cli', 'src/cli.ts'];
/** Who may import the composition root besides itself. */
const APP_IMPORTERS = ['src/cli', 'src/cli.ts', 'bin'];
/**
 * Who may name a CRM's connector besides the connectors: the composition root, which builds them and
 * registers their entry points, and the command line. The rest sees them through src/core's contracts.
 */
const CONNECTOR_IMPORTERS = ['src/app', 'src/cli', 'src/cli.ts', 'bin'];

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|js)$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .filter((f) => !f.includes('/admin-page/public/'));
}

/** The project files a file imports (static, re-exports and dynamic imports with a literal path). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)];
  return specifiers.map((m) => normalize(join(dirname(file), m[1]!)).replace(/\.js$/, '.ts'));
}

/** The folder of the table a file belongs to (the longest entry that is a prefix of its path). */
function folderOf(file: string): string | undefined {
  return Object.keys(FLOORS)
    .filter((f) => file === f || file.startsWith(`${f}/`))
    .sort((a, b) => b.length - a.length)[0];
}

const isSandbox = (file: string) => file.split('/').includes('sandbox');
const within = (file: string, folders: string[]) => folders.some((f) => file === f || file.startsWith(`${f}/`));

const files = ['src', 'connectors', 'bin'].flatMap(filesUnder);
const imports = files.flatMap((from) => importsOf(from).map((to) => ({ from, to })));

describe('import boundaries', () => {
  it('reads the imports it checks', () => {
    // A parser that found nothing would pass every rule below.
    expect(imports.length).toBeGreaterThan(files.length);
    expect(imports).toContainEqual({ from: 'src/cli/embedded.ts', to: 'src/partner/sandbox/server.ts' });
  });

  it('places every production file on a floor', () => {
    expect(files.filter((f) => folderOf(f) === undefined)).toEqual([]);
  });

  it('lets no production file outside a sandbox and the command line import a sandbox', () => {
    const offending = imports.filter(
      ({ from, to }) => isSandbox(to) && !isSandbox(from) && !within(from, SANDBOX_IMPORTERS),
    );
    expect(offending).toEqual([]);
  });

  it('lets only the command line and bin/ import the composition root', () => {
    const offending = imports.filter(
      ({ from, to }) => within(to, ['src/app']) && !within(from, ['src/app', ...APP_IMPORTERS]),
    );
    expect(offending).toEqual([]);
  });

  it('lets only the composition root and the command line name a CRM connector', () => {
    const offending = imports.filter(
      ({ from, to }) => within(to, ['connectors']) && !within(from, ['connectors', ...CONNECTOR_IMPORTERS]),
    );
    expect(offending).toEqual([]);
  });

  it('imports no folder on its own floor or above', () => {
    const offending = imports.filter(({ from, to }) => {
      const [a, b] = [folderOf(from), folderOf(to)];
      if (!a || !b || a === b || isSandbox(from)) return false;
      return FLOORS[b]! >= FLOORS[a]!;
    });
    expect(offending).toEqual([]);
  });
});
