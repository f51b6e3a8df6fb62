/**
 * The sandbox's Bulk API 2.0 ingest jobs, driven by jsforce's bulk2 client unmodified: the job states,
 * rows saved with the REST writes' checks (a bad value or an unknown id fails its row alone), refusals
 * of a request the job's state does not allow, and the org's records-per-24-hours limit.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Connection } from 'jsforce';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../connectors/salesforce/sandbox/server.js';
import { toId18 } from '../../connectors/salesforce/ids.js';

let sandbox: SalesforceSandbox;
let conn: Connection;
const received: string[] = [];
let hook: Server;

beforeAll(async () => {
  // Outbound messages land here, to show an ingest job's changes send them as REST writes do.
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end(
        '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>' +
          '<notificationsResponse xmlns="http://soap.sforce.com/2005/09/outbound"><Ack>true</Ack>' +
          '</notificationsResponse></soapenv:Body></soapenv:Envelope>',
      );
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const port = (hook.address() as AddressInfo).port;
  sandbox = await startSalesforceSandbox({
    bulkIngest: { dailyRecordLimit: 12, processingDelayMs: 20 },
    outboundBatchWindowMs: 10,
    outboundUrl: `http://127.0.0.1:${port}/`,
  });
  conn = new Connection({ instanceUrl: sandbox.url, accessToken: sandbox.accessToken, version: '62.0' });
  conn.bulk2.pollInterval = 20;
});

afterAll(async () => {
  await sandbox.close();
  await new Promise<void>((r) => hook.close(() => r()));
});

describe('Bulk API 2.0 ingest in the Salesforce sandbox', () => {
  it('updates rows through jsforce, failing a bad value or an unknown id on its row alone', async () => {
    const ids = [1, 2, 3].map((i) =>
      sandbox.createRecord(
        'Contact',
        { LastName: `Row${i}`, Title: 'Before', Email: `row${i}@example.com` },
        { notify: false },
      ),
    );
    const unknown = toId18('0038d0000099999')!;
    const results = await conn.bulk2.loadAndWaitForResults({
      object: 'Contact',
      operation: 'update',
      lineEnding: 'LF',
      input:
        'Id,Title,Email\n' +
        `${ids[0]},"Head of Sales, EMEA",first@example.com\n` +
        `${ids[1]},Buyer,not-an-email\n` +
        `${unknown},Buyer,x@example.com\n` +
        `${ids[2]},,#N/A\n`,
    });
    expect(results.successfulResults.map((r) => [r.sf__Id, r.sf__Created])).toEqual([
      [ids[0], 'false'],
      [ids[2], 'false'],
    ]);
    expect(results.failedResults).toHaveLength(2);
    expect(results.failedResults[0]).toMatchObject({ Id: ids[1], sf__Error: expect.stringMatching(/^INVALID_EMAIL/) });
    expect(results.failedResults[1]).toMatchObject({
      Id: unknown,
      sf__Error: expect.stringMatching(/^ENTITY_IS_DELETED/),
    });
    expect(results.unprocessedRecords).toEqual([]);
    expect(sandbox.getRecord('Contact', ids[0]!)).toMatchObject({ Title: 'Head of Sales, EMEA' });
    // The bad row saved nothing, not even its good value.
    expect(sandbox.getRecord('Contact', ids[1]!)?.Title).toBe('Before');
    // An empty value leaves a field as it is; #N/A empties it.
    expect(sandbox.getRecord('Contact', ids[2]!)).toMatchObject({ Title: 'Before', Email: null });
    // A change of a watched field (Email) by the job sends an outbound message like a REST write's.
    await expect.poll(() => received.some((b) => b.includes('first@example.com')), { timeout: 3_000 }).toBe(true);
    expect(sandbox.stats().byOperation).toMatchObject({
      'ingest.create': 1,
      'ingest.upload': 1,
      'ingest.state': 1,
      'ingest.successfulResults': 1,
      'ingest.failedResults': 1,
    });
  });

  it('moves through Open, UploadComplete, InProgress and JobComplete, and inserts with sf__Created', async () => {
    const job = conn.bulk2.createJob({ object: 'Lead', operation: 'insert', lineEnding: 'CRLF' });
    expect((await job.open()).state).toBe('Open');
    await job.uploadData('LastName,Company\r\nOne,Acme\r\nTwo,Beta\r\n');
    await job.close();
    expect(job.getInfo().state).toBe('UploadComplete');
    const seen = new Set<string>();
    for (let i = 0; i < 100 && !seen.has('JobComplete'); i++) {
      seen.add((await job.check()).state);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(seen).toContain('JobComplete');
    expect(job.getInfo()).toMatchObject({ numberRecordsProcessed: 2, numberRecordsFailed: 0, jobType: 'V2Ingest' });
    const created = await job.getSuccessfulResults();
    expect(created.map((r) => r.sf__Created)).toEqual(['true', 'true']);
    expect(sandbox.getRecord('Lead', String(created[0]!.sf__Id))).toMatchObject({ LastName: 'One', Company: 'Acme' });
  });

  it("refuses what a job's state does not allow", async () => {
    const job = conn.bulk2.createJob({ object: 'Contact', operation: 'update' });
    await job.open();
    // jsforce reads a results answer as CSV, so Salesforce's JSON error reaches it as the message.
    await expect(job.getSuccessfulResults()).rejects.toThrow(/INVALIDJOBSTATE/);
    await job.abort();
    expect(job.getInfo().state).toBe('Aborted');
    await expect(job.close()).rejects.toMatchObject({ errorCode: 'INVALIDJOBSTATE' });
    await expect(job.uploadData('Id,Title\n')).rejects.toMatchObject({ errorCode: 'INVALIDJOBSTATE' });
    await expect(conn.bulk2.createJob({ object: 'Opportunity', operation: 'update' }).open()).rejects.toMatchObject({
      errorCode: 'INVALIDJOB',
      message: expect.stringContaining('object'),
    });
    const badHeader = conn.bulk2.createJob({ object: 'Contact', operation: 'update' });
    await badHeader.open();
    await badHeader.uploadData('Id,NoSuchField__c\n003000000000001AAA,x\n');
    await badHeader.close();
    await expect(badHeader.poll(20, 2_000)).rejects.toThrow(/Field name not found : NoSuchField__c/);
  });

  it('leaves rows past the daily record limit unprocessed and fails the job, as Salesforce documents', async () => {
    // 3 + 2 rows processed above; the limit is 12.
    const before = sandbox.stats().bulkIngest.recordsLast24h;
    const ids = Array.from({ length: 9 }, (_, i) => sandbox.createRecord('Contact', { LastName: `Q${i}` }));
    const job = conn.bulk2.createJob({ object: 'Contact', operation: 'update' });
    await job.open();
    await job.uploadData(['Id,Title', ...ids.map((id) => `${id},Quota`)].join('\n') + '\n');
    await job.close();
    await expect(job.poll(20, 2_000)).rejects.toThrow(/ExceededQuota/);
    const room = 12 - before;
    expect(job.getInfo()).toMatchObject({ state: 'Failed', numberRecordsProcessed: room });
    expect(await job.getUnprocessedRecords()).toHaveLength(9 - room);
    expect(ids.filter((id) => sandbox.getRecord('Contact', id)?.Title === 'Quota')).toHaveLength(room);
    expect(sandbox.stats().bulkIngest.recordsLast24h).toBe(12);
  });
});
