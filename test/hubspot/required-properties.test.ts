/**
 * A portal's required properties (HubSpot enforces them on every API create and update from API
 * version 2026-09): the sandbox refuses writes that leave one empty as HubSpot answers them, through the
 * official client over HTTP, and the connector turns the refusal into a reason naming the property.
 */
import { Client } from '@hubspot/api-client';
import { InvalidArgumentError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrmError, type CrmConnector } from '../../src/core/connector.js';
import { createHubspotConnector } from '../../connectors/hubspot/connector.js';
import { asHubspotFailure, toCrmError } from '../../connectors/hubspot/http-errors.js';
import { parseRequired } from '../../connectors/hubspot/sandbox/command.js';
import { startHubspotSandbox, type HubspotSandbox } from '../../connectors/hubspot/sandbox/server.js';

let sandbox: HubspotSandbox;
let hubspot: Client;
let connector: CrmConnector;

beforeAll(async () => {
  sandbox = await startHubspotSandbox({
    rateLimit: 10_000,
    searchLagMs: 0,
    searchesPerSecond: 1_000,
    require: { companies: ['founded_year'], contacts: ['jobtitle'] },
  });
  hubspot = new Client({ accessToken: 'sandbox-token', basePath: sandbox.url, numberOfApiCallRetries: 0 });
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

/** The SDK's ApiException: status and the parsed body. */
async function refusal(call: Promise<unknown>): Promise<{
  code: number;
  body: { category: string; message: string; errors?: { code: string; context: Record<string, string[]> }[] };
}> {
  const error = (await call.then(
    () => undefined,
    (e: unknown) => e,
  )) as { code: number; body: unknown } | undefined;
  if (!error) throw new Error('the call was expected to be refused');
  return { code: error.code, body: (typeof error.body === 'string' ? JSON.parse(error.body) : error.body) as never };
}

const batchCalls = (path: string) => sandbox.stats().byEndpoint[`POST ${path}`] ?? 0;

describe('the HubSpot sandbox with required properties', () => {
  it('refuses an app create that leaves a required property empty, with a 400 VALIDATION_ERROR naming it', async () => {
    const refused = await refusal(
      hubspot.crm.companies.basicApi.create({
        properties: { name: 'Acme', domain: 'acme.example', founded_year: ' ' },
        associations: [],
      }),
    );
    expect(refused.code).toBe(400);
    expect(refused.body.category).toBe('VALIDATION_ERROR');
    expect(refused.body.message).toContain('founded_year');
    expect(refused.body.errors?.[0]).toMatchObject({
      code: 'REQUIRED_PROPERTY',
      context: { propertyName: ['founded_year'] },
    });
    const made = await hubspot.crm.companies.basicApi.create({
      properties: { name: 'Acme', domain: 'acme.example', founded_year: '1999' },
      associations: [],
    });
    expect(made.properties.founded_year).toBe('1999');
  });

  it('refuses an update that would leave the record without it, and takes one that fills it', async () => {
    // Made in the UI before the rule mattered: it has no founding year.
    const old = sandbox.createCompany({ name: 'Old Co', domain: 'old.example' });
    const refused = await refusal(
      hubspot.crm.companies.basicApi.update(old.id, { properties: { industry: 'COMPUTER_SOFTWARE' } }),
    );
    expect(refused.code).toBe(400);
    expect(refused.body.message).toContain('founded_year');
    expect(sandbox.getCompany(old.id)!.industry).toBeUndefined();
    await hubspot.crm.companies.basicApi.update(old.id, {
      properties: { industry: 'COMPUTER_SOFTWARE', founded_year: '1980' },
    });
    expect(sandbox.getCompany(old.id)).toMatchObject({ industry: 'COMPUTER_SOFTWARE', founded_year: '1980' });
    // Clearing it is refused; changing something else now is not.
    expect(
      (await refusal(hubspot.crm.companies.basicApi.update(old.id, { properties: { founded_year: '' } }))).code,
    ).toBe(400);
    await hubspot.crm.companies.basicApi.update(old.id, { properties: { description: 'makes things' } });
    expect(sandbox.getCompany(old.id)!.founded_year).toBe('1980');
  });

  it('refuses a whole batch when one input lacks it, naming the input and the property', async () => {
    const before = sandbox.stats().calls;
    const refused = await refusal(
      hubspot.crm.contacts.batchApi.create({
        inputs: [
          { properties: { email: 'has@example.org', jobtitle: 'CEO' }, associations: [] },
          { properties: { email: 'lacks@example.org' }, associations: [] },
        ],
      }),
    );
    expect(refused.code).toBe(400);
    expect(refused.body.errors).toEqual([
      expect.objectContaining({ code: 'REQUIRED_PROPERTY', context: { propertyName: ['jobtitle'], ids: ['1'] } }),
    ]);
    expect(sandbox.stats().calls).toBe(before + 1);
    const found = await hubspot.crm.contacts.searchApi.doSearch({
      filterGroups: [
        {
          filters: [
            { propertyName: 'email', operator: 'IN' as never, values: ['has@example.org', 'lacks@example.org'] },
          ],
        },
      ],
      properties: ['email'],
      limit: 10,
      after: '0',
      sorts: [],
    });
    expect(found.total).toBe(0);
  });

  it('takes the option from the command line, refusing what it cannot read', () => {
    expect(parseRequired('companies:founded_year, contacts:jobtitle,companies:industry')).toEqual({
      companies: ['founded_year', 'industry'],
      contacts: ['jobtitle'],
    });
    expect(() => parseRequired('deals:amount')).toThrow(InvalidArgumentError);
    expect(() => parseRequired('companies')).toThrow(/--require expects <object>:<property>.*got 'companies'/);
    expect(() => parseRequired('')).toThrow(/--require/);
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
    const calls = batchCalls('/crm/v3/objects/companies/batch/update');
    const [result] = await connector.writeRecords('company', [
      { id: old.id, properties: { industry: 'COMPUTER_SOFTWARE' } },
    ]);
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'validation', retryable: false, fields: ['founded_year'] },
    });
    expect(result!.error!.message).toContain('requires founded_year');
    expect(batchCalls('/crm/v3/objects/companies/batch/update')).toBe(calls + 1);
  });

  it('maps a single create refused the same way to a validation error naming the property', async () => {
    const refused = await hubspot.crm.companies.basicApi.create({ properties: { name: 'Y' }, associations: [] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const error = toCrmError(asHubspotFailure(refused)!, 'company_create', Date.now());
    expect(error).toBeInstanceOf(CrmError);
    expect(error).toMatchObject({ code: 'validation', details: { fields: ['founded_year'], status: 400 } });
    expect(error.message).toMatch(/^HubSpot refused company_create: this portal requires founded_year/);
  });
});
