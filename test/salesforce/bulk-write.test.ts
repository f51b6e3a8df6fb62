/**
 * The connector's large bulk writes through one Bulk API 2.0 ingest job against the sandbox over HTTP:
 * 2,500 updates cost a handful of API calls (not 13 collections calls), one bad row fails that record
 * alone with Salesforce's reason, and rows the org's daily Bulk API record limit left unprocessed come
 * back as retryable failures. Fewer records, or interactive work, still go through collections.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSalesforceConnector } from '../../connectors/salesforce/connector.js';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../connectors/salesforce/sandbox/server.js';
import { CrmError, type CrmConnector, type RecordUpdate } from '../../src/core/connector.js';

const polling = { firstMs: 10, maxMs: 50, timeoutMs: 10_000 };
let sandbox: SalesforceSandbox;
let connector: CrmConnector;
let contacts: string[];

beforeAll(async () => {
  sandbox = await startSalesforceSandbox({ dailyLimit: 100_000, bulkIngest: { dailyRecordLimit: 5_600 } });
  connector = createSalesforceConnector({
    auth: { kind: 'token', instanceUrl: sandbox.url, accessToken: sandbox.accessToken },
    orgId: sandbox.orgId,
    apiReserve: 0,
    ingestPolling: polling,
  });
  contacts = Array.from({ length: 2_500 }, (_, i) =>
    sandbox.createRecord('Contact', { LastName: `Person ${i}`, Email: `p${i}@example.com` }, { notify: false }),
  );
});

afterAll(async () => {
  await connector.close();
  await sandbox.close();
});

const calls = () => ({ ...sandbox.stats().byOperation });
const spent = (before: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(calls())
      .map(([op, n]) => [op, n - (before[op] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );

describe('Salesforce connector: bulk writes through Bulk API 2.0 ingest', () => {
  it('writes 2,500 updates in one ingest job, a handful of calls, one bad row failed alone', async () => {
    expect(connector.writeBatchSize?.('bulk')).toBe(2_000);
    expect(connector.writeBatchSize?.('interactive')).toBe(200);
    const updates: RecordUpdate[] = contacts.map((id, i) => ({
      id,
      properties: { Title: `Title ${i}`, Department: i % 2 ? 'Sales' : '' },
    }));
    updates[1_234] = { id: contacts[1_234]!, properties: { Title: 'Fine', Email: 'not an e-mail' } };
    // A 15-character id is sent, and answered, as the caller gave it.
    updates[7] = { id: contacts[7]!.slice(0, 15), properties: { Title: 'Short id' } };
    const before = calls();

    const results = await connector.writeRecords('Contact', updates, { priority: 'bulk' });

    const used = spent(before);
    expect(used['collections.update'] ?? 0).toBe(0);
    expect(used).toMatchObject({
      'ingest.create': 1,
      'ingest.upload': 1,
      'ingest.state': 1,
      'ingest.successfulResults': 1,
      'ingest.failedResults': 1,
    });
    const total = Object.values(used).reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(8);
    expect(sandbox.stats().bulkIngest.jobs).toBe(1);

    expect(results).toHaveLength(2_500);
    expect(results.map((r) => r.id)).toEqual(updates.map((u) => u.id));
    const failed = results.filter((r) => !r.ok);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      id: contacts[1_234],
      error: {
        code: 'INVALID_EMAIL_ADDRESS',
        message: expect.stringContaining('invalid email address'),
        retryable: false,
        fields: ['Email'],
      },
    });
    // The bad row saved nothing; its neighbours were saved, and '' emptied a field.
    expect(sandbox.getRecord('Contact', contacts[1_234]!)).toMatchObject({ Email: 'p1234@example.com' });
    expect(sandbox.getRecord('Contact', contacts[1_233]!)).toMatchObject({ Title: 'Title 1233', Department: 'Sales' });
    expect(sandbox.getRecord('Contact', contacts[7]!)).toMatchObject({ Title: 'Short id' });
    expect(sandbox.getRecord('Contact', contacts[2_000]!)?.Department ?? null).toBeNull();
  });

  it('keeps collections for fewer records and for interactive work', async () => {
    const jobs = sandbox.stats().bulkIngest.jobs;
    const few = contacts.slice(0, 300).map((id) => ({ id, properties: { Title: 'Few' } }));
    const before = calls();
    expect((await connector.writeRecords('Contact', few, { priority: 'bulk' })).every((r) => r.ok)).toBe(true);
    const many = contacts.map((id) => ({ id, properties: { Title: 'Person waits' } }));
    expect((await connector.writeRecords('Contact', many, { priority: 'interactive' })).every((r) => r.ok)).toBe(true);
    expect(spent(before)['collections.update']).toBe(2 + 13);
    expect(sandbox.stats().bulkIngest.jobs).toBe(jobs);
  });

  it('fails every record, not to be retried, when Salesforce refuses a column of the upload', async () => {
    const updates = contacts.slice(0, 2_000).map((id) => ({ id, properties: { Title: 'x', No_Such_Field__c: 'y' } }));
    const results = await connector.writeRecords('Contact', updates, { priority: 'bulk' });
    expect(results.every((r) => !r.ok)).toBe(true);
    expect(results[0]!.error).toMatchObject({ code: 'INVALID_BATCH', retryable: false });
    expect(results[0]!.error!.message).toContain('Field name not found : No_Such_Field__c');
    expect(sandbox.getRecord('Contact', contacts[0]!)?.Title).not.toBe('x');
  });

  it("fails the rows the org's daily Bulk API record limit left unprocessed as retryable", async () => {
    const unprocessedReads = sandbox.stats().byOperation['ingest.unprocessedrecords'] ?? 0;
    // 2,500 rows processed above; the limit is 5,600.
    const updates = contacts
      .map((id) => ({ id, properties: { Title: 'Second pass' } }))
      .concat(
        Array.from({ length: 1_000 }, (_, i) => ({
          id: sandbox.createRecord('Contact', { LastName: `Extra ${i}` }, { notify: false }),
          properties: { Title: 'Second pass' },
        })),
      );
    const results = await connector.writeRecords('Contact', updates, { priority: 'bulk' });
    expect(results.filter((r) => r.ok)).toHaveLength(3_100);
    const left = results.filter((r) => !r.ok);
    expect(left).toHaveLength(400);
    expect(left[0]!.error).toMatchObject({ code: 'UNPROCESSED', retryable: true });
    expect(left[0]!.error!.message).toMatch(/ExceededQuota/);
    expect(sandbox.stats().byOperation['ingest.unprocessedrecords']).toBe(unprocessedReads + 1);
  });

  it('aborts the job and throws when the upload is refused, leaving every record as it was', async () => {
    const small = await startSalesforceSandbox({ bulkIngest: { maxUploadBytes: 10_000 } });
    const writer = createSalesforceConnector({
      auth: { kind: 'token', instanceUrl: small.url, accessToken: small.accessToken },
      apiReserve: 0,
      ingestPolling: polling,
    });
    try {
      const ids = Array.from({ length: 2_000 }, (_, i) =>
        small.createRecord('Contact', { LastName: `Big ${i}` }, { notify: false }),
      );
      const error = await writer
        .writeRecords(
          'Contact',
          ids.map((id) => ({ id, properties: { Title: 'Too much to upload' } })),
          {
            priority: 'bulk',
          },
        )
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CrmError);
      expect((error as CrmError).message).toMatch(/INVALIDBATCH.*larger than 10000 bytes/);
      expect(small.stats().byOperation).toMatchObject({ 'ingest.create': 1, 'ingest.upload': 1, 'ingest.state': 1 });
      const jobs = (await (
        await fetch(`${small.url}/services/data/v62.0/jobs/ingest`, {
          headers: { authorization: `Bearer ${small.accessToken}` },
        })
      ).json()) as { records: { state: string }[] };
      expect(jobs.records.map((j) => j.state)).toEqual(['Aborted']);
      expect(small.getRecord('Contact', ids[0]!)?.Title).toBeUndefined();
    } finally {
      await writer.close();
      await small.close();
    }
  });
});
