/**
 * The sandbox's Bulk API 2.0 query jobs, driven by jsforce's own `conn.bulk2` over HTTP: the job's states,
 * the results in sets joined by Sforce-Locator, a bad query refused at creation, a job that fails, aborting
 * and deleting, and every request counted against the org's daily allocation.
 */
import { Connection } from 'jsforce';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../connectors/salesforce/sandbox/server.js';

const CONTACTS = 2_500;
let sandbox: SalesforceSandbox;
let conn: Connection;

const jobs = (path = '') => `/services/data/v62.0/jobs/query${path}`;

beforeAll(async () => {
  sandbox = await startSalesforceSandbox({ bulkQuery: { processingMs: 300 } });
  for (let i = 0; i < CONTACTS; i++)
    sandbox.createRecord(
      'Contact',
      { LastName: `Person ${i}`, Email: `p${i}@example.com`, Title: i % 2 ? 'Buyer, "senior"' : null },
      { notify: false },
    );
  conn = new Connection({ instanceUrl: sandbox.url, accessToken: sandbox.accessToken, version: '62.0' });
  conn.bulk2.pollInterval = 50;
});
afterAll(() => sandbox?.close());

describe('Bulk API 2.0 query jobs in the sandbox', () => {
  // jsforce 3.10.26 reads one set of results only: it pipes each set into one stream, which the first ends
  // ("write after end", jsforce issues 1546 and 1693). Sets joined by locators are read below without it.
  it('answers conn.bulk2.query with every record in one set of results', async () => {
    const before = sandbox.stats();
    const records = await (await conn.bulk2.query('SELECT Id, LastName, Title FROM Contact')).toArray();
    expect(records).toHaveLength(CONTACTS);
    const byId = new Map(sandbox.records('Contact').map((r) => [r.Id, r]));
    for (const r of records) {
      const held = byId.get(String(r.Id));
      expect(r.LastName).toBe(held?.LastName);
      // A quoted comma and quotes survive; null is an empty field.
      expect(r.Title).toBe(held?.Title ?? '');
    }
    const after = sandbox.stats();
    const spent = (op: string) => (after.byOperation[op] ?? 0) - (before.byOperation[op] ?? 0);
    expect(spent('bulk2.query.create')).toBe(1);
    expect(spent('bulk2.query.results')).toBe(1);
    expect(spent('bulk2.query.get')).toBeGreaterThanOrEqual(1);
    expect(after.apiCalls - before.apiCalls).toBe(
      spent('bulk2.query.create') + spent('bulk2.query.get') + spent('bulk2.query.results'),
    );
  });

  it('moves a job from UploadComplete through InProgress to JobComplete, then hands out sets', async () => {
    const created = await conn.request<{ id: string; state: string; operation: string; object: string }>({
      method: 'POST',
      url: jobs(),
      body: JSON.stringify({ operation: 'queryAll', query: "SELECT Id, Email FROM Contact WHERE Email LIKE 'p1%'" }),
      headers: { 'content-type': 'application/json' },
    });
    expect(created).toMatchObject({ state: 'UploadComplete', operation: 'queryAll', object: 'Contact' });
    expect(created.id).toMatch(/^750[a-zA-Z0-9]{15}$/);
    const seen = new Set<string>();
    let info: { state: string; numberRecordsProcessed: number } | undefined;
    for (let i = 0; i < 100 && info?.state !== 'JobComplete'; i++) {
      const now = await conn.request<{ state: string; numberRecordsProcessed: number }>(jobs(`/${created.id}`));
      seen.add(now.state);
      info = now;
      if (now.state !== 'JobComplete') await new Promise((r) => setTimeout(r, 20));
    }
    expect([...seen]).toEqual(expect.arrayContaining(['InProgress', 'JobComplete']));
    const matching = sandbox.records('Contact').filter((r) => String(r.Email).startsWith('p1')).length;
    expect(info?.numberRecordsProcessed).toBe(matching);

    const page = async (query: string) => {
      const res = await fetch(`${sandbox.url}${jobs(`/${created.id}/results${query}`)}`, {
        headers: { authorization: `Bearer ${sandbox.accessToken}` },
      });
      return {
        status: res.status,
        body: await res.text(),
        locator: res.headers.get('sforce-locator'),
        count: res.headers.get('sforce-numberofrecords'),
        type: res.headers.get('content-type'),
      };
    };
    const first = await page('?maxRecords=500');
    expect(first).toMatchObject({ status: 200, count: '500' });
    expect(first.type).toMatch(/^text\/csv/);
    expect(first.body.split('\n')[0]).toBe('"Id","Email"');
    expect(first.locator).not.toBe('null');
    // A locator stays valid while the job exists: the same set twice.
    const again = await page(`?locator=${first.locator}&maxRecords=500`);
    expect(again.body).toBe((await page(`?locator=${first.locator}&maxRecords=500`)).body);
    let ids = first.body.trim().split('\n').length - 1;
    let locator = first.locator;
    while (locator !== 'null') {
      const next = await page(`?locator=${locator}&maxRecords=500`);
      ids += Number(next.count);
      locator = next.locator;
    }
    expect(ids).toBe(matching);
    expect((await page('?locator=bm9wZQ')).status).toBe(400);
    expect((await page('?maxRecords=0')).status).toBe(400);
    // Results are read with the version the job was made with.
    const other = await fetch(`${sandbox.url}/services/data/v61.0/jobs/query/${created.id}/results`, {
      headers: { authorization: `Bearer ${sandbox.accessToken}` },
    });
    expect(other.status).toBe(409);

    await conn.request({ method: 'DELETE', url: jobs(`/${created.id}`) });
    await expect(conn.request(jobs(`/${created.id}`))).rejects.toMatchObject({ errorCode: 'NOT_FOUND' });
  });

  it('refuses a bad query at creation with the REST query error, and COUNT() as Bulk API 2.0 does', async () => {
    await expect(conn.bulk2.query('SELECT Id, Nope__c FROM Contact')).rejects.toMatchObject({
      errorCode: 'INVALID_FIELD',
    });
    await expect(conn.bulk2.query('SELECT Id FROM Contact WHERE')).rejects.toMatchObject({
      errorCode: 'MALFORMED_QUERY',
    });
    await expect(conn.bulk2.query('SELECT Id FROM Nothing')).rejects.toMatchObject({ errorCode: 'INVALID_TYPE' });
    await expect(conn.bulk2.query('SELECT COUNT() FROM Contact')).rejects.toMatchObject({
      errorCode: 'FUNCTIONALITY_NOT_ENABLED',
    });
  });

  it('ends a job Failed when Salesforce gives up on it; results of a failed or running job are refused', async () => {
    sandbox.failQueryJobs(1);
    await expect(conn.bulk2.query('SELECT Id FROM Contact')).rejects.toThrow(/failed/);
    const running = await conn.request<{ id: string }>({
      method: 'POST',
      url: jobs(),
      body: JSON.stringify({ operation: 'query', query: 'SELECT Id FROM Contact' }),
      headers: { 'content-type': 'application/json' },
    });
    await expect(conn.request(jobs(`/${running.id}/results`))).rejects.toMatchObject({
      errorCode: 'INVALIDJOBSTATE',
    });
    // A running job cannot be deleted, only aborted; an aborted one can be deleted, not aborted again.
    await expect(conn.request({ method: 'DELETE', url: jobs(`/${running.id}`) })).rejects.toMatchObject({
      errorCode: 'INVALIDJOBSTATE',
    });
    const job = conn.bulk2.job('query', { id: running.id });
    expect(await job.abort()).toMatchObject({ state: 'Aborted' });
    await expect(job.abort()).rejects.toMatchObject({ errorCode: 'INVALIDJOBSTATE' });
    await expect(job.poll(10, 1_000)).rejects.toThrow(/aborted/);
    await job.delete();
    await expect(job.check()).rejects.toMatchObject({ errorCode: 'NOT_FOUND' });
  });

  it('counts bulk requests against the daily allocation and refuses them once it is spent', async () => {
    const { dailyLimit } = sandbox.stats();
    sandbox.setApiUsage(dailyLimit);
    await expect(conn.bulk2.query('SELECT Id FROM Contact')).rejects.toMatchObject({
      errorCode: 'REQUEST_LIMIT_EXCEEDED',
    });
    sandbox.setApiUsage(0);
  });

  it('answers SELECT COUNT() on the REST query resource with the number of records', async () => {
    const answer = await conn.query('SELECT COUNT() FROM Contact');
    expect(answer).toMatchObject({ totalSize: CONTACTS, done: true, records: [] });
  });
});
