/**
 * `ensureProperties` on Salesforce creates the missing custom fields through the Metadata API and grants
 * them in the integration user's permission set, against the sandbox over real HTTP with jsforce (the
 * SOAP endpoint /services/Soap/m/<version>); describe then shows them, and a second run creates nothing.
 */
import { Connection } from 'jsforce';
import { afterEach, describe, expect, it } from 'vitest';
import { createSalesforceConnector } from '../../connectors/salesforce/connector.js';
import { salesforceConnectorFromConfig } from '../../connectors/salesforce/from-config.js';
import {
  startSalesforceSandbox,
  type SalesforceSandbox,
  type SalesforceSandboxOptions,
} from '../../connectors/salesforce/sandbox/server.js';
import { loadConfig } from '../../src/config.js';
import type { CrmConnector, PropertySpec } from '../../src/core/connector.js';

const WANTED: PropertySpec[] = [
  { name: 'CE_Seniority__c', label: 'Seniority', type: 'enumeration', options: ['Manager', 'Other'] },
  {
    name: 'CE_Partner_Id__c',
    label: 'Partner Id',
    type: 'string',
    maxLength: 64,
    description: 'Identifies the person at the data partner.',
  },
  { name: 'CE Enriched At', label: 'Enriched At', type: 'datetime' },
  { name: 'CE_Review_Count__c', label: 'Reviews', type: 'number' },
  { name: 'CE_Notes__c', label: 'Notes', type: 'text' },
  { name: 'CE_Opted_In__c', label: 'Opted In', type: 'bool' },
  { name: 'Title', label: 'Title', type: 'string' },
];

const open: { sandbox: SalesforceSandbox; connector: CrmConnector }[] = [];
afterEach(async () => {
  for (const { sandbox, connector } of open.splice(0)) {
    await connector.close();
    await sandbox.close();
  }
});

async function start(options: SalesforceSandboxOptions = {}) {
  const sandbox = await startSalesforceSandbox(options);
  // The client credentials flow, as the service is configured for a real org.
  const connector = createSalesforceConnector({
    auth: { kind: 'client_credentials', loginUrl: sandbox.url, clientId: 'sandbox', clientSecret: 'sandbox' },
    orgId: sandbox.orgId,
    apiReserve: 0,
  });
  open.push({ sandbox, connector });
  const jsforce = new Connection({ instanceUrl: sandbox.url, accessToken: sandbox.accessToken, version: '62.0' });
  const calls = (operation: string) => sandbox.stats().byOperation[operation] ?? 0;
  return { sandbox, connector, jsforce, calls };
}

describe('Salesforce fields created through the Metadata API', () => {
  it('creates the missing fields, grants them, and describe then shows them with their types', async () => {
    const { sandbox, connector, jsforce, calls } = await start();
    const result = await connector.ensureProperties('Lead', WANTED);

    expect(result.missing).toEqual([]);
    expect(result.existing).toEqual(['Title']);
    expect(result.created).toEqual([
      'CE_Seniority__c',
      'CE_Partner_Id__c',
      'CE_Enriched_At__c',
      'CE_Review_Count__c',
      'CE_Notes__c',
      'CE_Opted_In__c',
    ]);
    expect(calls('metadata.createMetadata')).toBe(1);
    expect(calls('metadata.upsertMetadata')).toBe(1);

    const fields = new Map((await jsforce.describe('Lead')).fields.map((f) => [f.name, f]));
    expect(fields.get('CE_Seniority__c')).toMatchObject({
      type: 'picklist',
      custom: true,
      updateable: true,
      restrictedPicklist: true,
    });
    expect(fields.get('CE_Seniority__c')?.picklistValues?.map((v) => v.value)).toEqual(['Manager', 'Other']);
    expect(fields.get('CE_Partner_Id__c')).toMatchObject({ type: 'string', length: 64 });
    expect(fields.get('CE_Enriched_At__c')).toMatchObject({ type: 'datetime' });
    expect(fields.get('CE_Review_Count__c')).toMatchObject({ type: 'double' });
    expect(fields.get('CE_Notes__c')).toMatchObject({ type: 'textarea', length: 32_768 });
    expect(fields.get('CE_Opted_In__c')).toMatchObject({ type: 'boolean' });

    // The new field takes writes through the REST API like any other.
    const id = sandbox.createRecord('Lead', { LastName: 'Provisioned', Company: 'Example' });
    const [write] = await connector.writeRecords('Lead', [
      { id, properties: { CE_Partner_Id__c: 'p-1', CE_Seniority__c: 'Manager' } },
    ]);
    expect(write).toMatchObject({ ok: true });
    expect(sandbox.getRecord('Lead', id)).toMatchObject({ CE_Partner_Id__c: 'p-1', CE_Seniority__c: 'Manager' });
  });

  it('creates nothing the second time', async () => {
    const { connector, calls } = await start();
    await connector.ensureProperties('Contact', WANTED);
    const created = calls('metadata.createMetadata');
    const again = await connector.ensureProperties('Contact', WANTED);
    expect(again.created).toEqual([]);
    expect(again.missing).toEqual([]);
    expect(again.existing).toHaveLength(WANTED.length);
    expect(calls('metadata.createMetadata')).toBe(created);
  });

  it('grants the fields in the integration permission set, which readMetadata then lists', async () => {
    const { connector, jsforce } = await start();
    await connector.ensureProperties('Account', WANTED.slice(0, 2));
    const set = (await jsforce.metadata.read('PermissionSet', 'Crm_Enrich_Integration')) as unknown as {
      fieldPermissions: { field: string; readable: boolean; editable: boolean }[];
    };
    expect(set.fieldPermissions).toEqual(
      expect.arrayContaining([
        { field: 'Account.CE_Seniority__c', readable: true, editable: true },
        { field: 'Account.CE_Partner_Id__c', readable: true, editable: true },
      ]),
    );
    const field = (await jsforce.metadata.read('CustomField', 'Account.CE_Partner_Id__c')) as unknown as {
      label: string;
      type: string;
      length: number;
    };
    expect(field).toMatchObject({ label: 'Partner Id', type: 'Text', length: 64 });
  });

  it('sends at most ten fields per create call, as Salesforce allows', async () => {
    const { connector, calls } = await start();
    const many = Array.from({ length: 12 }, (_, i): PropertySpec => ({
      name: `CE_Extra_${i}__c`,
      label: `Extra ${i}`,
      type: 'string',
    }));
    const result = await connector.ensureProperties('Lead', many);
    expect(result.created).toHaveLength(12);
    expect(calls('metadata.createMetadata')).toBe(2);
  });

  it('grants a field the org has but the integration user cannot see, and counts it as already there', async () => {
    const { connector, calls } = await start({
      customFields: { Lead: [{ name: 'CE_Partner_Id__c', type: 'string', label: 'Partner Id', length: 64 }] },
      hiddenFields: { Lead: ['CE_Partner_Id__c'] },
    });
    const result = await connector.ensureProperties('Lead', WANTED.slice(1, 2));
    expect(result).toMatchObject({ created: [], existing: ['CE_Partner_Id__c'], missing: [] });
    expect(calls('metadata.upsertMetadata')).toBe(1);
  });

  it("says what to do when the permission set is not the user's, and a second run does not fail", async () => {
    const { connector } = await start({ assignedPermissionSets: [] });
    const first = await connector.ensureProperties('Lead', WANTED.slice(0, 1));
    expect(first.created).toEqual([]);
    expect(first.missing[0]?.instruction).toMatch(
      /Lead\.CE_Seniority__c exists, but the integration user cannot see it: assign the permission set Crm_Enrich_Int/,
    );
    // The field exists now, invisible: the second run meets DUPLICATE_DEVELOPER_NAME and grants again.
    const second = await connector.ensureProperties('Lead', WANTED.slice(0, 1));
    expect(second.missing.map((m) => m.spec.name)).toEqual(['CE_Seniority__c']);
  });

  it('reports a field Salesforce refuses with its reason, and creates the others', async () => {
    const { connector } = await start();
    const result = await connector.ensureProperties('Lead', [
      {
        name: 'CE_Long_Label__c',
        label: 'A label far longer than the forty characters Salesforce allows',
        type: 'string',
      },
      { name: 'CE_Fine__c', label: 'Fine', type: 'string' },
    ]);
    expect(result.created).toEqual(['CE_Fine__c']);
    expect(result.missing[0]?.instruction).toMatch(/^FIELD_INTEGRITY_EXCEPTION: Field label: data value too large/);
    expect(result.missing[0]?.instruction).toContain('Object Manager > Lead');
  });
});

describe('SALESFORCE_PERMISSION_SET', () => {
  it('names the permission set the fields are granted in', async () => {
    const { sandbox, jsforce } = await start({ assignedPermissionSets: ['Enrichment_Api'] });
    const connector = salesforceConnectorFromConfig(
      loadConfig({
        SALESFORCE_LOGIN_URL: sandbox.url,
        SALESFORCE_CLIENT_ID: 'sandbox',
        SALESFORCE_CLIENT_SECRET: 'sandbox',
        SALESFORCE_PERMISSION_SET: 'Enrichment_Api',
      }),
    );
    try {
      const result = await connector!.ensureProperties('Lead', WANTED.slice(0, 1));
      expect(result.created).toEqual(['CE_Seniority__c']);
      const set = (await jsforce.metadata.read('PermissionSet', 'Enrichment_Api')) as unknown as {
        fieldPermissions: { field: string }[];
      };
      expect(set.fieldPermissions.map((p) => p.field)).toEqual(['Lead.CE_Seniority__c']);
    } finally {
      await connector?.close();
    }
  });

  it('must be a permission set API name', () => {
    expect(() => loadConfig({ SALESFORCE_PERMISSION_SET: 'crm-enrich set' })).toThrow(
      /SALESFORCE_PERMISSION_SET: expected a permission set API name/,
    );
  });
});

describe('Salesforce sandbox Metadata API', () => {
  it('refuses a call without a valid session as Salesforce does, with a SOAP fault', async () => {
    const { sandbox } = await start();
    const stranger = new Connection({ instanceUrl: sandbox.url, accessToken: 'not-a-session', version: '62.0' });
    await expect(
      stranger.metadata.create('CustomField', {
        fullName: 'Lead.CE_X__c',
        label: 'X',
        type: 'Text',
        length: 10,
      } as never),
    ).rejects.toMatchObject({ errorCode: 'sf:INVALID_SESSION_ID' });
  });

  it('refuses a duplicate field and a field of an unknown object, field by field', async () => {
    const { jsforce } = await start();
    const results = await jsforce.metadata.create('CustomField', [
      { fullName: 'Lead.Email', label: 'Email', type: 'Email' },
      { fullName: 'Widget__c.CE_X__c', label: 'X', type: 'Text', length: 10 },
      { fullName: 'Lead.CE_Ok__c', label: 'Ok', type: 'Text', length: 10 },
    ] as never[]);
    expect(results.map((r) => [r.success, r.errors?.[0]?.statusCode])).toEqual([
      [false, 'FIELD_INTEGRITY_EXCEPTION'],
      [false, 'INVALID_CROSS_REFERENCE_KEY'],
      [true, undefined],
    ]);
    const again = await jsforce.metadata.create('CustomField', [
      { fullName: 'Lead.CE_Ok__c', label: 'Ok', type: 'Text', length: 10 },
    ] as never[]);
    expect(again[0]?.errors?.[0]?.statusCode).toBe('DUPLICATE_DEVELOPER_NAME');
  });
});
