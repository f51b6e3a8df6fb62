/**
 * The deploy files against the code they deploy: every file parses, every variable they name is one
 * src/config.ts reads (and env.example names them all), and the image contains what the service loads.
 * Docker itself is not needed: these read the files as Docker and Compose would.
 */
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ConfigSchema } from '../../src/config.js';
import {
  configKeys,
  copySources,
  deployDir,
  dockerInstructions,
  interpolatedNames,
  listFiles,
  readText,
  readYamlDocuments,
  repoRoot,
  runtimeImports,
} from './deploy-files.js';

const pkg = JSON.parse(readText('package.json')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
};

describe('deploy/ files', () => {
  const files = listFiles(deployDir);

  it('every YAML and JSON file parses', () => {
    const data = files.filter((f) => /\.(ya?ml|json)$/.test(f));
    expect(data.length).toBeGreaterThanOrEqual(8);
    for (const f of data) {
      if (f.endsWith('.json')) expect(() => JSON.parse(readText(f)), f).not.toThrow();
      else expect(readYamlDocuments(f).length, f).toBeGreaterThan(0);
    }
  });
});

describe('env.example', () => {
  const text = readText('deploy/env.example');
  const env = parseEnv(text);

  it('names only variables src/config.ts reads, and every one of them', () => {
    expect(Object.keys(env).filter((k) => !configKeys.has(k))).toEqual([]);
    expect([...configKeys].filter((k) => !(k in env))).toEqual([]);
  });

  it('gives each variable a one-line comment right above it', () => {
    const lines = text.split('\n');
    const uncommented = lines.flatMap((line, i) =>
      /^[A-Z_]+=/.test(line) && !lines[i - 1]?.startsWith('# ') ? [line] : [],
    );
    expect(uncommented).toEqual([]);
  });

  it('is a valid configuration as it stands', () => {
    const result = ConfigSchema.safeParse(env);
    expect(result.error?.issues ?? []).toEqual([]);
    expect(result.data?.REFRESH_CRON).toBe('0 3 * * *');
  });
});

describe('Dockerfile', () => {
  const instructions = dockerInstructions(readText('deploy/Dockerfile'));
  const of = (keyword: string) => instructions.filter((i) => i.keyword === keyword);
  const copies = of('COPY').map((i) => copySources(i.args));
  const fromRepo = copies.filter((c) => !c.flags.some((f) => f.startsWith('--from=')));
  const copied = fromRepo.flatMap((c) => c.sources);

  it('builds every stage on node:22-bookworm-slim', () => {
    const defaults = Object.fromEntries(of('ARG').map((a) => a.args.split('=') as [string, string]));
    const bases = of('FROM').map((f) =>
      f.args.split(/\s+/)[0]!.replace(/^\$\{(\w+)\}$/, (_, name: string) => defaults[name] ?? ''),
    );
    expect(bases.length).toBeGreaterThanOrEqual(2);
    for (const base of bases) expect(base).toBe('node:22-bookworm-slim');
  });

  it('installs production dependencies only, and the compiler and tsx are among them', () => {
    expect(of('RUN').some((r) => /npm ci\b.*--omit=dev/.test(r.args))).toBe(true);
    expect(pkg.dependencies).toHaveProperty('esbuild');
    expect(pkg.dependencies).toHaveProperty('tsx');
  });

  it('compiles the copied sources in the image and runs dist/src/cli.js serve, as npm start does', () => {
    const cmd = of('CMD').at(-1);
    // One process and no TypeScript loader: node runs the compiled service itself.
    // --liftoff-only: the embedded database's WebAssembly without a second, optimised copy (README).
    expect(JSON.parse(cmd!.args)).toEqual(['node', '--liftoff-only', 'dist/src/cli.js', 'serve']);
    expect(of('RUN').some((r) => r.args.trim() === 'node bin/build.js')).toBe(true);
    expect(pkg.scripts.start).toMatch(/node --liftoff-only dist\/src\/cli\.js serve$/);
    expect(pkg.scripts.prestart).toBe('node bin/build.js');
    const inImage = (path: string) => copied.some((src) => path.startsWith(src.replace(/\/?$/, '/')) || src === path);
    for (const path of [
      'bin/build.js',
      'src/cli.ts',
      'connectors/hubspot/webhook.ts',
      'src/store/migrations/001_init.sql',
    ])
      expect(inImage(path)).toBe(true);
  });

  it('copies only paths that exist in the repository', () => {
    expect(copied.length).toBeGreaterThan(0);
    expect(copied.filter((src) => !existsSync(join(repoRoot, src)))).toEqual([]);
  });

  it('runs as a non-root user, exposes the default port and checks /healthz', () => {
    expect(of('USER').at(-1)?.args).not.toMatch(/^(root|0)(:|$)/);
    expect(of('EXPOSE').map((e) => e.args)).toEqual([String(ConfigSchema.shape.PORT.parse(undefined))]);
    expect(of('HEALTHCHECK').at(-1)?.args).toMatch(/\/healthz/);
  });

  it('contains every module the copied code loads, and no dev-only package', () => {
    const roots = new Set(copied.map((src) => src.split('/')[0]!));
    const code = [...roots]
      .filter((r) => existsSync(join(repoRoot, r)) && !/\.\w+$/.test(r))
      .flatMap((r) => listFiles(join(repoRoot, r)));
    const problems: string[] = [];
    for (const file of code.filter((f) => /\.(ts|js|mjs)$/.test(f) && !f.endsWith('.test.ts'))) {
      for (const spec of runtimeImports(readFileSync(join(repoRoot, file), 'utf8'))) {
        if (spec.startsWith('.')) {
          const target = relative(repoRoot, resolve(dirname(join(repoRoot, file)), spec));
          if (!roots.has(target.split('/')[0]!)) problems.push(`${file} loads ${spec}, which the image does not copy`);
        } else if (!spec.startsWith('node:') && !builtinModules.includes(spec)) {
          const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
          if (!(name in pkg.dependencies))
            problems.push(`${file} loads ${name}, which npm ci --omit=dev does not install`);
        }
      }
    }
    expect(code.length).toBeGreaterThan(10);
    expect(problems).toEqual([]);
  });
});

describe('compose.yaml', () => {
  const text = readText('deploy/compose.yaml');
  type Service = {
    image?: string;
    build?: { context: string; dockerfile: string };
    env_file?: unknown;
    environment?: Record<string, string>;
    depends_on?: Record<string, { condition: string }>;
    healthcheck?: unknown;
    ports?: string[];
    volumes?: string[];
  };
  const compose = parseYaml(text) as { services: Record<string, Service>; volumes: Record<string, unknown> };
  const { app, postgres, redis } = compose.services;

  it('builds the app from deploy/Dockerfile with the repository as context', () => {
    expect(resolve(deployDir, app!.build!.context)).toBe(repoRoot);
    expect(existsSync(join(repoRoot, app!.build!.dockerfile))).toBe(true);
    expect(app!.build!.dockerfile).toBe('deploy/Dockerfile');
  });

  /** Read by compose itself, never by the service; env.example documents it in a comment. */
  const COMPOSE_ONLY = new Set(['CRM_ENRICH_BIND']);

  it('names only variables src/config.ts reads, besides the address compose publishes on', () => {
    expect([app!.env_file].flat()).toEqual(['.env']);
    expect(Object.keys(app!.environment ?? {}).filter((k) => !configKeys.has(k))).toEqual([]);
    expect(interpolatedNames(text).filter((k) => !configKeys.has(k) && !COMPOSE_ONLY.has(k))).toEqual([]);
    for (const name of COMPOSE_ONLY) expect(readText('deploy/env.example')).toContain(`# ${name}=`);
  });

  it('publishes the port the app listens on, on loopback unless CRM_ENRICH_BIND says otherwise', () => {
    const port = app!.environment!.PORT;
    expect(app!.ports).toEqual([`\${CRM_ENRICH_BIND:-127.0.0.1}:${port}:${port}`]);
    // As compose resolves it: the default, and an address set in deploy/.env.
    const resolved = (bind?: string) =>
      app!.ports!.map((p) => p.replace(/\$\{CRM_ENRICH_BIND:-([^}]+)\}/, (_m, fallback: string) => bind || fallback));
    expect(resolved()).toEqual([`127.0.0.1:${port}:${port}`]);
    expect(resolved('0.0.0.0')).toEqual([`0.0.0.0:${port}:${port}`]);
    // No other service publishes anything.
    expect(Object.entries(compose.services).filter(([name, s]) => name !== 'app' && s.ports)).toEqual([]);
  });

  it('starts the app after healthy Postgres 16 and Redis 7, on a named volume', () => {
    expect(app!.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    expect(postgres!.image).toBe('postgres:16');
    expect(redis!.image).toBe('redis:7');
    expect(postgres!.healthcheck).toBeDefined();
    expect(redis!.healthcheck).toBeDefined();
    const volume = postgres!.volumes![0]!.split(':')[0]!;
    expect(Object.keys(compose.volumes)).toContain(volume);
  });

  it('defaults DATABASE_URL and REDIS_URL to the bundled services and their credentials', () => {
    const fallback = (v: string) => /^\$\{\w+:-(.+)\}$/.exec(v)![1]!;
    const db = new URL(fallback(app!.environment!.DATABASE_URL!));
    const env = (postgres as { environment: Record<string, string> }).environment;
    expect(db.hostname).toBe('postgres');
    expect([db.username, db.password, db.pathname.slice(1)]).toEqual([
      env.POSTGRES_USER,
      env.POSTGRES_PASSWORD,
      env.POSTGRES_DB,
    ]);
    expect(new URL(fallback(app!.environment!.REDIS_URL!)).hostname).toBe('redis');
  });
});
