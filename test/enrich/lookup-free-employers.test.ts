/**
 * A resolution that may not spend (a job change's new employer): the partner is asked nothing, the new
 * employer's company is created once per domain with what the person's answer named (name, domain,
 * partner company id), and no enrichment job is queued for it. The same resolver asked the ordinary way
 * still looks the company up and creates it enriched.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHubspotConnector } from '../../connectors/hubspot/connector.js';
import { startHubspotSandbox, type HubspotSandbox } from '../../connectors/hubspot/sandbox/server.js';
import { storePorts } from '../../src/app/store-ports.js';
import { domainOf } from '../../src/core/domain.js';
import { EmployerResolver, type EmployerConnector, type Employer } from '../../src/enrich/employers/employers.js';
import { NewCompanyPlanner } from '../../src/enrich/employers/new-companies.js';
import { PartnerLookups } from '../../src/enrich/partner-lookups.js';
import { createRateLimiter } from '../../src/limits/create-rate-limiter.js';
import { compileMapping } from '../../src/mapping/compile.js';
import { customPropertiesOf } from '../../src/mapping/custom-properties.js';
import { parseMappingDocument } from '../../src/mapping/parse.js';
import { PartnerClient } from '../../src/partner/client.js';
import { startPartnerSandbox, SANDBOX_KEY, type PartnerSandbox } from '../../src/partner/sandbox/server.js';
import { describeEachBackend } from '../support/db.js';

const COMPANY_MAPPING = 'mappings/hubspot/company.yaml';
let hubspot: HubspotSandbox;
let partner: PartnerSandbox;
const closing: (() => Promise<void>)[] = [];

beforeAll(async () => {
  hubspot = await startHubspotSandbox({ rateLimit: 10_000, searchLagMs: 0, searchesPerSecond: 1_000 });
  partner = await startPartnerSandbox({ port: 0, companies: 60, people: 20 });
});

afterAll(async () => {
  for (const close of closing) await close();
  await Promise.all([hubspot.close(), partner.close()]);
});

const partnerRequests = () => Object.values(partner.stats().byEndpoint).reduce((n, k) => n + k, 0);
const companiesWith = (domain: string) =>
  [...hubspot.store.objects.companies.values()].filter((c) => c.properties.get('domain') === domain);

/** The employer a person's answer names: the partner's current company, as employerOf reads it. */
function employerAt(index: number): Employer {
  const company = partner.dataset.companies.filter((c) => c.id?.startsWith('co_au') && c.fqdn)[index]!;
  return {
    domain: domainOf(company.fqdn!)!,
    name: company.name!,
    partnerCompanyId: company.id!,
    fromPartner: true,
    market: 'AU',
  };
}

describeEachBackend('employer resolver without spending', (t) => {
  async function resolverWith(enqueued: string[]): Promise<EmployerResolver> {
    const store = await t.openStore();
    const ports = storePorts(store);
    const parsed = parseMappingDocument(await readFile(COMPANY_MAPPING, 'utf8'), COMPANY_MAPPING);
    expect(parsed.problems).toEqual([]);
    const mapping = compileMapping(parsed.document!);
    const limiter = createRateLimiter({ id: `lookup-free-${Math.random()}`, max: 50, windowMs: 1000, marginMs: 0 });
    const client = new PartnerClient({ baseUrl: partner.url, apiKey: SANDBOX_KEY, limiter, maxRetries: 0 });
    const lookups = new PartnerLookups({
      client,
      cache: ports.cache,
      counters: ports.counters,
      dailyBudget: 1_000,
      hardCap: 1_000,
    });
    const connector = createHubspotConnector({
      connection: 'default',
      accessToken: 'sandbox-token',
      basePath: hubspot.url,
      rateLimit: { max: 1000, windowMs: 10_000 },
    });
    closing.push(
      () => limiter.stop(),
      () => connector.close(),
    );
    await connector.ensureProperties('company', customPropertiesOf(parsed.document!));
    return new EmployerResolver({
      connector: connector as EmployerConnector,
      claims: store.companies,
      lookups,
      enqueue: {
        async enqueue(jobs) {
          enqueued.push(...jobs.map((j) => j.data.recordId));
          return { inserted: jobs.length, duplicates: 0 };
        },
      },
      refreshAfterDays: 30,
      partnerIdProperty: 'crm_enrich_partner_id',
      create: true,
      planner: new NewCompanyPlanner({
        connector,
        objectType: 'company',
        mapping: () => mapping,
        lookups,
        state: ports.state,
        refreshAfterDays: 30,
      }),
      lingerMs: 20,
      claimWaitMs: 10_000,
    });
  }

  it("creates a move's new employer once per domain from the person's answer, asking the partner nothing", async () => {
    const enqueued: string[] = [];
    const resolver = await resolverWith(enqueued);
    // Each backend takes employers of its own: the HubSpot sandbox is shared by both.
    const offset = t.backend === 'pg' ? 2 : 0;
    const [moveTo, other] = [employerAt(offset), employerAt(offset + 1)];
    const before = partnerRequests();

    const results = await Promise.all(
      Array.from({ length: 6 }, () => resolver.resolve(moveTo, 'bulk', { spend: false })),
    );
    const created = companiesWith(moveTo.domain);
    expect(created).toHaveLength(1);
    expect(results).toEqual(results.map(() => expect.objectContaining({ kind: 'found', companyId: created[0]!.id })));
    expect(created[0]!.properties.get('name')).toBe(moveTo.name);
    expect(created[0]!.properties.get('crm_enrich_partner_id')).toBe(moveTo.partnerCompanyId);
    // Nothing the company lookup would have given: the company is enriched later, on its own.
    expect(created[0]!.properties.get('crm_enrich_enriched_at') ?? '').toBe('');
    // An employer only an e-mail names is not vouched for by a lookup either.
    expect(await resolver.resolve({ ...other, fromPartner: false }, 'bulk', { spend: false })).toEqual({
      kind: 'none',
      reason: expect.stringMatching(/no lookup was spent/),
    });
    expect(companiesWith(other.domain)).toHaveLength(0);
    expect(partnerRequests() - before).toBe(0);
    expect(enqueued).toEqual([]);

    // Asked the ordinary way, the same resolver plans the new company through a lookup and creates it enriched.
    const ordinary = await resolver.resolve(other, 'bulk');
    expect(partnerRequests() - before).toBeGreaterThan(0);
    const enriched = companiesWith(other.domain);
    expect(enriched).toHaveLength(1);
    expect(ordinary).toMatchObject({ kind: 'found', companyId: enriched[0]!.id });
    expect(enriched[0]!.properties.get('crm_enrich_enriched_at')).toBeTruthy();
  });

  it('spends when any asker of a domain may', async () => {
    const enqueued: string[] = [];
    const resolver = await resolverWith(enqueued);
    const employer = employerAt(t.backend === 'pg' ? 5 : 4);
    const before = partnerRequests();
    const [free, paid] = await Promise.all([
      resolver.resolve(employer, 'bulk', { spend: false }),
      resolver.resolve(employer, 'bulk'),
    ]);
    const created = companiesWith(employer.domain);
    expect(created).toHaveLength(1);
    expect([free, paid]).toEqual([
      expect.objectContaining({ kind: 'found', companyId: created[0]!.id }),
      expect.objectContaining({ kind: 'found', companyId: created[0]!.id }),
    ]);
    expect(partnerRequests() - before).toBeGreaterThan(0);
    expect(created[0]!.properties.get('crm_enrich_enriched_at')).toBeTruthy();
  });
});
