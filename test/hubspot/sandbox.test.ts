import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubspotSandbox, type HubspotSandbox } from '../../connectors/hubspot/sandbox/server.js';

let sandbox: HubspotSandbox;
let hubspot: Client;

/** The official client's error, for asserting on HubSpot's wire answer. */
async function failure(p: Promise<unknown>): Promise<{ code: number; body: Record<string, unknown>; headers: Record<string, string> }> {
  const e = (await p.then(() => undefined, (err: unknown) => err)) as { code: number; body: unknown; headers: Record<string, string> } | undefined;
  if (!e) throw new Error('expected the call to fail');
  return { code: e.code, body: (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as Record<string, unknown>, headers: e.headers };
}

beforeAll(async () => {
  sandbox = await startHubspotSandbox({ rateLimit: 10_000 });
  hubspot = new Client({ accessToken: 'sandbox-token', basePath: sandbox.url, numberOfApiCallRetries: 0 });
});

afterAll(async () => {
  await sandbox.close();
});

describe('HubSpot sandbox, through the official client', () => {
  it("answers a wrong token with HubSpot's 401 body", async () => {
    const other = new Client({ accessToken: 'nope', basePath: sandbox.url });
    const f = await failure(other.crm.contacts.basicApi.getPage());
    expect(f.code).toBe(401);
    expect(f.body).toMatchObject({ status: 'error', category: 'INVALID_AUTHENTICATION' });
    expect(typeof f.body.correlationId).toBe('string');
  });

  it('creates, reads and updates a contact, keeping hs_object_id, createdate and lastmodifieddate', async () => {
    const created = await hubspot.crm.contacts.basicApi.create({ properties: { email: 'ada@example.com', firstname: 'Ada' }, associations: [] });
    expect(created.properties).toMatchObject({ email: 'ada@example.com', hs_object_id: created.id });
    await new Promise((r) => setTimeout(r, 5));
    const updated = await hubspot.crm.contacts.basicApi.update(created.id, { properties: { jobtitle: 'Engineer' } });
    expect(updated.updatedAt.getTime()).toBeGreaterThan(created.createdAt.getTime());
    const read = await hubspot.crm.contacts.basicApi.getById(created.id, ['jobtitle', 'phone', 'createdate', 'lastmodifieddate']);
    expect(read.properties).toMatchObject({ jobtitle: 'Engineer', phone: null });
    expect(Date.parse(read.properties.lastmodifieddate ?? '')).toBeGreaterThan(Date.parse(read.properties.createdate ?? ''));
    const dup = await failure(hubspot.crm.contacts.basicApi.create({ properties: { email: 'ada@example.com' }, associations: [] }));
    expect(dup.code).toBe(409);
  });

  it('refuses unknown and read-only properties with a 400 VALIDATION_ERROR naming them', async () => {
    const id = sandbox.createContact({ email: 'ro@example.com' }).id;
    const f = await failure(hubspot.crm.contacts.basicApi.update(id, { properties: { hs_object_id: '5', favourite_colour: 'blue' } }));
    expect(f.code).toBe(400);
    expect(f.body).toMatchObject({ status: 'error', category: 'VALIDATION_ERROR' });
    expect((f.body.errors as { code: string }[]).map((e) => e.code)).toEqual(['READ_ONLY_VALUE', 'PROPERTY_DOESNT_EXIST']);
    expect(String(f.body.message)).toMatch(/favourite_colour/);
  });

  it('checks enumeration values against the options', async () => {
    const id = sandbox.createCompany({ name: 'Enum Co' }).id;
    const f = await failure(hubspot.crm.companies.basicApi.update(id, { properties: { industry: 'Software' } }));
    expect(f.code).toBe(400);
    expect((f.body.errors as { code: string }[])[0]?.code).toBe('INVALID_OPTION');
    await hubspot.crm.companies.basicApi.update(id, { properties: { industry: 'COMPUTER_SOFTWARE' } });
    expect(sandbox.getCompany(id)?.industry).toBe('COMPUTER_SOFTWARE');
  });

  it('rejects a batch of more than 100 inputs as a whole', async () => {
    const inputs = Array.from({ length: 101 }, (_, i) => ({ id: String(i + 1) }));
    const f = await failure(hubspot.crm.contacts.batchApi.read({ inputs, properties: [], propertiesWithHistory: [] }));
    expect(f.code).toBe(400);
    expect(String(f.body.message)).toMatch(/101/);
  });

  it('answers 207 with the found records and the missing ids', async () => {
    const id = sandbox.createContact({ email: 'found@example.com' }).id;
    const res = await hubspot.crm.contacts.batchApi.read({ inputs: [{ id }, { id: '777777' }], properties: ['email'], propertiesWithHistory: [] });
    expect(res.results.map((r) => r.id)).toEqual([id]);
    expect('errors' in res && res.errors?.[0]).toMatchObject({ category: 'OBJECT_NOT_FOUND', context: { ids: ['777777'] } });
  });

  it('lists and creates properties: 201, then 409 when it exists, 400 for a missing group', async () => {
    const spec = { name: 'crm_enrich_score', label: 'Score', type: 'number', fieldType: 'number', groupName: 'contactinformation' } as const;
    const created = await hubspot.crm.properties.coreApi.create('contacts', spec as never);
    expect(created).toMatchObject({ name: 'crm_enrich_score', hubspotDefined: false });
    expect((await failure(hubspot.crm.properties.coreApi.create('contacts', spec as never))).code).toBe(409);
    const f = await failure(hubspot.crm.properties.coreApi.create('contacts', { ...spec, name: 'other', groupName: 'nope' } as never));
    expect(f.code).toBe(400);
    const all = await hubspot.crm.properties.coreApi.getAll('contacts');
    expect(all.results.map((p) => p.name)).toEqual(expect.arrayContaining(['email', 'hs_linkedin_url', 'crm_enrich_score']));
  });

  it('searches with EQ, IN, HAS_PROPERTY and date comparisons, paging with after and capping limit at 200', async () => {
    const t0 = Date.now();
    for (let i = 0; i < 5; i++) sandbox.createCompany({ name: `Search ${i}`, domain: `s${i}.search.example`, ...(i % 2 ? { city: 'Paris' } : {}) });
    const search = (body: object) => hubspot.crm.companies.searchApi.doSearch(body as never);
    const eq = await search({ filterGroups: [{ filters: [{ propertyName: 'domain', operator: 'EQ', value: 's3.search.example' }] }], properties: ['name'] });
    expect(eq.results.map((r) => r.properties.name)).toEqual(['Search 3']);
    const inValues = await search({ filterGroups: [{ filters: [{ propertyName: 'domain', operator: 'IN', values: ['s0.search.example', 's4.search.example'] }] }] });
    expect(inValues.total).toBe(2);
    const has = await search({ filterGroups: [{ filters: [{ propertyName: 'city', operator: 'HAS_PROPERTY' }, { propertyName: 'createdate', operator: 'GTE', value: String(t0) }] }] });
    expect(has.total).toBe(2);
    const page = await search({ filterGroups: [{ filters: [{ propertyName: 'createdate', operator: 'GTE', value: String(t0) }] }], limit: 2 });
    expect(page.results).toHaveLength(2);
    const next = await search({ filterGroups: [{ filters: [{ propertyName: 'createdate', operator: 'GTE', value: String(t0) }] }], limit: 2, after: page.paging?.next?.after });
    expect(next.results[0]?.id).not.toBe(page.results[0]?.id);
    expect((await failure(search({ filterGroups: [], limit: 201 }))).code).toBe(400);
  });

  it('creates the default contact-company association', async () => {
    const contact = sandbox.createContact({ email: 'assoc@example.com' }).id;
    const company = sandbox.createCompany({ name: 'Assoc' }).id;
    const res = await hubspot.crm.associations.v4.basicApi.createDefault('contact', contact, 'company', company);
    expect(res.results[0]?.associationSpec.associationTypeId).toBe(279);
    const list = await hubspot.crm.associations.v4.basicApi.getPage('contact', contact, 'company');
    expect(list.results.map((r) => String(r.toObjectId))).toEqual([company]);
  });

  it('reports calls per endpoint at /__sandbox/stats', async () => {
    const stats = (await (await fetch(`${sandbox.url}/__sandbox/stats`)).json()) as { byEndpoint: Record<string, number>; unauthorized: number };
    expect(stats.byEndpoint['POST /crm/v3/objects/companies/search']).toBeGreaterThanOrEqual(5);
    expect(stats.unauthorized).toBe(1);
  });
});

describe('HubSpot sandbox rate limits', () => {
  it("answers over the tier's window with HubSpot's 429 body and headers", async () => {
    const small = await startHubspotSandbox({ rateLimit: 3, rateWindowMs: 60_000 });
    try {
      const client = new Client({ accessToken: 'sandbox-token', basePath: small.url, numberOfApiCallRetries: 0 });
      for (let i = 0; i < 3; i++) await client.crm.contacts.basicApi.getPage();
      const f = await failure(client.crm.contacts.basicApi.getPage());
      expect(f.code).toBe(429);
      expect(f.body).toMatchObject({ errorType: 'RATE_LIMIT', policyName: 'TEN_SECONDLY_ROLLING' });
      expect(f.headers['x-hubspot-ratelimit-max']).toBe('3');
      expect(f.headers['x-hubspot-ratelimit-remaining']).toBe('0');
      small.exhaustDailyLimit();
      expect((await failure(client.crm.contacts.basicApi.getPage())).body).toMatchObject({ policyName: 'DAILY' });
      expect(small.stats().rateLimited).toEqual({ TEN_SECONDLY_ROLLING: 1, DAILY: 1 });
    } finally {
      await small.close();
    }
  });

  it('gives the starter tier 100 and the pro tier 190 per window', async () => {
    for (const [tier, max] of [['starter', '100'], ['pro', '190']] as const) {
      const s = await startHubspotSandbox({ tier });
      try {
        const res = await fetch(`${s.url}/crm/v3/objects/contacts`, { headers: { authorization: 'Bearer sandbox-token' } });
        expect(res.headers.get('x-hubspot-ratelimit-max')).toBe(max);
        expect(res.headers.get('x-hubspot-ratelimit-interval-milliseconds')).toBe('10000');
      } finally {
        await s.close();
      }
    }
  });
});
