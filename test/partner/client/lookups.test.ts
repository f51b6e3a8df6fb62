import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerError } from '../../../src/partner/partner-error.js';
import { failure, partnerFixture, KEY, type PartnerFixture } from './fixtures.js';

let fx: PartnerFixture;
beforeAll(async () => {
  fx = await partnerFixture();
});
afterAll(async () => {
  await fx.close();
});

describe('partner client lookups against the sandbox', () => {
  it.each(['id', 'ln_slug', 'ln_url', 'fqdn', 'abn', 'website'] as const)('finds a company by %s', async (by) => {
    const { client, events } = fx.client();
    const company = fx.sample.companies[0]!;
    const found = await client.lookupCompany({ by, value: company[by]! });
    expect(found?.id).toBe(company.id);
    expect(found?.name).toBe(company.name);
    expect(events).toEqual([expect.objectContaining({ endpoint: 'company', status: 200, attempt: 1, kind: 'ok' })]);
  });

  it('sends the market and gets region-specific data back', async () => {
    const { client } = fx.client();
    const nz = (await (await fetch(`${fx.sandbox.url}/__sandbox/sample?market=NZ&n=1`)).json()) as {
      companies: Array<Record<string, string>>;
    };
    const company = nz.companies[0]!;
    const found = await client.lookupCompany({ by: 'id', value: company.id!, country: 'NZ' });
    expect(found?.industry_codes?.nzbn).toBe(company.nzbn);
  });

  it.each(['id', 'ln_slug', 'ln_url', 'work_email'] as const)('finds a person by %s', async (by) => {
    const { client } = fx.client();
    const person = fx.sample.people[0]!;
    const found = await client.lookupPerson({ by, value: person[by]! });
    expect(found?.id).toBe(person.id);
    expect(found?.current_company?.id).toBe(person.company_id);
  });

  it('finds a person by personal e-mail', async () => {
    const { client } = fx.client();
    const person = fx.sample.people.find((p) => p.personal_email);
    expect(person, 'the sample holds a person with a personal e-mail').toBeDefined();
    const found = await client.lookupPerson({ by: 'personal_email', value: person!.personal_email! });
    expect(found?.id).toBe(person!.id);
  });

  it('returns null when the partner has no match, without retrying', async () => {
    const { client, events } = fx.client();
    expect(await client.lookupCompany({ by: 'fqdn', value: 'no-such-company.example' })).toBeNull();
    expect(await client.lookupPerson({ by: 'work_email', value: 'nobody@no-such-company.example' })).toBeNull();
    expect(events.map((e) => [e.status, e.kind])).toEqual([
      [404, 'no_match'],
      [404, 'no_match'],
    ]);
  });

  it('treats a 404 without the provider error body as an error, not as no match', async () => {
    // A web server that is not the API, as a wrong PARTNER_BASE_URL would reach.
    const web = createServer((_req, res) =>
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'),
    );
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    try {
      const { client } = fx.client({ baseUrl: `http://127.0.0.1:${(web.address() as AddressInfo).port}` });
      const error = await failure(client.lookupCompany({ by: 'id', value: 'co_au000001' }));
      expect(error.status).toBe(404);
      expect(error.code).toBe('not_found');
      expect(error.message).toMatch(/PARTNER_BASE_URL/);
    } finally {
      await new Promise((resolve) => web.close(resolve));
    }
  });

  it('sends configured parameter names, and keeps the provider reason of a 400 without retrying', async () => {
    const { client, events } = fx.client({ paramNames: { company: { fqdn: 'domain' } } });
    const before = fx.served();
    const error = await failure(client.lookupCompany({ by: 'fqdn', value: fx.sample.companies[0]!.fqdn! }));
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_request');
    expect(error.retryable).toBe(false);
    // The sandbox knows `fqdn`, not `domain`, and says so.
    expect(error.message).toMatch(/no lookup parameter was given; give exactly one of id, ln_slug/);
    expect(events).toHaveLength(1);
    expect(fx.served() - before).toBe(1);
  });

  it('refuses bad lookup input before spending a request, naming the field', async () => {
    const { client, events } = fx.client();
    const bad = await failure(client.lookupCompany({ by: 'id', value: 'x', country: 'FR' as never }));
    expect(bad.code).toBe('invalid_lookup');
    expect(bad.message).toMatch(/country must be one of AU, NZ/);
    const empty = await failure(client.lookupPerson({ by: 'work_email', value: '  ' }));
    expect(empty.message).toMatch(/value must be a non-empty string/);
    const kind = await failure(client.lookupPerson({ by: 'fqdn' as never, value: 'a.example' }));
    expect(kind.message).toMatch(/by must be one of id, ln_slug, ln_url, work_email, personal_email/);
    expect(events).toHaveLength(0);
  });

  it('tells the user to check the API key on 401, without the key in the message', async () => {
    const secret = 'sk-live-abcdef0123456789';
    const { client, events } = fx.client({ apiKey: secret });
    const error = await failure(client.lookupCompany({ by: 'id', value: 'co_au000001' }));
    expect(error.status).toBe(401);
    expect(error.code).toBe('unauthorized');
    expect(error.kind).toBe('config');
    expect(error.message).toMatch(/Check PARTNER_API_KEY/);
    expect(events).toHaveLength(1);
    for (const text of [
      error.message,
      inspect(error, { depth: 10 }),
      JSON.stringify(error),
      inspect(client, { depth: 10, showHidden: true }),
    ]) {
      expect(text).not.toContain(secret);
    }
  });

  it('says the key belongs to no organisation on 403 org_required', async () => {
    const { client } = fx.client({ apiKey: 'sandbox-key-no-org' });
    const error = await failure(client.lookupPerson({ by: 'id', value: 'pe_0000001' }));
    expect(error.status).toBe(403);
    expect(error.code).toBe('org_required');
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/belongs to no organisation/);
    expect(error.message).not.toContain('sandbox-key-no-org');
  });
});

describe('partner client options', () => {
  it.each([
    [{ baseUrl: 'ftp://partner.example' }, /baseUrl must be an http\(s\) URL/],
    [{ apiKey: '' }, /apiKey must not be empty \(set PARTNER_API_KEY\)/],
    [{ maxRetries: -1 }, /maxRetries must be a whole number of at least 0/],
    [{ paramNames: { company: { fqdn: 'has space' } } }, /paramNames.company.fqdn: expected a query parameter name/],
    [{ paramNames: { company: { domain: 'x' } } } as never, /domain/],
  ])('refuses %o with a message naming the option', (overrides, message) => {
    expect(() => fx.client(overrides)).toThrow(message);
    expect(() => fx.client(overrides)).toThrow(PartnerError);
  });
});

describe('partner client search and filter options', () => {
  it('searches people with every body field', async () => {
    const { client } = fx.client();
    const person = fx.sample.people[0]!;
    const results = await client.searchPeople({
      companyId: person.company_id,
      selectedCountry: 'AU',
      from: '0',
      size: '100',
    });
    expect(results.map((r) => r.person_id)).toContain(person.id);
    const word = results[0]!.position!.split(' ')[0]!;
    const narrowed = await client.searchPeople({ companyId: person.company_id, position: word });
    expect(narrowed.map((r) => r.person_id)).toContain(results[0]!.person_id);
    for (const r of narrowed) expect(r.position?.toLowerCase()).toContain(word.toLowerCase());
    // seniority and department reach the provider: out-of-range ids come back as its 400.
    await expect(client.searchPeople({ seniority: '9' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/seniority/),
    });
    await expect(client.searchPeople({ department: '18' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/department/),
    });
    expect(
      await client.searchPeople({ seniority: '7', department: '17', selectedCountry: 'AU', size: '2' }),
    ).toHaveLength(2);
  });

  it('pages through every result with from and size', async () => {
    const { client, events } = fx.client();
    const companyId = fx.sample.people[0]!.company_id;
    const all = await client.searchPeople({ companyId, size: '100' });
    expect(all.length).toBeGreaterThan(3);
    expect(all.length).toBeLessThan(100);
    const paged: string[] = [];
    for await (const r of client.searchPeopleAll({ companyId }, { pageSize: 3 })) paged.push(r.person_id!);
    expect(paged).toEqual(all.map((r) => r.person_id));
    expect(events.length - 1).toBe(Math.floor(all.length / 3) + 1);
  });

  it('keeps the reason of a 422 invalid_filter_value and of a 400 search, without retrying', async () => {
    const { client, events } = fx.client();
    const filter = await failure(client.searchPeople({ filters: { seniority: ['not-a-code'] }, country: ['AU'] }));
    expect(filter.status).toBe(422);
    expect(filter.code).toBe('invalid_filter_value');
    expect(filter.message).toMatch(/seniority/);
    expect(filter.message).toMatch(/not-a-code/);
    const size = await failure(client.searchPeople({ size: '5000' }));
    expect(size.status).toBe(400);
    expect(size.message).toMatch(/size must be a whole number from 1 to 100/);
    expect(events.map((e) => e.kind)).toEqual(['failed', 'failed']);
  });

  it('refuses a misspelt search field before sending', async () => {
    const { client, events } = fx.client();
    const error = await failure(client.searchPeople({ positon: 'CEO' } as never));
    expect(error.code).toBe('invalid_search');
    expect(error.message).toMatch(/positon/);
    expect(events).toHaveLength(0);
  });

  it('caches filter options per query: a second identical call makes no request', async () => {
    const { client, events } = fx.client();
    const before = fx.served();
    const first = await client.filterOptions({ identifiers: ['industry'], search: 'a' });
    const second = await client.filterOptions({ identifiers: ['industry'], search: 'a' });
    expect(second).toBe(first);
    expect(first.filters[0]?.identifier).toBe('industry');
    expect(first.filters[0]?.page?.size).toBe(20);
    expect(fx.served() - before).toBe(1);
    await client.filterOptions({ identifiers: ['industry'], search: 'a', offset: 20 });
    expect(fx.served() - before).toBe(2);
    expect(events).toHaveLength(2);
  });

  it('shares one request among concurrent identical filter-option calls and does not keep failures', async () => {
    const { client } = fx.client();
    const before = fx.served();
    const all = await Promise.all(Array.from({ length: 5 }, () => client.filterOptions()));
    expect(new Set(all).size).toBe(1);
    expect(all[0]!.markets.map((m) => m.code)).toContain('AU');
    expect(fx.served() - before).toBe(1);
    const unknown = await failure(client.filterOptions({ identifiers: ['no_such_filter'] }));
    expect(unknown.status).toBe(400);
    expect(unknown.code).toBe('invalid_request');
    expect(unknown.message).toMatch(/industry/);
    await failure(client.filterOptions({ identifiers: ['no_such_filter'] }));
    expect(fx.served() - before).toBe(3);
  });

  it('checks filter-option queries before sending', async () => {
    const { client, events } = fx.client();
    expect((await failure(client.filterOptions({ search: '' }))).message).toMatch(/search must be 1 to 100 characters/);
    expect((await failure(client.filterOptions({ offset: -1 }))).message).toMatch(/offset must be 0 or more/);
    expect((await failure(client.filterOptions({ levelOne: 'C' }))).message).toMatch(/levelOne must look like l1:C/);
    expect(events).toHaveLength(0);
    expect(KEY).toBe('sandbox-key');
  });
});
