/**
 * The employer resolver: three instances (each its own connector and claim holder) sharing one database
 * resolve 30 colleagues of a new employer at once and create exactly one company; colleagues in one
 * instance share one CRM search; duplicates are linked to the oldest and reported.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHubspotConnector } from '../../connectors/hubspot/connector.js';
import { startHubspotSandbox, type HubspotSandbox } from '../../connectors/hubspot/sandbox/server.js';
import type { CrmConnector } from '../../src/core/connector.js';
import {
  EmployerResolver,
  type EmployerConnector,
  type EmployerResolution,
} from '../../src/enrich/employers/employers.js';
import { FreeMailDomains } from '../../src/enrich/employers/free-mail.js';
import { employerOf } from '../../src/enrich/employers/employer-of.js';
import type { Store } from '../../src/store/store.js';
import { describeEachBackend } from '../support/db.js';

let sandbox: HubspotSandbox;
const connectors: CrmConnector[] = [];

beforeAll(async () => {
  // Search sees each change at once here; the indexing lag has tests of its own (sandbox.test.ts).
  sandbox = await startHubspotSandbox({ rateLimit: 10_000, searchLagMs: 0, searchesPerSecond: 1_000 });
});

afterAll(async () => {
  await Promise.all(connectors.map((c) => c.close()));
  await sandbox.close();
});

function instance(store: Store, enqueued: string[]): EmployerResolver {
  const connector = createHubspotConnector({
    connection: 'default',
    accessToken: 'sandbox-token',
    basePath: sandbox.url,
    rateLimit: { max: 1000, windowMs: 10_000 },
  });
  connectors.push(connector);
  return new EmployerResolver({
    connector: connector as EmployerConnector,
    claims: store.companies,
    enqueue: {
      async enqueue(jobs) {
        enqueued.push(...jobs.map((j) => j.data.recordId));
        return { inserted: jobs.length, duplicates: 0 };
      },
    },
    refreshAfterDays: 30,
    create: true,
    lingerMs: 20,
    claimWaitMs: 10_000,
  });
}

const companiesWith = (domain: string) =>
  [...sandbox.store.objects.companies.values()].filter((c) => c.properties.get('domain') === domain);
const searches = () => sandbox.stats().byEndpoint['POST /crm/objects/2026-09/companies/search'] ?? 0;

describeEachBackend('employer resolver', (t) => {
  it('creates one company for 30 colleagues arriving at once on three instances, and gives each its id', async () => {
    const store = await t.openStore();
    const enqueued: string[] = [];
    const instances = [instance(store, enqueued), instance(store, enqueued), instance(store, enqueued)];
    const domain = `new-employer-${t.backend}-${Date.now()}.example`;
    const results: EmployerResolution[] = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        instances[i % 3]!.resolve(
          { domain, name: 'New Employer Pty Ltd', fromPartner: true, market: 'AU' },
          i % 2 ? 'bulk' : 'interactive',
        ),
      ),
    );
    const created = companiesWith(domain);
    expect(created).toHaveLength(1);
    expect(created[0]!.properties.get('name')).toBe('New Employer Pty Ltd');
    expect(new Set(results.map((r) => (r.kind === 'found' ? r.companyId : r.reason)))).toEqual(
      new Set([created[0]!.id]),
    );
    // The company is enriched, and one job per company per period is all the queue keeps (dedup key).
    expect(new Set(enqueued)).toEqual(new Set([created[0]!.id]));
    expect(Object.fromEntries(await store.companies.created('default', [domain]))).toEqual({
      [domain]: created[0]!.id,
    });
  });

  it('shares one CRM search among colleagues, links a duplicate domain to the oldest company, reports it', async () => {
    const store = await t.openStore();
    const resolver = instance(store, []);
    const domain = `twice-${t.backend}-${Date.now()}.example`;
    const oldest = sandbox.createCompany({ domain, name: 'First' });
    const newer = sandbox.createCompany({ domain, name: 'Second' });
    const before = searches();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => resolver.resolve({ domain, fromPartner: true, market: 'AU' }, 'bulk')),
    );
    expect(searches() - before).toBe(1);
    expect(
      results.every(
        (r) => r.kind === 'found' && r.companyId === oldest.id && r.reason === `matched by domain ${domain}`,
      ),
    ).toBe(true);
    expect(companiesWith(domain)).toHaveLength(2);
    const duplicates = await store.companies.duplicates();
    expect(duplicates.find((d) => d.domain === domain)?.companyIds).toEqual([oldest.id, newer.id]);
    // Asked again soon, the domain answers from memory: no second search.
    await resolver.resolve({ domain, fromPartner: true, market: 'AU' }, 'interactive');
    expect(searches() - before).toBe(1);
  });

  it('asks the CRM for a new employer by domain and by name in one search before creating it', async () => {
    const store = await t.openStore();
    const resolver = instance(store, []);
    const domain = `one-search-${t.backend}-${Date.now()}.example`;
    const creates = () => sandbox.stats().byEndpoint['POST /crm/objects/2026-09/companies/batch/create'] ?? 0;
    const [searchesBefore, createsBefore] = [searches(), creates()];
    const result = await resolver.resolve(
      { domain, name: `One Search ${t.backend} Pty Ltd`, fromPartner: true, market: 'AU' },
      'interactive',
    );
    expect(result).toMatchObject({ kind: 'found', companyId: companiesWith(domain)[0]?.id });
    expect(searches() - searchesBefore).toBe(1);
    expect(creates() - createsBefore).toBe(1);
  });

  it("resolves a person's domain within its short linger when no other domain is gathering", async () => {
    const store = await t.openStore();
    const resolver = new EmployerResolver({
      ...optionsOf(instance(store, [])),
      lingerMs: 60_000,
      interactiveLingerMs: 200,
    });
    const domain = `alone-person-${t.backend}-${Date.now()}.example`;
    sandbox.createCompany({ domain, name: domain });
    const outcome = await Promise.race([
      resolver.resolve({ domain, fromPartner: true, market: 'AU' }, 'interactive'),
      new Promise<'still waiting'>((r) => setTimeout(r, 3_000, 'still waiting')),
    ]);
    expect(outcome).toMatchObject({ kind: 'found', reason: `matched by domain ${domain}` });
  });

  it("lets a person's domain join the bulk domains gathering: one search serves both", async () => {
    const store = await t.openStore();
    const resolver = new EmployerResolver({
      ...optionsOf(instance(store, [])),
      lingerMs: 500,
      interactiveLingerMs: 60_000,
    });
    const [bulkDomain, personDomain] = [
      `join-bulk-${t.backend}-${Date.now()}.example`,
      `join-person-${t.backend}-${Date.now()}.example`,
    ];
    for (const domain of [bulkDomain, personDomain]) sandbox.createCompany({ domain, name: domain });
    const before = searches();
    const bulk = resolver.resolve({ domain: bulkDomain, fromPartner: true, market: 'AU' }, 'bulk');
    const person = resolver.resolve({ domain: personDomain, fromPartner: true, market: 'AU' }, 'interactive');
    const outcome = await Promise.race([
      Promise.all([bulk, person]),
      new Promise<'still waiting'>((r) => setTimeout(r, 3_000, 'still waiting')),
    ]);
    expect(outcome).not.toBe('still waiting');
    expect((outcome as EmployerResolution[]).map((r) => r.kind)).toEqual(['found', 'found']);
    expect(searches() - before).toBe(1);
  });

  it('creates nothing where creation is off or the partner cannot vouch for the employer', async () => {
    const store = await t.openStore();
    const domain = `unknown-${t.backend}-${Date.now()}.example`;
    const off = new EmployerResolver({ ...optionsOf(instance(store, [])), create: false });
    expect(await off.resolve({ domain, fromPartner: true, market: 'AU' }, 'interactive')).toEqual({
      kind: 'none',
      reason: expect.stringMatching(/creation is off/),
    });
    // Only an e-mail names this employer, and no partner lookup is available to vouch for it.
    const on = instance(store, []);
    expect(await on.resolve({ domain, fromPartner: false, market: 'AU' }, 'interactive')).toEqual({
      kind: 'none',
      reason: expect.stringMatching(/partner does not know/),
    });
    expect(companiesWith(domain)).toHaveLength(0);
  });
});

function optionsOf(resolver: EmployerResolver): ConstructorParameters<typeof EmployerResolver>[0] {
  return (resolver as unknown as { options: ConstructorParameters<typeof EmployerResolver>[0] }).options;
}

it('takes the employer from the partner first, else from a work e-mail, never from free mail', () => {
  const freeMail = new FreeMailDomains(['post.example']);
  const partner = { current_company: { name: 'Acme', website: 'https://www.Acme.com.au/about' } };
  expect(employerOf({ partner, partnerDomain: 'acme.com.au', email: 'ada@gmail.com', market: 'AU', freeMail })).toEqual(
    { domain: 'acme.com.au', name: 'Acme', fromPartner: true, market: 'AU' },
  );
  expect(employerOf({ email: 'Ada@Initech.COM', market: 'US', freeMail })).toEqual({
    domain: 'initech.com',
    fromPartner: false,
    market: 'US',
  });
  expect(employerOf({ email: 'ada@gmail.com', market: 'AU', freeMail })).toBeUndefined();
  expect(employerOf({ email: 'ada@mail.yahoo.com', market: 'AU', freeMail })).toBeUndefined();
  expect(employerOf({ email: 'ada@post.example', market: 'AU', freeMail })).toBeUndefined();
  expect(employerOf({ partnerDomain: 'gmail.com', email: 'ada@initech.com', market: 'AU', freeMail })).toEqual({
    domain: 'initech.com',
    fromPartner: false,
    market: 'AU',
  });
  expect(employerOf({ email: 'not an address', market: 'AU', freeMail })).toBeUndefined();
});
