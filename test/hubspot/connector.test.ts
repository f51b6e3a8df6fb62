import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrmError, type CrmConnector } from '../../src/core/connector.js';
import {
  createHubspotConnector,
  fullNameFilterGroups,
  type HubspotConnectorOptions,
} from '../../connectors/hubspot/connector.js';
import { signV3 } from '../../connectors/hubspot/signature.js';
import { nextDailyReset } from '../../connectors/hubspot/http-errors.js';
import { startHubspotSandbox, type HubspotSandbox } from '../../connectors/hubspot/sandbox/server.js';
import {
  HUBSPOT_API_PATHS,
  HUBSPOT_API_VERSIONS,
  type HubspotApiVersion,
} from '../../connectors/hubspot/api-version.js';

let sandbox: HubspotSandbox;
const connectors: CrmConnector[] = [];
let n = 0;

function connectAt(extra: Partial<HubspotConnectorOptions> = {}): CrmConnector {
  const c = createHubspotConnector({
    connection: `test-${process.pid}-${n++}`,
    accessToken: 'sandbox-token',
    basePath: sandbox.url,
    rateLimit: { max: 1000, windowMs: 10_000 },
    ...extra,
  });
  connectors.push(c);
  return c;
}

const batchCalls = (path: string) => sandbox.stats().byEndpoint[`POST ${path}`] ?? 0;

beforeAll(async () => {
  // Search sees each change at once here; the indexing lag has tests of its own (sandbox.test.ts).
  sandbox = await startHubspotSandbox(sandboxOptions);
});

afterAll(async () => {
  await Promise.all(connectors.map((c) => c.close()));
  await sandbox.close();
});

const sandboxOptions = { rateLimit: 10_000, searchLagMs: 0, searchesPerSecond: 1_000 };

/**
 * The connector of one API version and the paths its calls reach, against a portal of its own for the
 * describe block it is called in (each version starts from an empty portal).
 */
function onVersion(version: HubspotApiVersion) {
  let shared: HubspotSandbox;
  beforeAll(async () => {
    shared = sandbox;
    sandbox = await startHubspotSandbox(sandboxOptions);
  });
  afterAll(async () => {
    await sandbox.close();
    sandbox = shared;
  });
  return {
    P: HUBSPOT_API_PATHS[version],
    connect: (extra: Partial<HubspotConnectorOptions> = {}) => connectAt({ apiVersion: version, ...extra }),
  };
}

describe.each(HUBSPOT_API_VERSIONS)('HubSpot connector against the sandbox, API version %s', (version) => {
  const { P, connect } = onVersion(version);

  it('writes and reads 250 records in three batch calls each, leaving unknown ids out', async () => {
    const hubspot = connect();
    const ids = Array.from({ length: 250 }, (_, i) => sandbox.createContact({ email: `p${i}@batch.example` }).id);
    const beforeUpdate = batchCalls(`${P.objects}/contacts/batch/update`);
    const results = await hubspot.writeRecords(
      'contact',
      ids.map((id, i) => ({ id, properties: { jobtitle: `Role ${i}` } })),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect(results.map((r) => r.id)).toEqual(ids);
    expect(batchCalls(`${P.objects}/contacts/batch/update`) - beforeUpdate).toBe(3);
    expect(hubspot.stats().byOperation.batch_update).toBe(3);
    expect(sandbox.getContact(ids[249]!)?.jobtitle).toBe('Role 249');

    const beforeRead = batchCalls(`${P.objects}/contacts/batch/read`);
    const records = await hubspot.readRecords('contact', [...ids, '99999999'], ['email', 'jobtitle']);
    expect(batchCalls(`${P.objects}/contacts/batch/read`) - beforeRead).toBe(3);
    expect(records).toHaveLength(250);
    expect(records.find((r) => r.id === ids[7])?.properties).toMatchObject({
      email: 'p7@batch.example',
      jobtitle: 'Role 7',
    });
  });

  it('handles a 207 record by record: bad enumeration value and unknown id fail, the rest is written', async () => {
    const hubspot = connect();
    const a = sandbox.createCompany({ name: 'A', domain: 'a.example' }).id;
    const b = sandbox.createCompany({ name: 'B', domain: 'b.example' }).id;
    const results = await hubspot.writeRecords('company', [
      { id: a, properties: { industry: 'COMPUTER_SOFTWARE', numberofemployees: '120' } },
      { id: b, properties: { industry: 'SOFTWARE_NOT_AN_OPTION' } },
      { id: '424242', properties: { industry: 'BANKING' } },
    ]);
    expect(results[0]).toEqual({ id: a, ok: true });
    expect(results[1]).toMatchObject({
      id: b,
      ok: false,
      error: { code: 'validation', retryable: false, fields: ['industry'] },
    });
    expect(results[2]).toMatchObject({ id: '424242', ok: false, error: { code: 'not_found', retryable: false } });
    expect(sandbox.getCompany(a)).toMatchObject({ industry: 'COMPUTER_SOFTWARE', numberofemployees: '120' });
    expect(sandbox.getCompany(b)?.industry).toBeUndefined();
  });

  it('sends a batch again without the records carrying a property HubSpot refuses', async () => {
    const hubspot = connect();
    const a = sandbox.createContact({ email: 'ok@refuse.example' }).id;
    const b = sandbox.createContact({ email: 'bad@refuse.example' }).id;
    const results = await hubspot.writeRecords('contact', [
      { id: a, properties: { jobtitle: 'CTO' } },
      { id: b, properties: { no_such_property: 'x' } },
      { id: a, properties: { city: 'Berlin' } },
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    expect(results[1]?.error).toMatchObject({ code: 'validation', fields: ['no_such_property'] });
    expect(sandbox.getContact(a)).toMatchObject({ jobtitle: 'CTO', city: 'Berlin' });
  });

  it('creates missing custom properties in its own group only when asked, and reports the rest', async () => {
    const hubspot = connect();
    const wanted = [
      { name: 'jobtitle', label: 'Job Title', type: 'string' as const },
      {
        name: 'crm_enrich_seniority',
        label: 'Seniority (enriched)',
        type: 'enumeration' as const,
        options: ['junior', 'senior', 'executive'],
      },
      { name: 'crm_enrich_headcount', label: 'Headcount', type: 'number' as const },
      { name: 'crm_enrich_tags', label: 'Tags', type: 'enumeration' as const },
      { name: 'Bad-Name', label: 'Bad', type: 'string' as const },
    ];
    const before = await hubspot.readSchema('contact');
    expect(before.find((p) => p.name === 'crm_enrich_seniority')).toBeUndefined();
    const first = await hubspot.ensureProperties('contact', wanted);
    expect(first.created).toEqual(['crm_enrich_seniority', 'crm_enrich_headcount']);
    expect(first.existing).toEqual(['jobtitle']);
    expect(first.missing.map((m) => m.spec.name)).toEqual(['crm_enrich_tags', 'Bad-Name']);
    const schema = await hubspot.readSchema('contact');
    expect(schema.find((p) => p.name === 'crm_enrich_seniority')).toMatchObject({
      type: 'enumeration',
      custom: true,
      writable: true,
      options: ['junior', 'senior', 'executive'],
    });
    expect(sandbox.store.definitions.contacts.get('crm_enrich_headcount')).toMatchObject({
      type: 'number',
      fieldType: 'number',
      groupName: 'crm_enrich',
    });
    const second = await hubspot.ensureProperties('contact', wanted.slice(0, 3));
    expect(second.created).toEqual([]);
    expect(second.existing).toEqual(['jobtitle', 'crm_enrich_seniority', 'crm_enrich_headcount']);
  });

  it('links 30 colleagues with their employer in one batch call, primary where they had none', async () => {
    const hubspot = connect();
    const employer = sandbox.createCompany({ name: 'Acme', domain: 'acme.example' }).id;
    const other = sandbox.createCompany({ name: 'Chosen by a person', domain: 'other.example' }).id;
    const ids = Array.from({ length: 30 }, (_, i) => sandbox.createContact({ email: `c${i}@acme.example` }).id);
    // A person already made another company the primary one of the first contact.
    sandbox.store.associations.add(ids[0]!, other, [1]);
    const before = batchCalls(`${P.associations}/contacts/companies/batch/create`);
    const results = await hubspot.linkToCompanies!(
      'contact',
      ids.map((recordId, i) => ({ recordId, companyId: employer, ...(i === 0 ? { currentPrimary: other } : {}) })),
    );
    expect(batchCalls(`${P.associations}/contacts/companies/batch/create`) - before).toBe(1);
    expect(results.map((r) => r.outcome)).toEqual(['linked', ...Array(29).fill('linked_primary')]);
    expect(sandbox.getContact(ids[5]!)?.associatedcompanyid).toBe(employer);
    // The person's choice stays: still primary, and the employer is linked beside it.
    expect(sandbox.getContact(ids[0]!)?.associatedcompanyid).toBe(other);
    expect(
      sandbox.store.associations
        .associated('contacts', ids[0]!)
        .map((a) => a.id)
        .sort(),
    ).toEqual([employer, other].sort());

    const again = await hubspot.linkToCompanies!('contact', [
      { recordId: ids[5]!, companyId: employer, currentPrimary: employer },
    ]);
    expect(again[0]!.outcome).toBe('already_linked');
    expect(batchCalls(`${P.associations}/contacts/companies/batch/create`) - before).toBe(1);
  });

  it("finds a new employer's domain, partner id and name in one search, each company told by what it has", async () => {
    const hubspot = connect();
    const tag = `${process.pid}-${Date.now()}`;
    const domain = `alpha-${tag}.example`;
    const oldest = sandbox.createCompany({ name: 'Alpha', domain }).id;
    const newer = sandbox.createCompany({ name: 'Alpha Again', domain }).id;
    const byId = sandbox.createCompany({ name: 'Beta Holdings', description: `co_${tag}` }).id;
    const byName = sandbox.createCompany({ name: `Gamma ${tag} Pty Ltd`, domain: `gamma-${tag}.example` }).id;
    sandbox.createCompany({ name: 'Unwanted', domain: `unwanted-${tag}.example` });
    const before = batchCalls(`${P.objects}/companies/search`);
    const found = await hubspot.findCompanies!({
      domains: [`https://www.${domain.toUpperCase()}/`, `nobody-${tag}.example`],
      partnerIdProperty: 'description',
      partnerIds: [`CO_${tag}`],
      names: [`gamma ${tag} pty ltd`],
    });
    expect(batchCalls(`${P.objects}/companies/search`) - before).toBe(1);
    expect(Object.fromEntries(found.byDomain)).toEqual({ [domain]: { id: oldest, others: [newer] } });
    expect(found.byKeys.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [
        { id: byId, partnerId: `co_${tag}`, name: 'Beta Holdings' },
        { id: byName, partnerId: null, name: `Gamma ${tag} Pty Ltd` },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
  });

  it('reports a link to a company that does not exist as failed, and links the rest', async () => {
    const hubspot = connect();
    const employer = sandbox.createCompany({ name: 'Real', domain: 'real.example' }).id;
    const a = sandbox.createContact({ email: 'a@real.example' }).id;
    const b = sandbox.createContact({ email: 'b@real.example' }).id;
    const results = await hubspot.linkToCompanies!('contact', [
      { recordId: a, companyId: employer },
      { recordId: b, companyId: '99999999' },
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['linked_primary', 'failed']);
    expect(results[1]!.error).toMatch(/OBJECT_NOT_FOUND/);
  });

  it('pages through records changed since a time with a cursor, and through all records', async () => {
    const hubspot = connect();
    const since = new Date(Date.now() + 1);
    await new Promise((r) => setTimeout(r, 5));
    const fresh = Array.from({ length: 5 }, (_, i) => sandbox.createCompany({ name: `Fresh ${i}` }).id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await hubspot.listRecords('company', {
        properties: ['name'],
        changedSince: since,
        cursor,
        limit: 2,
      });
      seen.push(...page.records.map((r) => r.id));
      cursor = page.next;
    } while (cursor);
    expect(seen).toEqual(fresh);

    const all: string[] = [];
    cursor = undefined;
    do {
      const page = await hubspot.listRecords('company', { properties: ['name'], cursor, limit: 4 });
      all.push(...page.records.map((r) => r.id));
      cursor = page.next;
    } while (cursor);
    expect(all).toEqual([...sandbox.store.objects.companies.keys()]);
  });

  it('says to check HUBSPOT_ACCESS_TOKEN when the token is refused', async () => {
    const hubspot = connect({ accessToken: 'wrong-token' });
    const error = await hubspot.readSchema('contact').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrmError);
    expect(error).toMatchObject({ code: 'auth', kind: 'config' });
    expect((error as Error).message).toMatch(/HUBSPOT_ACCESS_TOKEN/);
  });

  it('reports HubSpot unreachable as a transient error after backing off', async () => {
    const hubspot = connect({ basePath: 'http://127.0.0.1:1' });
    const error = await hubspot.readSchema('contact').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'unavailable', kind: 'transient', retryable: true });
    expect(hubspot.stats().calls).toBe(3);
  });

  it('refuses an object type it does not serve', async () => {
    await expect(connect().readRecords('deal', ['1'], [])).rejects.toMatchObject({ code: 'validation' });
  });
});

describe.each(HUBSPOT_API_VERSIONS)('HubSpot rate limits, API version %s', (version) => {
  const { P, connect } = onVersion(version);
  let limited: HubspotSandbox;
  beforeAll(async () => {
    limited = await startHubspotSandbox({ rateLimit: 5, rateWindowMs: 400 });
  });
  afterAll(async () => {
    await limited.close();
  });

  it('keeps under the portal budget with its own limiter: no 429 at all', async () => {
    // HubSpot's window is ten seconds, where timer jitter is noise; squeezed into 400 ms for a quick test,
    // a loaded machine's jitter of tens of milliseconds is not, so the limiter's window is 50 ms longer.
    const hubspot = connect({ basePath: limited.url, rateLimit: { max: 5, windowMs: 450 } });
    limited.resetStats();
    await Promise.all(Array.from({ length: 15 }, () => hubspot.readSchema('company')));
    expect(limited.stats().calls).toBe(15);
    expect(limited.stats().rateLimited.TEN_SECONDLY_ROLLING).toBe(0);
  });

  it("keeps its searches within HubSpot's 5 per second: no SECONDLY 429", async () => {
    const searching = await startHubspotSandbox({ rateLimit: 10_000, searchLagMs: 0 });
    try {
      const hubspot = connect({ basePath: searching.url });
      const found = await Promise.all(
        Array.from({ length: 12 }, (_, i) => hubspot.findCompaniesByDomain!([`d${i}.example`])),
      );
      expect(found.every((m) => m.size === 0)).toBe(true);
      expect(searching.stats().byEndpoint[`POST ${P.objects}/companies/search`]).toBe(12);
      // Twelve at once without the search limiter get seven 429s. The sandbox runs in this process, so
      // a stall of the whole process on a busy machine can bunch four well-spaced requests with the
      // next one on arrival: one such refusal is tolerated, and waited out in a second.
      expect(searching.stats().rateLimited.SECONDLY).toBeLessThanOrEqual(1);
    } finally {
      await searching.close();
    }
  }, 90_000);

  it('waits out ten-secondly 429s and finishes the work', async () => {
    const hubspot = connect({ basePath: limited.url, rateLimit: { max: 1000, windowMs: 400 } });
    limited.resetStats();
    const results = await Promise.all(Array.from({ length: 12 }, () => hubspot.readSchema('company')));
    expect(results.every((r) => r.length > 0)).toBe(true);
    expect(limited.stats().rateLimited.TEN_SECONDLY_ROLLING).toBeGreaterThan(0);
    expect(hubspot.stats().calls).toBe(limited.stats().calls);
  });

  it('stops at the DAILY 429 with the reset time and makes no further calls until then', async () => {
    const daily = await startHubspotSandbox({});
    try {
      const hubspot = connect({ basePath: daily.url });
      daily.exhaustDailyLimit();
      const error = (await hubspot.readSchema('contact').catch((e: unknown) => e)) as CrmError;
      expect(error).toMatchObject({ code: 'daily_limit', kind: 'config' });
      expect(Date.parse(error.resetAt ?? '')).toBeGreaterThan(Date.now());
      expect(error.message).toMatch(/bulk work stops until/);
      const calls = daily.stats().calls;
      await expect(hubspot.writeRecords('contact', [{ id: '1', properties: { city: 'x' } }])).rejects.toMatchObject({
        code: 'daily_limit',
      });
      expect(daily.stats().calls).toBe(calls);
      expect(daily.stats().rateLimited.DAILY).toBe(1);
    } finally {
      await daily.close();
    }
  });

  it("puts the DAILY reset at midnight in the portal's time zone, read from its account details", async () => {
    const sydney = await startHubspotSandbox({ timeZone: 'Australia/Sydney' });
    try {
      const hubspot = connect({ basePath: sydney.url });
      await hubspot.prepare?.();
      sydney.exhaustDailyLimit();
      const error = (await hubspot.readSchema('contact').catch((e: unknown) => e)) as CrmError;
      expect(error).toMatchObject({ code: 'daily_limit' });
      // Sydney's midnight is 13:00 or 14:00 UTC (daylight saving or not), never 00:00 UTC.
      expect(error.resetAt).toBe(nextDailyReset(Date.now(), 'Australia/Sydney'));
      expect(new Date(error.resetAt!).getUTCHours()).toBeOneOf([13, 14]);
    } finally {
      await sydney.close();
    }
  });

  it('reads the portal id from the account details at start-up, then refuses webhooks of other portals', async () => {
    const hubspot = connect({ clientSecret: 'portal-secret' });
    const url = 'https://enrich.example.com/webhooks/hubspot';
    const send = (portalId: number) => {
      const body = JSON.stringify([
        {
          eventId: 1,
          subscriptionId: 1,
          portalId,
          occurredAt: Date.now(),
          subscriptionType: 'contact.creation',
          objectId: 5,
          changeSource: 'CRM_UI',
        },
      ]);
      const timestamp = String(Date.now());
      return hubspot.webhook.parse({
        method: 'POST',
        url,
        rawBody: Buffer.from(body),
        headers: {
          'x-hubspot-signature-v3': signV3('portal-secret', 'POST', url, body, timestamp),
          'x-hubspot-request-timestamp': timestamp,
        },
      });
    };
    // Before start-up has read the account, only the signature is checked.
    expect(send(999).ok).toBe(true);
    await hubspot.prepare!();
    const refused = send(999);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.code).toBe('wrong_portal');
    expect(send(sandbox.portalId).ok).toBe(true);
    expect(sandbox.stats().byEndpoint[`GET ${P.accountInfo}/details`]).toBeGreaterThanOrEqual(1);
  });
});

describe.each(HUBSPOT_API_VERSIONS)('HubSpot sandbox account details, API version %s', (version) => {
  const { accountInfo } = HUBSPOT_API_PATHS[version];
  it('answers GET {accountInfo}/details with the portal id and a non-UTC time zone, as HubSpot does', async () => {
    const res = await fetch(`${sandbox.url}${accountInfo}/details`, {
      headers: { authorization: 'Bearer sandbox-token' },
    });
    expect(res.status).toBe(200);
    const details = (await res.json()) as Record<string, unknown>;
    expect(details).toMatchObject({
      portalId: sandbox.portalId,
      timeZone: 'Australia/Sydney',
      uiDomain: 'app.hubspot.com',
    });
    expect(String(details.utcOffset)).toMatch(/^\+1[01]:00$/);
    expect(details.utcOffsetMilliseconds).toBe(Number(String(details.utcOffset).slice(1, 3)) * 3_600_000);
    expect((await fetch(`${sandbox.url}${accountInfo}/details`)).status).toBe(401);
  });
});

describe.each(HUBSPOT_API_VERSIONS)('HubSpot connector: finding a record for a person, API version %s', (version) => {
  const { P, connect } = onVersion(version);
  it("searches by e-mail, name or full name; links to the sandbox's record page once the account is read", async () => {
    const hubspot = connect();
    const wanted = sandbox.createContact({
      email: 'ada.quill@finder.example',
      firstname: 'Ada',
      lastname: 'Quillfeather',
    }).id;
    sandbox.createContact({ email: 'someone.else@finder.example', firstname: 'Bo', lastname: 'Other' });
    const searches = sandbox.stats().byEndpoint[`POST ${P.objects}/contacts/search`] ?? 0;
    const byEmail = await hubspot.searchRecords!(
      'contact',
      'ada.quill@finder.example',
      ['firstname', 'lastname', 'email'],
      20,
    );
    expect(byEmail.map((r) => r.id)).toEqual([wanted]);
    expect(byEmail[0]!.properties).toMatchObject({ firstname: 'Ada', lastname: 'Quillfeather' });
    const byName = await hubspot.searchRecords!('contact', 'quillfeather', ['email'], 20);
    expect(byName.map((r) => r.id)).toEqual([wanted]);
    expect((sandbox.stats().byEndpoint[`POST ${P.objects}/contacts/search`] ?? 0) - searches).toBe(2);
    // A full name is no one property's value: found as first and last name, whatever the case.
    const byFullName = await hubspot.searchRecords!('contact', '  ada   QUILLFEATHER ', ['email'], 20);
    expect(byFullName.map((r) => r.id)).toEqual([wanted]);
    expect(await hubspot.searchRecords!('contact', 'Ada Other', ['email'], 20)).toEqual([]);

    // The portal id comes from the account details: no link until they are read.
    expect(await hubspot.recordUrl!('contact', wanted)).toBeUndefined();
    await hubspot.prepare!();
    // A connection to a sandbox links to the sandbox's own record page, at the app's path: never to the real app.
    const url = await hubspot.recordUrl!('contact', wanted);
    expect(url).toBe(`${sandbox.url}/contacts/${sandbox.portalId}/record/0-1/${wanted}`);
    expect(await hubspot.recordUrl!('company', '77')).toBe(`${sandbox.url}/contacts/${sandbox.portalId}/record/0-2/77`);
    expect(await hubspot.recordUrl!('contact', '../admin')).toBeUndefined();
    const page = await fetch(url!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain(`Contact ${wanted}: Ada Quillfeather`);
    expect(html).toContain('ada.quill@finder.example');
    expect((await fetch(`${sandbox.url}/contacts/${sandbox.portalId}/record/0-2/${wanted}`)).status).toBe(404);
    expect((await fetch(`${sandbox.url}/contacts/1/record/0-1/${wanted}`)).status).toBe(404);
  });

  it("splits a full name into first and last name at each place, within HubSpot's five filter groups", () => {
    expect(fullNameFilterGroups('Jia Le Ong')).toEqual([
      {
        filters: [
          { propertyName: 'firstname', operator: 'EQ', value: 'Jia' },
          { propertyName: 'lastname', operator: 'EQ', value: 'Le Ong' },
        ],
      },
      {
        filters: [
          { propertyName: 'firstname', operator: 'EQ', value: 'Jia Le' },
          { propertyName: 'lastname', operator: 'EQ', value: 'Ong' },
        ],
      },
    ]);
    expect(fullNameFilterGroups('ada@x.example other')).toEqual([]);
    expect(fullNameFilterGroups('Ada')).toEqual([]);
    expect(fullNameFilterGroups('a b c d e f g h')).toHaveLength(5);
  });
});
