/**
 * The HubSpot app project `crm-enrich hubspot-app` writes, read by HubSpot's own project parser
 * (@hubspot/project-parsing-lib, what `hs project upload` runs before uploading): its layout, uids,
 * component types, JSON and per-component config. The parser fetches the component schemas from
 * HubSpot's API; here that one call is answered from hubspot-project-schemas.ts (see there why).
 *
 * The difference from `hs project upload`: the parser ships no schemas of its own (the first test below
 * fails if a version starts to), so the components are validated against schemas written from HubSpot's
 * reference pages, not HubSpot's own copies; the parser's own checks (layout, uids, types, JSON) are its.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseProjectConfig, LATEST_SUPPORTED_PLATFORM_VERSION } from '@hubspot/project-parsing-lib/projects';
import { getIntermediateRepresentationSchema } from '@hubspot/project-parsing-lib/schema';
import { translate, isTranslationError } from '@hubspot/project-parsing-lib/translate';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkPublicUrl, renderHubspotAppProject, TEMPLATE_URL } from '../../connectors/hubspot/app-project.js';
import { JOURNAL_SCOPES } from '../../connectors/hubspot/journal-client.js';
import { DEFAULT_WATCHED_PROPERTIES } from '../../connectors/hubspot/webhook.js';
import { HUBSPOT_PROJECT_SCHEMAS } from './hubspot-project-schemas.js';

const schemaRequests = vi.hoisted(() => [] as { accountId: number; url: string }[]);
vi.mock('@hubspot/local-dev-lib/http', () => ({
  http: {
    get: async (accountId: number, options: { url: string }) => {
      schemaRequests.push({ accountId, url: options.url });
      return { data: HUBSPOT_PROJECT_SCHEMAS };
    },
  },
}));

const PUBLIC_URL = 'https://enrich.example.com';
const ACCOUNT_ID = 123456;
const dirs: string[] = [];

async function render(publicUrl = PUBLIC_URL): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'crm-enrich-hubspot-app-'));
  dirs.push(outDir);
  await renderHubspotAppProject({ publicUrl, outDir });
  return outDir;
}

/** What `hs project upload` does first: read hsproject.json, then translate and validate srcDir. */
async function parse(projectDir: string) {
  const config = parseProjectConfig(projectDir);
  const projectSourceDir = join(projectDir, config.srcDir);
  return translate({ projectSourceDir, platformVersion: config.platformVersion, accountId: ACCOUNT_ID });
}

/** The parser's complaint about a project, as text; fails the test if the project parses. */
async function complaint(projectDir: string): Promise<string> {
  try {
    await parse(projectDir);
  } catch (error) {
    expect(isTranslationError(error)).toBe(true);
    return String(error);
  }
  throw new Error('the parser accepted the project');
}

const readJson = async (dir: string, file: string) =>
  JSON.parse(await readFile(join(dir, file), 'utf8')) as Record<string, any>;

interface Node {
  componentType: string;
  config: any;
  componentDeps: Record<string, unknown>;
  metaFilePath: string;
}
interface Named {
  subscriptionType: string;
  propertyName?: string;
}

afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe("HubSpot's project parser", () => {
  it('ships no component schemas: it asks HubSpot for them, for an account, per platform version', async () => {
    const packageDir = dirname(fileURLToPath(import.meta.resolve('@hubspot/project-parsing-lib/schema')));
    const root = join(packageDir, '..', '..');
    const files = await readdir(join(root, 'src'), { recursive: true });
    expect(files).toContain(join('lib', 'schemas.js'));
    expect(files.filter((f) => /\.json$/i.test(f))).toEqual([]);
    const before = schemaRequests.length;
    const schemas = await getIntermediateRepresentationSchema({
      projectSourceDir: 'src',
      platformVersion: '2025.2',
      accountId: ACCOUNT_ID,
    });
    expect(schemaRequests.slice(before)).toEqual([
      { accountId: ACCOUNT_ID, url: 'project-components-external/project-schemas/v3/2025.2' },
    ]);
    // What answers that call here: the schemas written from HubSpot's reference pages.
    expect(schemas).toBe(HUBSPOT_PROJECT_SCHEMAS);
  });
});

describe('the rendered HubSpot app project', () => {
  let dir: string;
  let nodes: Record<string, Node>;

  beforeAll(async () => {
    dir = await render();
    nodes = (await parse(dir)).intermediateRepresentation.intermediateNodesIndexedByUid;
  });

  it("passes HubSpot's parser, which validated it against the schemas of its platform version", () => {
    const types = Object.values(nodes)
      .map((n) => n.componentType)
      .sort();
    expect(types).toEqual(['APPLICATION', 'CARD', 'WEBHOOKS', 'WORKFLOW_ACTION']);
    const url = 'project-components-external/project-schemas/v3/2025.2';
    expect(schemaRequests.at(-1)).toEqual({ accountId: ACCOUNT_ID, url });
    for (const node of Object.values(nodes).filter((n) => n.componentType !== 'APPLICATION')) {
      expect(node.componentDeps.app, node.metaFilePath).toBe('crm_enrich_app');
    }
  });

  it('uses a platform version the parser knows, with static auth and private distribution', async () => {
    const { platformVersion } = await readJson(dir, 'hsproject.json');
    expect(['2025.2', LATEST_SUPPORTED_PLATFORM_VERSION]).toContain(platformVersion);
    const app = nodes.crm_enrich_app!.config;
    expect(app.distribution).toBe('private');
    expect(app.auth.type).toBe('static');
  });

  it('asks for the scopes the connector uses, and automation for workflow callbacks', () => {
    expect([...nodes.crm_enrich_app!.config.auth.requiredScopes].sort()).toEqual([
      'automation',
      'crm.objects.companies.read',
      'crm.objects.companies.write',
      'crm.objects.contacts.read',
      'crm.objects.contacts.write',
      'crm.schemas.companies.read',
      'crm.schemas.companies.write',
      'crm.schemas.contacts.read',
      'crm.schemas.contacts.write',
    ]);
  });

  it('offers the webhooks journal scopes the journal reader asks its client-credentials token for, and lists', () => {
    // Optional: only HUBSPOT_EVENTS=journal or both reads the journal (docs/hubspot-events.md), and only a
    // backfill, refresh or job-change sweep of a list reads lists (docs/cli.md).
    expect([...nodes.crm_enrich_app!.config.auth.optionalScopes].sort()).toEqual(
      [...JOURNAL_SCOPES, 'crm.lists.read'].sort(),
    );
  });

  it('puts the public URL in every place HubSpot calls, and leaves no placeholder behind', async () => {
    expect(nodes.crm_enrich_webhooks!.config.settings.targetUrl).toBe(`${PUBLIC_URL}/webhooks/hubspot`);
    expect(nodes.crm_enrich_enrich_record!.config.actionUrl).toBe(`${PUBLIC_URL}/hubspot/actions/enrich`);
    expect(nodes.crm_enrich_app!.config.permittedUrls.fetch).toEqual([PUBLIC_URL]);
    const card = await readFile(join(dir, 'src/app/cards/EnrichmentCard.jsx'), 'utf8');
    expect(card).toContain(`export const SERVICE_URL = '${PUBLIC_URL}';`);
    const files = [
      'hsproject.json',
      'src/app/app-hsmeta.json',
      'src/app/webhooks/webhooks-hsmeta.json',
      'src/app/workflow-actions/enrich-record-hsmeta.json',
      'src/app/cards/enrichment-card-hsmeta.json',
      'src/app/cards/EnrichmentCard.jsx',
    ];
    for (const file of files) {
      expect(await readFile(join(dir, file), 'utf8'), file).not.toContain(TEMPLATE_URL);
    }
  });

  it('subscribes to the classic events the webhook handler reads, and the properties it enriches again on', () => {
    const { legacyCrmObjects, hubEvents, crmObjects } = nodes.crm_enrich_webhooks!.config.subscriptions;
    expect(crmObjects ?? []).toEqual([]);
    expect((hubEvents as Named[]).map((s) => s.subscriptionType)).toEqual(['contact.privacyDeletion']);
    const classic = legacyCrmObjects as Named[];
    for (const object of ['contact', 'company'] as const) {
      const types = classic.map((s) => s.subscriptionType);
      expect(types).toContain(`${object}.creation`);
      expect(types).toContain(`${object}.merge`);
      const changes = classic.filter((s) => s.subscriptionType === `${object}.propertyChange`);
      const watched = changes.map((s) => s.propertyName);
      expect(watched.sort()).toEqual([...DEFAULT_WATCHED_PROPERTIES[object]].sort());
    }
  });

  it('offers "Enrich with crm-enrich" on contacts and companies, with outputs for later steps', () => {
    const action = nodes.crm_enrich_enrich_record!.config;
    expect(action.labels.en.actionName).toBe('Enrich with crm-enrich');
    expect(action.objectTypes).toEqual(['CONTACT', 'COMPANY']);
    type Output = { typeDefinition: { name: string; type: string; options?: { value: string }[] } };
    const fields = action.outputFields as Output[];
    const outputs = Object.fromEntries(fields.map((f) => [f.typeDefinition.name, f.typeDefinition]));
    expect(outputs.outcome!.type).toBe('enumeration');
    expect(outputs.outcome!.options!.map((o) => o.value)).toEqual(['enriched', 'no_match', 'skipped', 'failed']);
    expect(outputs.fields_written!.type).toBe('number');
    expect(outputs.matched!.type).toBe('bool');
  });

  it('shows the card on contact and company records, from an entry point the project carries', async () => {
    const card = nodes.crm_enrich_record_card!.config;
    expect(card.objectTypes).toEqual(['contacts', 'companies']);
    await expect(readFile(join(dir, 'src', card.entrypoint), 'utf8')).resolves.toContain('hubspot.extend(');
    const pkg = await readJson(dir, 'src/app/cards/package.json');
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['@hubspot/ui-extensions', 'react']);
  });
});

describe("HubSpot's parser refuses a malformed project", () => {
  const cases: [string, (dir: string) => Promise<void>, RegExp][] = [
    [
      'a file that is not JSON',
      async (dir) => {
        await writeFile(join(dir, 'src/app/webhooks/webhooks-hsmeta.json'), '{ "uid": "crm_enrich_webhooks", ');
      },
      /webhooks-hsmeta\.json:\s+- Invalid JSON/,
    ],
    [
      'a workflow action without its URL',
      async (dir) => {
        const file = join(dir, 'src/app/workflow-actions/enrich-record-hsmeta.json');
        const meta = JSON.parse(await readFile(file, 'utf8'));
        delete meta.config.actionUrl;
        await writeFile(file, JSON.stringify(meta));
      },
      /Missing required field: 'config\.actionUrl'/,
    ],
    [
      'a webhook target over plain http',
      async (dir) => {
        const file = join(dir, 'src/app/webhooks/webhooks-hsmeta.json');
        const text = await readFile(file, 'utf8');
        await writeFile(file, text.replace(`${PUBLIC_URL}/webhooks`, 'http://127.0.0.1:3000/webhooks'));
      },
      /config\.settings\.targetUrl: must match pattern/,
    ],
    [
      'a card in the wrong folder',
      async (dir) => {
        await mkdir(join(dir, 'src/app/settings'), { recursive: true });
        const from = join(dir, 'src/app/cards/enrichment-card-hsmeta.json');
        await writeFile(join(dir, 'src/app/settings/enrichment-card-hsmeta.json'), await readFile(from, 'utf8'));
        await rm(from);
      },
      /'app\/settings' is incorrect for type 'card'/,
    ],
    [
      'an unknown top-level field',
      async (dir) => {
        const file = join(dir, 'src/app/app-hsmeta.json');
        await writeFile(file, JSON.stringify({ ...JSON.parse(await readFile(file, 'utf8')), scopes: [] }));
      },
      /Unexpected top-level properties found: scopes/,
    ],
  ];

  it.each(cases)('%s', async (_name, spoil, expected) => {
    const dir = await render();
    await spoil(dir);
    expect(await complaint(dir)).toMatch(expected);
  });
});

describe('crm-enrich hubspot-app', () => {
  it('takes only an https origin, and says why', () => {
    expect(checkPublicUrl('https://enrich.example.com/')).toBe('https://enrich.example.com');
    expect(() => checkPublicUrl('http://127.0.0.1:3000')).toThrow(/https only/);
    expect(() => checkPublicUrl('https://enrich.example.com/crm')).toThrow(/without a path/);
    expect(() => checkPublicUrl('enrich.example.com')).toThrow(/not an absolute URL/);
    expect(() => checkPublicUrl(TEMPLATE_URL)).toThrow(/placeholder/);
  });

  it('does not write over a directory that has files', async () => {
    const dir = await render();
    const again = renderHubspotAppProject({ publicUrl: PUBLIC_URL, outDir: dir });
    await expect(again).rejects.toMatchObject({ code: 'out_dir_not_empty' });
  });

  it('writes the project from the command line, and refuses http with a message naming the option', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'crm-enrich-hubspot-cli-'));
    dirs.push(parent);
    const run = async (...args: string[]) => {
      const child = spawn('node_modules/.bin/tsx', ['src/cli.ts', 'hubspot-app', ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
      const [code] = await once(child, 'exit');
      return { code, out };
    };
    const refused = await run('--public-url', 'http://127.0.0.1:3000', '--out', join(parent, 'refused'));
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/--public-url must use https/);

    const out = join(parent, 'project');
    const written = await run('--public-url', PUBLIC_URL, '--out', out);
    expect(written.code).toBe(0);
    expect(written.out).toContain('hs project upload');
    const action = await readJson(out, 'src/app/workflow-actions/enrich-record-hsmeta.json');
    expect(action.config.actionUrl).toBe(`${PUBLIC_URL}/hubspot/actions/enrich`);
  });
});
