/**
 * The README and docs/ name only things that exist: every environment variable they name is read by the
 * configuration (src/config.ts) or by code of the project, every `crm-enrich` command and flag is one the
 * command line defines, every route of the service is one its Express app serves (with its method, where
 * the doc gives one), and every `crm_enrich_*` metric is one /metrics reports. The names are read from
 * the code as it runs, so a name another change adds is known as soon as its code is there. The README's
 * configuration table lists exactly the variables src/config.ts reads, and every link between the pages
 * leads to a file and a heading that are there.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import express from 'express';
import { describe, expect, it, vi } from 'vitest';
import { ConfigSchema } from '../../src/config.js';
import { useStack } from '../e2e/use-stack.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function filesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    if (statSync(join(ROOT, path)).isDirectory()) return filesUnder(path, ext);
    return ext.test(name) ? [path] : [];
  });
}

/** The README, every page of docs/ and the deployment guides, by path. */
const DOCS = new Map(
  ['README.md', ...filesUnder('docs', /\.md$/), ...filesUnder('deploy', /\.md$/)].map((p) => [
    p,
    readFileSync(join(ROOT, p), 'utf8'),
  ]),
);

interface Mention {
  doc: string;
  line: number;
  name: string;
}

/** Every match of `pattern` in the docs, with where it is (group 1 is the name). */
function mentions(pattern: RegExp): Mention[] {
  return [...DOCS].flatMap(([doc, text]) =>
    [...text.matchAll(pattern)].map((m) => ({
      doc,
      line: text.slice(0, m.index).split('\n').length,
      name: m[1]!,
    })),
  );
}

const where = (list: Mention[]) => list.map((m) => `${m.doc}:${m.line} ${m.name}`);

// --- environment variables ---------------------------------------------------------------------------

const CONFIG_VARIABLES = Object.keys(ConfigSchema.shape);

/** Variables the project's code reads itself (tests, benches, scripts, the Salesforce project's deploy). */
function variablesReadByCode(): Set<string> {
  const found = new Set<string>();
  const code = ['src', 'connectors', 'test', 'bench', 'bin', '.ci'].flatMap((d) =>
    filesUnder(d, /\.(ts|js|sh)$|^run$/),
  );
  for (const file of code) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g))
      found.add((m[1] ?? m[2])!);
  }
  const sfdx = readFileSync(join(ROOT, 'deploy/salesforce/sfdx-project.json'), 'utf8');
  for (const m of sfdx.matchAll(/"replaceWithEnv":\s*"([A-Z][A-Z0-9_]*)"/g)) found.add(m[1]!);
  return found;
}

/** Names that other programs read, which the docs mention for what they do to this one. */
const OUTSIDE_VARIABLES = new Set([
  'NODE_OPTIONS', // Node.js: npm start's V8 flags
  'MALLOC_ARENA_MAX', // glibc: memory arenas, in the memory figures
]);

/** Upper-case words the code spells as a string or a constant: a vendor's codes, never variables. */
function wordsInCode(): Set<string> {
  const found = new Set<string>();
  for (const file of ['src', 'connectors', 'bench'].flatMap((d) => filesUnder(d, /\.ts$/))) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(
      /['"`]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"`]|\bconst ([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g,
    ))
      found.add((m[1] ?? m[2])!);
  }
  return found;
}

describe('environment variables in the README and docs', () => {
  const known = new Set([...CONFIG_VARIABLES, ...variablesReadByCode(), ...OUTSIDE_VARIABLES]);
  // A variable's family is its first word (CRM_ENRICH_ for the project's own): an upper-case word of
  // another family is a vendor's code (REQUEST_LIMIT_EXCEEDED, CRM_UI_BULK_ACTION), not a variable.
  const family = (name: string) => (name.startsWith('CRM_ENRICH_') ? 'CRM_ENRICH' : name.split('_')[0]!);
  const families = new Set(CONFIG_VARIABLES.map(family));
  const constants = wordsInCode();

  it('reads the configuration and the docs it checks', () => {
    expect(CONFIG_VARIABLES.length).toBeGreaterThan(30);
    expect(CONFIG_VARIABLES).toContain('PORT');
    expect(DOCS.size).toBeGreaterThan(10);
  });

  it('names only variables that something reads', () => {
    const named = mentions(/(?<![\w-])\$?\{?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|PORT|HOST)\b(?!\()/g).filter(
      (m) => families.has(family(m.name)) || OUTSIDE_VARIABLES.has(m.name),
    );
    expect(named.length).toBeGreaterThan(100);
    const unknown = named.filter((m) => !known.has(m.name) && !constants.has(m.name));
    expect(where(unknown)).toEqual([]);
  });

  it("lists exactly the configuration's variables in the README's configuration table", () => {
    const readme = DOCS.get('README.md')!;
    const table = readme.split('<!-- configuration-table')[1]?.split(/\n\n/)[0] ?? '';
    const rows = [...table.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]!);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r, i) => rows.indexOf(r) !== i)).toEqual([]);
    expect([...rows].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });
});

// --- the command line --------------------------------------------------------------------------------

/** The command line as src/cli.ts builds it, without running it. */
let built: Promise<Command> | undefined;
function commandLine(): Promise<Command> {
  built ??= buildCommandLine();
  return built;
}

async function buildCommandLine(): Promise<Command> {
  // The command line parses process.argv as it loads; here it is built, and parsing answers at once.
  const parse = vi.spyOn(Command.prototype, 'parseAsync').mockImplementation(function (this: Command) {
    return Promise.resolve(this);
  });
  let program: Command | undefined;
  try {
    await import('../../src/cli.js');
    program = parse.mock.contexts[0] as Command | undefined;
  } finally {
    parse.mockRestore();
  }
  if (!program) throw new Error('src/cli.ts built no command line');
  return program;
}

interface CommandUse {
  doc: string;
  line: number;
  /** The words after `crm-enrich`, placeholders and brackets taken out. */
  words: string[];
  /** Flags found elsewhere on the same table row (a command table's options column). */
  rowFlags: string[];
}

const FLAG = /^--?[a-zA-Z][\w-]*/;

/** Splits a command's text into words, cut at the end of the shell command. */
function commandWords(text: string): string[] {
  const command = text.split(/\s(?:\||&&|;|#)\s|[`)]|\s\|\s/)[0]!;
  return command
    .replace(/<[^<>]*>/g, ' ')
    .replace(/[[\]]|\.\.\.|…/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

/** Every `crm-enrich ...` the docs give: after `npx`, at the start of an inline code span, or in a command table. */
function commandUses(): CommandUse[] {
  const uses: CommandUse[] = [];
  for (const [doc, raw] of DOCS) {
    // A command continued on the next line with a backslash is one command.
    const text = raw.replace(/\\\n\s*/g, ' ');
    text.split('\n').forEach((lineText, i) => {
      const cells = lineText.startsWith('|') ? lineText.split('|').slice(1, -1) : [];
      const rowFlags = cells.length > 1 ? [...cells[1]!.matchAll(/(--[a-z][\w-]*)/g)].map((m) => m[1]!) : [];
      for (const m of lineText.matchAll(/(?:npx crm-enrich|`crm-enrich) ([^\n]*)/g)) {
        const inFirstCell = cells.length > 1 && cells[0]!.includes(m[0]);
        uses.push({ doc, line: i + 1, words: commandWords(m[1]!), rowFlags: inFirstCell ? rowFlags : [] });
      }
      // docs/cli.md's table gives commands without the program's name.
      if (doc === join('docs', 'cli.md') && cells.length > 1) {
        const first = /^\s*`([a-z][^`]*)`/.exec(cells[0]!);
        if (first && !first[1]!.startsWith('crm-enrich'))
          uses.push({ doc, line: i + 1, words: commandWords(first[1]!), rowFlags });
      }
    });
  }
  return uses;
}

/** What is wrong with one use: an unknown command or a flag its command does not take. */
function problemOf(program: Command, use: CommandUse): string | undefined {
  let command = program;
  let path = 'crm-enrich';
  const flags = [...use.rowFlags];
  let flagsBegun = false;
  for (const word of use.words) {
    if (FLAG.test(word)) {
      flagsBegun = true;
      flags.push(FLAG.exec(word)![0]);
      continue;
    }
    if (flagsBegun) continue;
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) {
      command = sub;
      path += ` ${word}`;
    } else if (command.commands.length > 0) {
      return `${path} has no command ${word}`;
    } else {
      flagsBegun = true; // an argument of a leaf command
    }
  }
  const taken = new Set(['--help', '-h', ...command.options.flatMap((o) => [o.long, o.short].filter(Boolean))]);
  const wrong = flags.filter((f) => !taken.has(f));
  return wrong.length ? `${path} takes no ${wrong.join(', ')}` : undefined;
}

describe('crm-enrich commands and flags in the README and docs', () => {
  it('names only commands and flags the command line defines', async () => {
    const program = await commandLine();
    expect(program.commands.map((c) => c.name())).toEqual(expect.arrayContaining(['serve', 'backfill', 'sandbox']));
    const uses = commandUses();
    expect(uses.length).toBeGreaterThan(20);
    const problems = uses.flatMap((use) => {
      const problem = problemOf(program, use);
      return problem ? [`${use.doc}:${use.line} ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it('finds a wrong flag and a wrong command (the check itself)', async () => {
    const program = await commandLine();
    const use = (text: string): CommandUse => ({ doc: 'x', line: 1, words: commandWords(text), rowFlags: [] });
    expect(problemOf(program, use('backfill --connection hubspot --object contact --dry-run'))).toBeUndefined();
    expect(problemOf(program, use('backfill --connection hubspot --dryrun'))).toMatch(/takes no --dryrun/);
    expect(problemOf(program, use('mappings chekc'))).toMatch(/has no command chekc/);
  });
});

// --- routes and metrics, from the running service ----------------------------------------------------

interface Route {
  method: string;
  pattern: RegExp;
  path: string;
}

interface Layer {
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** An Express path (path-to-regexp 8: `:name`, `*name`, `{optional}`) as a regular expression. */
function pathPattern(path: string): RegExp {
  let source = '';
  for (let i = 0; i < path.length; i++) {
    const c = path[i]!;
    if (c === ':' || c === '*') {
      const name = /^[\w$]+/.exec(path.slice(i + 1))?.[0] ?? '';
      source += c === ':' ? '[^/]+' : '.+';
      i += name.length;
    } else if (c === '{') source += '(?:';
    else if (c === '}') source += ')?';
    else source += c.replace(/[.+?^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}/?$`);
}

/** Every route of an Express router, sub-routers' with their mount path in front. */
function routesOf(stack: Layer[], prefix = ''): Route[] {
  return stack.flatMap((layer) => {
    const raw = typeof layer.rawPath === 'string' ? layer.rawPath : '';
    if (layer.route && typeof layer.route.path === 'string') {
      const path = (prefix + layer.route.path).replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
      return Object.keys(layer.route.methods).map((method) => ({
        method: method === '_all' ? 'ALL' : method.toUpperCase(),
        pattern: pathPattern(path),
        path,
      }));
    }
    if (layer.handle?.stack) return routesOf(layer.handle.stack, raw === '/' ? prefix : prefix + raw);
    return [];
  });
}

/** Concrete paths a doc's path stands for: placeholders filled, an optional `[/part]` with and without. */
function samplePaths(docPath: string): string[] {
  const filled = docPath
    .replace(/[?#].*$/, '')
    .replace(/<[^<>/]*>|\{[^{}/]*\}|:[A-Za-z]\w*/g, 'x')
    .replace(/\.\.\.$/, '*');
  const optional = /\[([^\]]*)\]/.exec(filled);
  if (optional) return [filled.replace(optional[0], ''), filled.replace(optional[0], optional[1]!)];
  return [filled];
}

/**
 * Whether a route serves the doc's path (with the doc's method, when it gives one). An optional part
 * (`[/enrich]`) is served when either form is; a path without a method or placeholder may name the
 * area routes are under (`/admin/api`, `/webhooks/`).
 */
function served(routes: Route[], docPath: string, method?: string): boolean {
  const withMethod = routes.filter((r) => !method || r.method === method || r.method === 'ALL');
  return samplePaths(docPath).some((sample) => {
    if (sample.endsWith('*')) return withMethod.some((r) => r.path.startsWith(sample.slice(0, -1)));
    if (withMethod.some((r) => r.pattern.test(sample))) return true;
    const area = sample.replace(/\/$/, '') + '/';
    return !method && !/[<{:]/.test(docPath) && withMethod.some((r) => r.path.startsWith(area));
  });
}

/** The routes the docs give: `GET /x`, a path in code, or a URL of the service. */
function routeMentions(): (Mention & { method?: string })[] {
  const withMethod = /\b(GET|POST|PUT|PATCH|DELETE)\s+(?:<PUBLIC_URL>|https?:\/\/[\w.:-]+)?(\/[^\s`|),'"]*)/.source;
  const inCode = /`(\/[^\s`]*)`/.source;
  const serviceUrl = /(?:<PUBLIC_URL>|http:\/\/127\.0\.0\.1:3000|https:\/\/enrich\.example\.com)(\/[^\s`|),'"]*)/
    .source;
  const pattern = new RegExp(`${withMethod}|${inCode}|${serviceUrl}`, 'g');
  return [...DOCS].flatMap(([doc, text]) =>
    [...text.matchAll(pattern)].map((m) => ({
      doc,
      line: text.slice(0, m.index).split('\n').length,
      name: (m[2] ?? m[3] ?? m[4])!.replace(/[.:;]+$/, ''),
      method: m[1],
    })),
  );
}

describe('routes and metrics in the README and docs', () => {
  const init = vi.spyOn(express.application, 'init');
  const stack = useStack({ sandboxes: { people: 200, companies: 40 } });

  /** The service's routes: of the Express app that serves /healthz. */
  function serviceRoutes(): Route[] {
    const apps = init.mock.contexts as unknown as { router: { stack: Layer[] } }[];
    const routes = apps.map((app) => routesOf(app.router.stack)).find((r) => r.some((x) => x.path === '/healthz'));
    if (!routes) throw new Error('no Express app of the service was built');
    return routes;
  }

  it('names only routes the service serves, with their methods', () => {
    expect(stack.running.url).toMatch(/^http:/);
    const routes = serviceRoutes();
    expect(routes.map((r) => r.path)).toEqual(expect.arrayContaining(['/healthz', '/metrics']));
    // Paths under the service's own first segments; the sandboxes' and the vendors' paths are not its.
    const segments = new Set(routes.map((r) => r.path.split('/')[1]!).filter((s) => s && !s.startsWith(':')));
    const named = routeMentions().filter((m) => segments.has(m.name.split('/')[1]!.replace(/\*$/, '')));
    expect(named.length).toBeGreaterThan(30);
    const unknown = named.filter((m) => !served(routes, m.name, m.method));
    expect(unknown.map((m) => `${m.doc}:${m.line} ${m.method ?? ''} ${m.name}`.replace('  ', ' '))).toEqual([]);
  });

  it('names only metrics the service reports', async () => {
    const text = await (await fetch(`${stack.running.url}/metrics`)).text();
    const reported = new Set([...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]!));
    expect(reported).toContain('crm_enrich_jobs_total');
    // A metric's name ends as Prometheus names them, or is one of Node's process metrics; other
    // crm_enrich_ words are CRM properties (crm_enrich_enriched_at) and the database schema.
    const named = mentions(
      /\b(crm_enrich_(?:(?:process|nodejs)_\w+|\w+_(?:total|seconds|bytes|depth|ratio|info|bucket|count|sum)))\b/g,
    );
    expect(named.length).toBeGreaterThan(5);
    const base = (name: string) => name.replace(/_(bucket|count|sum)$/, '');
    const unknown = named.filter((m) => !reported.has(m.name) && !reported.has(base(m.name)));
    expect(where(unknown)).toEqual([]);
  });
});

describe('the route check itself', () => {
  it('matches placeholders, optional parts and wildcards, and refuses a path no route has', () => {
    const routes = routesOf([
      { route: { path: '/hubspot/card/:objectType/:objectId', methods: { get: true } } },
      { route: { path: '/hubspot/card/:objectType/:objectId/enrich', methods: { post: true } } },
      { rawPath: '/admin/api', handle: { stack: [{ route: { path: '/stats', methods: { get: true } } }] } },
    ]);
    const at = (path: string, method?: string) => served(routes, path, method);
    expect(at('/hubspot/card/:objectType/:objectId[/enrich]')).toBe(true);
    expect(at('/hubspot/card/:objectType/:objectId[/enrich]', 'POST')).toBe(true);
    expect(at('/hubspot/card/<type>/<id>', 'POST')).toBe(false);
    expect(at('/admin/api/stats?range=1h', 'GET')).toBe(true);
    expect(at('/admin/api/stats', 'POST')).toBe(false);
    expect(at('/admin/api/*')).toBe(true);
    expect(at('/admin/api')).toBe(true);
    expect(at('/admin/api/statistics')).toBe(false);
    expect(relative(ROOT, join(ROOT, 'docs'))).toBe('docs');
  });
});

// --- links between the pages -------------------------------------------------------------------------

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchorsIn(text: string): Set<string> {
  const outsideFences = text.replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...outsideFences.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)));
}

describe('links in the README and docs', () => {
  it('lead to files and headings that are there', () => {
    const links = mentions(/\]\(([^)\s]+)\)/g).filter((m) => !/^[a-z]+:/.test(m.name));
    expect(links.length).toBeGreaterThan(30);
    const broken = links.filter((m) => {
      const [path, anchor] = m.name.split('#') as [string, string | undefined];
      const target = path ? join(dirname(m.doc), path) : m.doc;
      if (!existsSync(join(ROOT, target))) return true;
      if (!anchor) return false;
      return !anchorsIn(readFileSync(join(ROOT, target), 'utf8')).has(anchor);
    });
    expect(where(broken)).toEqual([]);
  });

  it('makes the anchors GitHub makes', () => {
    expect(anchorOf('How `npm start` runs the service')).toBe('how-npm-start-runs-the-service');
    expect(anchorOf('Memory, sizing and failures')).toBe('memory-sizing-and-failures');
    expect(anchorOf('Partner API: `crm-enrich sandbox partner`')).toBe('partner-api-crm-enrich-sandbox-partner');
  });
});
