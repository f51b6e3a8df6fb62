import { Client } from '@hubspot/api-client';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubspotSandbox, type HubspotSandbox } from '../../connectors/hubspot/sandbox/server.js';

let sandbox: HubspotSandbox;
let hubspot: Client;

/** The official client's error, for asserting on HubSpot's wire answer. */
async function failure(
  p: Promise<unknown>,
): Promise<{ code: number; body: Record<string, unknown>; headers: Record<string, string> }> {
  const e = (await p.then(
    () => undefined,
    (err: unknown) => err,
  )) as { code: number; body: unknown; headers: Record<string, string> } | undefined;
  if (!e) throw new Error('expected the call to fail');
  return {
    code: e.code,
    body: (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as Record<string, unknown>,
    headers: e.headers,
  };
}

beforeAll(async () => {
  // Search sees each change at once here; the indexing lag has tests of its own (sandbox.test.ts).
  sandbox = await startHubspotSandbox({ rateLimit: 10_000, searchLagMs: 0, searchesPerSecond: 1_000 });
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
    const created = await hubspot.crm.contacts.basicApi.create({
      properties: { email: 'ada@example.com', firstname: 'Ada' },
      associations: [],
    });
    expect(created.properties).toMatchObject({ email: 'ada@example.com', hs_object_id: created.id });
    await new Promise((r) => setTimeout(r, 5));
    const updated = await hubspot.crm.contacts.basicApi.update(created.id, { properties: { jobtitle: 'Engineer' } });
    expect(updated.updatedAt.getTime()).toBeGreaterThan(created.createdAt.getTime());
    const read = await hubspot.crm.contacts.basicApi.getById(created.id, [
      'jobtitle',
      'phone',
      'createdate',
      'lastmodifieddate',
    ]);
    expect(read.properties).toMatchObject({ jobtitle: 'Engineer', phone: null });
    expect(Date.parse(read.properties.lastmodifieddate ?? '')).toBeGreaterThan(
      Date.parse(read.properties.createdate ?? ''),
    );
    const dup = await failure(
      hubspot.crm.contacts.basicApi.create({ properties: { email: 'ada@example.com' }, associations: [] }),
    );
    expect(dup.code).toBe(409);
  });

  it('refuses unknown and read-only properties with a 400 VALIDATION_ERROR naming them', async () => {
    const id = sandbox.createContact({ email: 'ro@example.com' }).id;
    const f = await failure(
      hubspot.crm.contacts.basicApi.update(id, { properties: { hs_object_id: '5', favourite_colour: 'blue' } }),
    );
    expect(f.code).toBe(400);
    expect(f.body).toMatchObject({ status: 'error', category: 'VALIDATION_ERROR' });
    expect((f.body.errors as { code: string }[]).map((e) => e.code)).toEqual([
      'READ_ONLY_VALUE',
      'PROPERTY_DOESNT_EXIST',
    ]);
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
    const res = await hubspot.crm.contacts.batchApi.read({
      inputs: [{ id }, { id: '777777' }],
      properties: ['email'],
      propertiesWithHistory: [],
    });
    expect(res.results.map((r) => r.id)).toEqual([id]);
    expect('errors' in res && res.errors?.[0]).toMatchObject({
      category: 'OBJECT_NOT_FOUND',
      context: { ids: ['777777'] },
    });
  });

  // It also lists the records in id order, page by page.
  it('finds a duplicate e-mail through its index, which follows e-mail changes', async () => {
    const a = await hubspot.crm.contacts.basicApi.create({
      properties: { email: 'index-a@example.com' },
      associations: [],
    });
    await hubspot.crm.contacts.basicApi.update(a.id, { properties: { email: 'Index-B@example.com' } });
    // The old address is free again; the new one is taken, whatever its case.
    const again = await hubspot.crm.contacts.basicApi.create({
      properties: { email: 'index-a@example.com' },
      associations: [],
    });
    expect(again.id).not.toBe(a.id);
    const dup = await failure(
      hubspot.crm.contacts.basicApi.create({ properties: { email: 'index-b@EXAMPLE.com' }, associations: [] }),
    );
    expect(dup.code).toBe(409);
    expect(String(dup.body.message)).toContain(`Existing ID: ${a.id}`);
    const byEmail = await hubspot.crm.contacts.basicApi.getById(
      'INDEX-B@example.com',
      ['email'],
      undefined,
      undefined,
      undefined,
      'email',
    );
    expect(byEmail.id).toBe(a.id);

    const ids: string[] = [];
    let after: string | undefined;
    do {
      const page = await hubspot.crm.contacts.basicApi.getPage(3, after);
      ids.push(...page.results.map((r) => r.id));
      after = page.paging?.next?.after;
    } while (after);
    expect(ids.map(Number)).toEqual([...ids.map(Number)].sort((x, y) => x - y));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain(a.id);
    expect(ids).toContain(again.id);
  });

  it('refuses a property value over 65,536 characters as HubSpot does, takes one of exactly that length', async () => {
    const created = await hubspot.crm.contacts.basicApi.create({
      properties: { email: 'long-values@example.com' },
      associations: [],
    });
    const refused = await failure(
      hubspot.crm.contacts.basicApi.update(created.id, { properties: { jobtitle: 'x'.repeat(65_537) } }),
    );
    expect(refused.code).toBe(400);
    expect(String(refused.body.message)).toContain('INVALID_STRING_LENGTH');
    const ok = await hubspot.crm.contacts.basicApi.update(created.id, { properties: { jobtitle: 'x'.repeat(65_536) } });
    expect(ok.properties.jobtitle).toHaveLength(65_536);
  });

  it('lists and creates properties: 201, then 409 when it exists, 400 for a missing group', async () => {
    const spec = {
      name: 'crm_enrich_score',
      label: 'Score',
      type: 'number',
      fieldType: 'number',
      groupName: 'contactinformation',
    } as const;
    const created = await hubspot.crm.properties.coreApi.create('contacts', spec as never);
    expect(created).toMatchObject({ name: 'crm_enrich_score', hubspotDefined: false });
    expect((await failure(hubspot.crm.properties.coreApi.create('contacts', spec as never))).code).toBe(409);
    const f = await failure(
      hubspot.crm.properties.coreApi.create('contacts', { ...spec, name: 'other', groupName: 'nope' } as never),
    );
    expect(f.code).toBe(400);
    const all = await hubspot.crm.properties.coreApi.getAll('contacts');
    expect(all.results.map((p) => p.name)).toEqual(
      expect.arrayContaining(['email', 'hs_linkedin_url', 'crm_enrich_score']),
    );
  });

  it('searches with EQ, IN, HAS_PROPERTY and date comparisons, paging with after, capping limit at 200', async () => {
    const t0 = Date.now();
    for (let i = 0; i < 5; i++)
      sandbox.createCompany({
        name: `Search ${i}`,
        domain: `s${i}.search.example`,
        ...(i % 2 ? { city: 'Paris' } : {}),
      });
    const search = (body: object) => hubspot.crm.companies.searchApi.doSearch(body);
    const eq = await search({
      filterGroups: [{ filters: [{ propertyName: 'domain', operator: 'EQ', value: 's3.search.example' }] }],
      properties: ['name'],
    });
    expect(eq.results.map((r) => r.properties.name)).toEqual(['Search 3']);
    const inValues = await search({
      filterGroups: [
        { filters: [{ propertyName: 'domain', operator: 'IN', values: ['s0.search.example', 's4.search.example'] }] },
      ],
    });
    expect(inValues.total).toBe(2);
    // IN takes text values in lower case and matches stored values whatever their case; others match nothing.
    const byName = async (values: string[]) =>
      (await search({ filterGroups: [{ filters: [{ propertyName: 'name', operator: 'IN', values }] }] })).results.map(
        (r) => r.properties.name,
      );
    expect(await byName(['search 2'])).toEqual(['Search 2']);
    expect(await byName(['Search 2'])).toEqual([]);
    const has = await search({
      filterGroups: [
        {
          filters: [
            { propertyName: 'city', operator: 'HAS_PROPERTY' },
            { propertyName: 'createdate', operator: 'GTE', value: String(t0) },
          ],
        },
      ],
    });
    expect(has.total).toBe(2);
    const page = await search({
      filterGroups: [{ filters: [{ propertyName: 'createdate', operator: 'GTE', value: String(t0) }] }],
      limit: 2,
    });
    expect(page.results).toHaveLength(2);
    const next = await search({
      filterGroups: [{ filters: [{ propertyName: 'createdate', operator: 'GTE', value: String(t0) }] }],
      limit: 2,
      after: page.paging?.next?.after,
    });
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
    const stats = (await (await fetch(`${sandbox.url}/__sandbox/stats`)).json()) as {
      byEndpoint: Record<string, number>;
      unauthorized: number;
    };
    expect(stats.byEndpoint['POST /crm/v3/objects/companies/search']).toBeGreaterThanOrEqual(5);
    expect(stats.unauthorized).toBe(1);
  });

  it('refuses the configured shares of calls with 429s and 502s, spread evenly so a short run sees them', async () => {
    const before = sandbox.stats().injected;
    sandbox.setFaults({ rate429: 0.15, rate5xx: 0.15 });
    const codes: number[] = [];
    for (let i = 0; i < 20; i++) {
      codes.push(
        await hubspot.crm.contacts.basicApi.getPage(1).then(
          () => 200,
          (e: { code: number }) => e.code,
        ),
      );
    }
    sandbox.setFaults({});
    const after = sandbox.stats().injected;
    expect(after['429'] - before['429']).toBe(3);
    expect(after['5xx'] - before['5xx']).toBe(3);
    expect(codes.filter((c) => c === 429)).toHaveLength(3);
    expect(codes.filter((c) => c === 502)).toHaveLength(3);
    // The first fault comes early: a run of five calls is refused at least once.
    expect(codes.slice(0, 5).some((c) => c !== 200)).toBe(true);
    expect(await hubspot.crm.contacts.basicApi.getPage(1).then(() => 200)).toBe(200);
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
      expect(small.stats().rateLimited).toEqual({ TEN_SECONDLY_ROLLING: 1, DAILY: 1, SECONDLY: 0 });
    } finally {
      await small.close();
    }
  });

  it("reports the day's usage and resets it at midnight in the portal's time zone", async () => {
    const s = await startHubspotSandbox({ timeZone: 'Australia/Sydney', dailyLimit: 250_000 });
    try {
      const client = new Client({ accessToken: 'sandbox-token', basePath: s.url, numberOfApiCallRetries: 0 });
      const details = (await (await client.apiRequest({ method: 'GET', path: '/account-info/v3/details' })).json()) as {
        timeZone: string;
        utcOffset: string;
      };
      expect(details.timeZone).toBe('Australia/Sydney');
      expect(details.utcOffset).toMatch(/^\+1[01]:00$/);
      await client.crm.contacts.basicApi.getPage();
      const usage = (await (
        await client.apiRequest({ method: 'GET', path: '/account-info/v3/api-usage/daily/private-apps' })
      ).json()) as { results: Record<string, unknown>[] };
      expect(usage.results).toHaveLength(1);
      const daily = usage.results[0]!;
      expect(daily).toMatchObject({
        name: 'private-apps-api-calls-daily',
        usageLimit: 250_000,
        fetchStatus: 'SUCCESS',
      });
      expect(daily.currentUsage).toBeGreaterThanOrEqual(2);
      // Midnight in Sydney: 13:00 UTC in daylight saving, 14:00 UTC otherwise; within the next day.
      const resetsAt = Date.parse(daily.resetsAt as string);
      expect([13, 14]).toContain(new Date(resetsAt).getUTCHours());
      expect(resetsAt - Date.now()).toBeGreaterThan(0);
      expect(resetsAt - Date.now()).toBeLessThanOrEqual(86_400_000);
    } finally {
      await s.close();
    }
  });

  it('gives the starter tier 100 and the pro tier 190 per window', async () => {
    for (const [tier, max] of [
      ['starter', '100'],
      ['pro', '190'],
    ] as const) {
      const s = await startHubspotSandbox({ tier });
      try {
        const res = await fetch(`${s.url}/crm/v3/objects/contacts`, {
          headers: { authorization: 'Bearer sandbox-token' },
        });
        expect(res.headers.get('x-hubspot-ratelimit-max')).toBe(max);
        expect(res.headers.get('x-hubspot-ratelimit-interval-milliseconds')).toBe('10000');
      } finally {
        await s.close();
      }
    }
  });
});

describe('HubSpot sandbox search, as HubSpot limits it', () => {
  it('shows a change only once indexed: a new object after the lag, a changed one as it was until then', async () => {
    const lagging = await startHubspotSandbox({ searchLagMs: 400, searchesPerSecond: 1_000 });
    try {
      const client = new Client({ accessToken: 'sandbox-token', basePath: lagging.url, numberOfApiCallRetries: 0 });
      const byDomain = async (domain: string) =>
        (
          await client.crm.companies.searchApi.doSearch({
            filterGroups: [{ filters: [{ propertyName: 'domain', operator: 'IN' as never, values: [domain] }] }],
            properties: ['name'],
          })
        ).results.map((r) => r.properties.name);
      const company = lagging.createCompany({ domain: 'lag.example', name: 'Before' });
      expect(await byDomain('lag.example')).toEqual([]);
      // Read by id, it is there at once: only search lags.
      expect((await client.crm.companies.basicApi.getById(company.id, ['name'])).properties.name).toBe('Before');
      await new Promise((r) => setTimeout(r, 450));
      expect(await byDomain('lag.example')).toEqual(['Before']);
      await client.crm.companies.basicApi.update(company.id, {
        properties: { name: 'After', domain: 'moved.example' },
      });
      expect(await byDomain('lag.example')).toEqual(['Before']);
      expect(await byDomain('moved.example')).toEqual([]);
      await new Promise((r) => setTimeout(r, 450));
      expect(await byDomain('lag.example')).toEqual([]);
      expect(await byDomain('moved.example')).toEqual(['After']);
    } finally {
      await lagging.close();
    }
  });

  it('answers more than 5 searches in a second with a SECONDLY 429, and other calls go on', async () => {
    const s = await startHubspotSandbox({ searchLagMs: 0 });
    try {
      const search = () =>
        fetch(`${s.url}/crm/v3/objects/contacts/search`, {
          method: 'POST',
          headers: { authorization: 'Bearer sandbox-token', 'content-type': 'application/json' },
          body: '{}',
        });
      const statuses = await Promise.all(Array.from({ length: 7 }, () => search().then((r) => r.status)));
      expect(statuses.filter((c) => c === 200)).toHaveLength(5);
      const refused = await search();
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ errorType: 'RATE_LIMIT', policyName: 'SECONDLY' });
      expect(
        (await fetch(`${s.url}/crm/v3/objects/contacts`, { headers: { authorization: 'Bearer sandbox-token' } }))
          .status,
      ).toBe(200);
      expect(s.stats().rateLimited.SECONDLY).toBe(3);
    } finally {
      await s.close();
    }
  });

  it('refuses more than 5 filter groups, 6 filters in one or 18 in all, and paging past 10,000 results', async () => {
    const post = async (body: unknown) => {
      const res = await fetch(`${sandbox.url}/crm/v3/objects/contacts/search`, {
        method: 'POST',
        headers: { authorization: 'Bearer sandbox-token', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { category?: string; message?: string } };
    };
    const filter = { propertyName: 'email', operator: 'HAS_PROPERTY' };
    const groups = (n: number, each: number) =>
      Array.from({ length: n }, () => ({ filters: Array.from({ length: each }, () => filter) }));
    expect((await post({ filterGroups: groups(5, 3) })).status).toBe(200);
    for (const body of [
      { filterGroups: groups(6, 1) },
      { filterGroups: groups(1, 7) },
      { filterGroups: groups(4, 5) },
    ]) {
      const r = await post(body);
      expect(r.status).toBe(400);
      expect(r.body.category).toBe('VALIDATION_ERROR');
    }
    expect((await post({ filterGroups: groups(4, 5) })).body.message).toMatch(/at most 18 filters/);
    expect((await post({ after: '9900', limit: 100 })).status).toBe(200);
    const past = await post({ after: '9950', limit: 100 });
    expect(past.status).toBe(400);
    expect(past.body.message).toMatch(/at most 10000 results/);
  });
});

describe('HubSpot sandbox start-up', () => {
  it('rejects with EADDRINUSE on a port another process holds, so a caller can choose another', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      await expect(startHubspotSandbox({ port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });
});
