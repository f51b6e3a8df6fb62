import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSalesforceConnector } from '../../connectors/salesforce/connector.js';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../connectors/salesforce/sandbox/server.js';
import { CrmError, type CrmConnector } from '../../src/core/connector.js';

let sandbox: SalesforceSandbox;
let connector: CrmConnector;
const leads: string[] = [];

beforeAll(async () => {
  sandbox = await startSalesforceSandbox({
    queryPageSize: 50,
    customFields: {
      Lead: [
        {
          name: 'Seniority__c',
          type: 'picklist',
          label: 'Seniority',
          picklistValues: ['Junior', 'Senior', 'Executive'].map((v) => ({
            active: true,
            label: v,
            value: v,
            defaultValue: false,
          })),
        },
        { name: 'Enriched_At__c', type: 'datetime', label: 'Enriched At' },
      ],
    },
  });
  connector = createSalesforceConnector({
    auth: { kind: 'token', instanceUrl: sandbox.url, accessToken: sandbox.accessToken },
    orgId: sandbox.orgId,
    apiReserve: 0,
  });
  for (let i = 0; i < 260; i++) {
    leads.push(
      sandbox.createRecord('Lead', {
        LastName: `Lead ${i}`,
        Company: `Company ${i}`,
        Email: `lead${i}@example.com`,
        NumberOfEmployees: i,
      }),
    );
  }
});

afterAll(async () => {
  await connector.close();
  await sandbox.close();
});

const calls = (operation: string) => sandbox.stats().byOperation[operation] ?? 0;

describe('Salesforce connector: reads', () => {
  it('reads records by id as strings, leaving out ids that do not exist', async () => {
    const missing = '00Q8d0000009ZZZ';
    const records = await connector.readRecords(
      'Lead',
      [leads[0] ?? '', leads[1] ?? '', missing, 'not-an-id'],
      ['Email', 'NumberOfEmployees', 'Title'],
    );
    expect(records.map((r) => r.id)).toEqual([leads[0], leads[1]]);
    expect(records[1]?.properties).toEqual({ Email: 'lead1@example.com', NumberOfEmployees: '1', Title: null });
    expect(records[0]?.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('accepts 15-character ids and answers with the 18-character form', async () => {
    const [record] = await connector.readRecords('Lead', [(leads[2] ?? '').slice(0, 15)], ['Email']);
    expect(record?.id).toBe(leads[2]);
  });

  it('follows query locators when a read returns more than one batch', async () => {
    const before = { query: calls('query'), more: calls('queryMore') };
    const records = await connector.readRecords('Lead', leads.slice(0, 120), ['Email']);
    expect(records).toHaveLength(120);
    expect(calls('query') - before.query).toBe(1);
    expect(calls('queryMore') - before.more).toBe(2);
  });

  it('splits a large read into queries that each fit the URI limit', async () => {
    const fake = Array.from({ length: 1500 }, (_, i) => {
      const id15 = `00Q8d0001${i.toString().padStart(6, '0')}`;
      return id15;
    });
    const before = calls('query');
    const records = await connector.readRecords('Lead', [...leads, ...fake], ['Email', 'Company', 'NumberOfEmployees']);
    expect(records).toHaveLength(leads.length);
    expect(new Set(records.map((r) => r.id))).toEqual(new Set(leads));
    expect(calls('query') - before).toBeGreaterThan(1);
  });

  it('refuses field names that are not Salesforce API names before sending anything', async () => {
    const before = sandbox.stats().apiCalls;
    await expect(
      connector.readRecords('Lead', [leads[0] ?? ''], ["Email FROM Lead WHERE Id != ''"]),
    ).rejects.toMatchObject({ code: 'validation' });
    await expect(connector.readRecords('Opportunity', [leads[0] ?? ''], ['Email'])).rejects.toThrow(
      /Unsupported Salesforce object/,
    );
    expect(sandbox.stats().apiCalls).toBe(before);
  });

  it('reports an unknown field as a validation error naming it', async () => {
    const err = await connector.readRecords('Lead', [leads[0] ?? ''], ['Nope__c']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CrmError);
    expect(err).toMatchObject({ code: 'validation', kind: 'permanent' });
    expect((err as Error).message).toContain('Nope__c');
  });
});

describe('Salesforce connector: writes', () => {
  it('writes 250 updates in two collections calls, every record saved', async () => {
    const before = calls('collections.update');
    const updates = leads
      .slice(0, 250)
      .map((id, i) => ({ id, properties: { Title: `Title ${i}`, NumberOfEmployees: String(1000 + i) } }));
    const results = await connector.writeRecords('Lead', updates);
    expect(calls('collections.update') - before).toBe(2);
    expect(results).toHaveLength(250);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(results.map((r) => r.id)).toEqual(leads.slice(0, 250));
    expect(sandbox.getRecord('Lead', leads[249] ?? '')).toMatchObject({ Title: 'Title 249', NumberOfEmployees: 1249 });
    expect(connector.stats().byOperation['collections.update']).toBeGreaterThanOrEqual(2);
  });

  it('answers per record, in order, and saves the records that are valid', async () => {
    const [a, b, c, d] = leads.slice(200, 204) as [string, string, string, string];
    const results = await connector.writeRecords('Lead', [
      { id: a, properties: { Title: 'Head of Data' } },
      { id: b, properties: { Company: 'x'.repeat(256) } },
      { id: c, properties: { Seniority__c: 'Intern' } },
      { id: '00Q8d0000009ZZZ', properties: { Title: 'ghost' } },
      { id: 'nope', properties: { Title: 'bad id' } },
      { id: d, properties: { CreatedDate: '2020-01-01T00:00:00Z' } },
    ]);
    expect(results.map((r) => [r.ok, r.error?.code])).toEqual([
      [true, undefined],
      [false, 'STRING_TOO_LONG'],
      [false, 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST'],
      [false, 'ENTITY_IS_DELETED'],
      [false, 'MALFORMED_ID'],
      [false, 'INVALID_FIELD_FOR_INSERT_UPDATE'],
    ]);
    expect(results[1]?.error).toMatchObject({ retryable: false, fields: ['Company'] });
    expect(results.map((r) => r.id)).toEqual([a, b, c, '00Q8d0000009ZZZ', 'nope', d]);
    expect(sandbox.getRecord('Lead', a)?.Title).toBe('Head of Data');
    expect(sandbox.getRecord('Lead', b)?.Company).toBe('Company 201');
  });

  it('fails every record of a chunk that names an unknown field, without retrying', async () => {
    const results = await connector.writeRecords('Lead', [
      { id: leads[10] ?? '', properties: { Title: 'kept?' } },
      { id: leads[11] ?? '', properties: { Unknown__c: 'x' } },
    ]);
    expect(results.map((r) => [r.ok, r.error?.code, r.error?.retryable])).toEqual([
      [false, 'INVALID_FIELD', false],
      [false, 'INVALID_FIELD', false],
    ]);
    expect(sandbox.getRecord('Lead', leads[10] ?? '')?.Title).not.toBe('kept?');
  });

  it('sends numbers as numbers and clears a value with an empty string', async () => {
    const id = leads[20] ?? '';
    const [result] = await connector.writeRecords('Lead', [
      { id, properties: { AnnualRevenue: '2500000', Email: '', Seniority__c: 'Senior' } },
    ]);
    expect(result?.ok).toBe(true);
    expect(sandbox.getRecord('Lead', id)).toMatchObject({
      AnnualRevenue: 2500000,
      Email: null,
      Seniority__c: 'Senior',
    });
  });
});

describe('Salesforce connector: listing', () => {
  it('pages through records changed since a time with a cursor, each record once', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await connector.listRecords('Lead', {
        properties: ['Email'],
        changedSince: new Date(0),
        limit: 70,
        cursor,
      });
      seen.push(...page.records.map((r) => r.id));
      cursor = page.next;
      pages += 1;
    } while (cursor);
    expect(pages).toBeGreaterThanOrEqual(4);
    expect(seen).toHaveLength(leads.length);
    expect(new Set(seen)).toEqual(new Set(leads));
  });

  it('leaves out records not changed since the time given', async () => {
    const since = new Date(Date.now() + 5);
    await new Promise((r) => setTimeout(r, 10));
    const [id] = leads.slice(100, 101) as [string];
    sandbox.updateRecord('Lead', id, { Title: 'changed late' });
    const page = await connector.listRecords('Lead', { properties: ['Title'], changedSince: since });
    expect(page.records.map((r) => [r.id, r.properties.Title])).toEqual([[id, 'changed late']]);
    expect(page.next).toBeUndefined();
  });

  it('refuses a cursor it did not issue', async () => {
    await expect(connector.listRecords('Lead', { properties: ['Email'], cursor: 'garbage' })).rejects.toThrow(/cursor/);
  });
});

describe('Salesforce connector: schema', () => {
  it('reads describe once and caches it', async () => {
    const before = calls('describe');
    const first = await connector.readSchema('Contact');
    await connector.readSchema('Contact');
    expect(calls('describe') - before).toBe(1);
    expect(first.find((p) => p.name === 'Department')).toMatchObject({ type: 'string', writable: true, maxLength: 80 });
  });
});

describe('Salesforce connector: finding a record for a person', () => {
  it('finds Contacts by exact e-mail or part of the name, Accounts by name or website, in one query each', async () => {
    const ada = sandbox.createRecord('Contact', {
      FirstName: 'Ada',
      LastName: "O'Quillfeather",
      Email: 'ada@finder.example',
    });
    sandbox.createRecord('Contact', { FirstName: 'Bo', LastName: 'Other', Email: 'bo@finder.example' });
    const account = sandbox.createRecord('Account', {
      Name: 'Finder Works',
      Website: 'https://www.finder-works.example',
    });
    const before = calls('query');
    expect(
      (await connector.searchRecords!('Contact', 'ada@finder.example', ['Name', 'Email'], 20)).map((r) => r.id),
    ).toEqual([ada]);
    const byName = await connector.searchRecords!('Contact', "o'quill", ['Name', 'Email'], 20);
    expect(byName.map((r) => r.id)).toEqual([ada]);
    expect(byName[0]!.properties).toMatchObject({ Name: "Ada O'Quillfeather", Email: 'ada@finder.example' });
    // A LIKE wildcard in the text is matched as itself, not as "anything".
    expect(await connector.searchRecords!('Contact', '%', ['Name'], 20)).toEqual([]);
    expect((await connector.searchRecords!('Account', 'finder-works.example', ['Name'], 20)).map((r) => r.id)).toEqual([
      account,
    ]);
    expect(calls('query') - before).toBe(4);
    // A full name, with any spacing: found as first and last name in the same one query.
    const byFullName = await connector.searchRecords!('Contact', " Ada  O'Quillfeather ", ['Name'], 20);
    expect(byFullName.map((r) => r.id)).toEqual([ada]);
    expect(calls('query') - before).toBe(5);
  });

  it('names a Lead by first and last name once an enrichment filled the first name it lacked', async () => {
    const id = sandbox.createRecord('Lead', { LastName: 'Wilson', Company: 'Unknown', Email: 'isla@name.example' });
    expect((await connector.searchRecords!('Lead', 'isla@name.example', ['Name'], 20))[0]?.properties.Name).toBe(
      'Wilson',
    );
    const [written] = await connector.writeRecords('Lead', [{ id, properties: { FirstName: 'Isla' } }]);
    expect(written?.ok).toBe(true);
    // Salesforce makes the compound Name again from its parts; the admin record search shows it.
    const [found] = await connector.searchRecords!('Lead', 'isla@name.example', ['Name', 'Email'], 20);
    expect(found).toMatchObject({ id, properties: { Name: 'Isla Wilson', Email: 'isla@name.example' } });
    expect(sandbox.getRecord('Lead', id)).toMatchObject({ Name: 'Isla Wilson' });
  });

  it('links to the Lightning record page of the org, with the 18-character id', async () => {
    const id = leads[0]!;
    const url = await connector.recordUrl!('Lead', id.slice(0, 15));
    expect(url).toBe(`${sandbox.url}/lightning/r/Lead/${id}/view`);
    expect(await connector.recordUrl!('Lead', 'not-an-id')).toBeUndefined();
    // The sandbox serves a stand-in for the record page, so the link the admin page gives is no 404.
    const page = await fetch(url!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain(`Lead ${id}`);
    expect((await fetch(`${sandbox.url}/lightning/r/Account/${id}/view`)).status).toBe(404);
    expect((await fetch(`${sandbox.url}/lightning/r/Opportunity/${id}/view`)).status).toBe(404);
  });
});
