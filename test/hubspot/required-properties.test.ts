/**
 * A portal's validation rules, required and conditionally required properties (HubSpot enforces them on
 * every API create and update from API version 2026-09, not on the legacy paths): the sandbox refuses
 * writes that break one as HubSpot answers them, through the official client over HTTP, and the
 * connector turns the refusal into a reason naming the property.
 */
import { Client } from '@hubspot/api-client';
import { InvalidArgumentError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrmError, type CrmConnector } from '../../src/core/connector.js';
import { createHubspotConnector } from '../../connectors/hubspot/connector.js';
import { asHubspotFailure, toCrmError } from '../../connectors/hubspot/http-errors.js';
import { parseRequired, parseRequiredWhen } from '../../connectors/hubspot/sandbox/command.js';
import { HUBSPOT_API_PATHS } from '../../connectors/hubspot/api-version.js';
import { datedApi } from '../../connectors/hubspot/dated-api.js';
import { startHubspotSandbox, type HubspotSandbox } from '../../connectors/hubspot/sandbox/server.js';

let sandbox: HubspotSandbox;
let hubspot: Client;
let legacy: Client;
let connector: CrmConnector;

beforeAll(async () => {
  sandbox = await startHubspotSandbox({
    rateLimit: 10_000,
    searchLagMs: 0,
    searchesPerSecond: 1_000,
    require: { companies: ['founded_year'], contacts: ['jobtitle'] },
    requireWhen: { companies: [{ property: 'industry', when: { property: 'lifecyclestage', value: 'customer' } }] },
  });
  hubspot = new Client({ accessToken: 'sandbox-token', basePath: sandbox.url, numberOfApiCallRetries: 0 });
  // An app of its own: the legacy writes below are an integration's, not crm-enrich's.
  legacy = new Client({ accessToken: 'sandbox-importer-token', basePath: sandbox.url, numberOfApiCallRetries: 0 });
  connector = createHubspotConnector({
    connection: `required-${process.pid}`,
    accessToken: 'sandbox-token',
    basePath: sandbox.url,
    rateLimit: { max: 1000, windowMs: 10_000 },
  });
});

afterAll(async () => {
  await connector.close();
  await sandbox.close();
});

type Refusal = {
  category: string;
  message: string;
  errors?: { code: string; message: string; context: Record<string, string[]> }[];
};

const DATED = HUBSPOT_API_PATHS['2026-09'];

/** A call through the official client's generic request, as the connector makes it on the date-based paths. */
async function call(method: 'POST' | 'PATCH', path: string, body: unknown): Promise<{ status: number; body: never }> {
  const res = await hubspot.apiRequest({ method, path, body });
  return { status: res.status, body: (await res.json()) as never };
}

const createCompany = (properties: Record<string, string>) =>
  call('POST', `${DATED.objects}/companies`, { properties, associations: [] });
const updateCompany = (id: string, properties: Record<string, string>) =>
  call('PATCH', `${DATED.objects}/companies/${id}`, { properties });

const batchCalls = (path: string) => sandbox.stats().byEndpoint[`POST ${path}`] ?? 0;

describe('the HubSpot sandbox with required properties', () => {
  it('refuses an app create on 2026-09 that leaves a required property empty, with a 400 naming it', async () => {
    const refused = await createCompany({ name: 'Acme', domain: 'acme.example', founded_year: ' ' });
    expect(refused.status).toBe(400);
    const body = refused.body as Refusal;
    expect(body.category).toBe('VALIDATION_ERROR');
    expect(body.message).toContain('founded_year');
    expect(body.errors?.[0]).toMatchObject({ code: 'REQUIRED_PROPERTY', context: { propertyName: ['founded_year'] } });
    const made = await createCompany({ name: 'Acme', domain: 'acme.example', founded_year: '1999' });
    expect(made.status).toBe(201);
    expect((made.body as { properties: Record<string, string> }).properties.founded_year).toBe('1999');
  });

  it('takes the same create on the legacy v3 path, which HubSpot does not hold to the rules', async () => {
    const made = await legacy.crm.companies.basicApi.create({
      properties: { name: 'Legacy Co', domain: 'legacy-path.example' },
      associations: [],
    });
    expect(sandbox.getCompany(made.id)).toMatchObject({ name: 'Legacy Co' });
    expect(sandbox.getCompany(made.id)!.founded_year).toBeUndefined();
  });

  it('refuses an update that would leave the record without it, and takes one that fills it', async () => {
    // Made in the UI before the rule mattered: it has no founding year.
    const old = sandbox.createCompany({ name: 'Old Co', domain: 'old.example' });
    const refused = await updateCompany(old.id, { industry: 'COMPUTER_SOFTWARE' });
    expect(refused.status).toBe(400);
    expect((refused.body as Refusal).message).toContain('founded_year');
    expect(sandbox.getCompany(old.id)!.industry).toBeUndefined();
    expect((await updateCompany(old.id, { industry: 'COMPUTER_SOFTWARE', founded_year: '1980' })).status).toBe(200);
    expect(sandbox.getCompany(old.id)).toMatchObject({ industry: 'COMPUTER_SOFTWARE', founded_year: '1980' });
    // Clearing it is refused; changing something else now is not.
    expect((await updateCompany(old.id, { founded_year: '' })).status).toBe(400);
    expect((await updateCompany(old.id, { description: 'makes things' })).status).toBe(200);
    expect(sandbox.getCompany(old.id)!.founded_year).toBe('1980');
  });

  it('refuses a whole batch when one input lacks it, naming the input and the property', async () => {
    const before = sandbox.stats().calls;
    const refused = await call('POST', `${DATED.objects}/contacts/batch/create`, {
      inputs: [
        { properties: { email: 'has@example.org', jobtitle: 'CEO' }, associations: [] },
        { properties: { email: 'lacks@example.org' }, associations: [] },
      ],
    });
    expect(refused.status).toBe(400);
    expect((refused.body as Refusal).errors).toEqual([
      expect.objectContaining({ code: 'REQUIRED_PROPERTY', context: { propertyName: ['jobtitle'], ids: ['1'] } }),
    ]);
    expect(sandbox.stats().calls).toBe(before + 1);
    expect(sandbox.store.findContactByEmail('has@example.org')).toBeUndefined();
  });

  it('refuses a write breaking a conditional rule only while its condition holds', async () => {
    // --require-when companies:industry=lifecyclestage:customer
    const customer = { name: 'Cust', founded_year: '2000', lifecyclestage: 'customer' };
    const refused = await createCompany(customer);
    expect(refused.status).toBe(400);
    const body = refused.body as Refusal;
    expect(body.category).toBe('VALIDATION_ERROR');
    expect(body.errors?.[0]).toMatchObject({
      code: 'REQUIRED_PROPERTY',
      message: 'industry is required when lifecyclestage is customer',
      context: { propertyName: ['industry'] },
    });
    const lead = await createCompany({ ...customer, lifecyclestage: 'lead' });
    expect(lead.status).toBe(201);
    const id = (lead.body as { id: string }).id;
    // Moving the lead to customer without an industry breaks the rule; with one, it does not.
    expect((await updateCompany(id, { lifecyclestage: 'customer' })).status).toBe(400);
    expect((await updateCompany(id, { lifecyclestage: 'customer', industry: 'BANKING' })).status).toBe(200);
    expect(sandbox.getCompany(id)).toMatchObject({ lifecyclestage: 'customer', industry: 'BANKING' });
  });

  it('takes the option from the command line, refusing what it cannot read', () => {
    expect(parseRequired('companies:founded_year, contacts:jobtitle,companies:industry')).toEqual({
      companies: ['founded_year', 'industry'],
      contacts: ['jobtitle'],
    });
    expect(() => parseRequired('deals:amount')).toThrow(InvalidArgumentError);
    expect(() => parseRequired('companies')).toThrow(/--require expects <object>:<property>.*got 'companies'/);
    expect(() => parseRequired('')).toThrow(/--require/);
    expect(
      parseRequiredWhen('companies:industry=lifecyclestage:customer, contacts:jobtitle=hs_lead_status:NEW'),
    ).toEqual({
      companies: [{ property: 'industry', when: { property: 'lifecyclestage', value: 'customer' } }],
      contacts: [{ property: 'jobtitle', when: { property: 'hs_lead_status', value: 'NEW' } }],
    });
    expect(() => parseRequiredWhen('companies:industry')).toThrow(/--require-when expects .*got 'companies:industry'/);
    expect(() => parseRequiredWhen('deals:amount=dealstage:closedwon')).toThrow(InvalidArgumentError);
  });
});

describe('the HubSpot connector meeting required properties', () => {
  it('fails a company it creates for an employer with a reason naming the property', async () => {
    const [result] = await connector.createCompanies!([{ domain: 'employer.example', name: 'Employer' }]);
    expect(result).toMatchObject({ ok: false, error: { code: 'validation', retryable: false } });
    expect(result!.error!.message).toContain('requires founded_year');
    const [made] = await connector.createCompanies!([
      { domain: 'employer2.example', name: 'Employer 2', properties: { founded_year: '2001' } },
    ]);
    expect(made).toMatchObject({ ok: true });
  });

  it('fails a discovered contact it creates with a reason naming the property', async () => {
    const results = await connector.createRecords!('contact', [
      { email: 'new.person@example.org', firstname: 'New' },
      { email: 'other@example.org', jobtitle: 'CTO' },
    ]);
    expect(results.map((r) => r.ok)).toEqual([false, false]);
    expect(results[0]!.error!.message).toContain('requires jobtitle');
    const [made] = await connector.createRecords!('contact', [{ email: 'other@example.org', jobtitle: 'CTO' }]);
    expect(made).toMatchObject({ ok: true });
  });

  it('fails an update of a record lacking it once, naming the field, without sending the batch again', async () => {
    const old = sandbox.createCompany({ name: 'Legacy', domain: 'legacy.example' });
    const calls = batchCalls(`${DATED.objects}/companies/batch/update`);
    const [result] = await connector.writeRecords('company', [
      { id: old.id, properties: { industry: 'COMPUTER_SOFTWARE' } },
    ]);
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'validation', retryable: false, fields: ['founded_year'] },
    });
    expect(result!.error!.message).toContain('requires founded_year');
    expect(batchCalls(`${DATED.objects}/companies/batch/update`)).toBe(calls + 1);
  });

  it('maps a single create refused the same way to a validation error naming the property', async () => {
    // The date-based client throws the official client's ApiException, as the typed methods do.
    const refused = await datedApi('2026-09', async () => hubspot)
      .create('companies', { properties: { name: 'Y' }, associations: [] })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    const error = toCrmError(asHubspotFailure(refused)!, 'company_create', Date.now());
    expect(error).toBeInstanceOf(CrmError);
    expect(error).toMatchObject({ code: 'validation', details: { fields: ['founded_year'], status: 400 } });
    expect(error.message).toMatch(/^HubSpot refused company_create: this portal requires founded_year/);
  });
});
