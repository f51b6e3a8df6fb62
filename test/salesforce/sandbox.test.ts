import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSoql, SoqlError } from '../../connectors/salesforce/sandbox/soql.js';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../connectors/salesforce/sandbox/server.js';
import { toId18 } from '../../connectors/salesforce/ids.js';

let sandbox: SalesforceSandbox;
let lead: string;

beforeAll(async () => {
  sandbox = await startSalesforceSandbox({ dailyLimit: 1000 });
  lead = sandbox.createRecord('Lead', { LastName: 'Doe', Company: 'Acme' });
});

afterAll(async () => {
  await sandbox.close();
});

const api = async (method: string, path: string, body?: unknown, token = sandbox.accessToken) => {
  const res = await fetch(`${sandbox.url}/services/data/v62.0${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
};

describe('Salesforce sandbox wire format', () => {
  it('answers an unknown bearer with 401 INVALID_SESSION_ID', async () => {
    expect(await api('GET', '/limits', undefined, 'nope')).toMatchObject({
      status: 401,
      json: [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }],
    });
  });

  it('issues tokens with instance_url and an identity URL carrying the org id', async () => {
    const res = await fetch(`${sandbox.url}/services/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=sandbox&client_secret=sandbox',
    });
    const body = (await res.json()) as Record<string, string>;
    expect(body).toMatchObject({
      instance_url: sandbox.url,
      token_type: 'Bearer',
      id: expect.stringContaining(`/id/${sandbox.orgId}/005`),
    });
    expect(body.signature).toBeTruthy();
    expect((await api('GET', '/limits', undefined, body.access_token)).status).toBe(200);
    const bad = await fetch(`${sandbox.url}/services/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password',
    });
    expect(bad.status).toBe(400);
  });

  it('lists API versions without a session, as jsforce expects', async () => {
    const versions = (await (await fetch(`${sandbox.url}/services/data`)).json()) as { version: string; url: string }[];
    expect(versions.at(-1)).toEqual({ label: 'API 62.0', url: '/services/data/v62.0', version: '62.0' });
  });

  it('refuses more than 200 records in one collections call', async () => {
    const records = Array.from({ length: 201 }, () => ({ attributes: { type: 'Lead' }, id: lead, Title: 'x' }));
    expect(await api('PATCH', '/composite/sobjects', { allOrNone: false, records })).toMatchObject({
      status: 400,
      json: [{ errorCode: 'EXCEEDED_ID_LIMIT' }],
    });
  });

  it('reports unknown fields, bad e-mail and wrong types in Salesforce error bodies', async () => {
    expect(await api('PATCH', `/sobjects/Lead/${lead}`, { Foo__c: 1 })).toMatchObject({
      status: 400,
      json: [{ errorCode: 'INVALID_FIELD', fields: ['Foo__c'] }],
    });
    expect(await api('PATCH', `/sobjects/Lead/${lead}`, { Email: 'not-an-email' })).toMatchObject({
      status: 400,
      json: [{ errorCode: 'INVALID_EMAIL_ADDRESS' }],
    });
    expect(await api('PATCH', `/sobjects/Lead/${lead}`, { NumberOfEmployees: 'many' })).toMatchObject({
      status: 400,
      json: [{ errorCode: 'INVALID_TYPE_ON_FIELD_IN_RECORD' }],
    });
    expect(await api('POST', '/sobjects/Lead', { LastName: 'No Company' })).toMatchObject({
      status: 400,
      json: [{ errorCode: 'REQUIRED_FIELD_MISSING', fields: ['Company'] }],
    });
    expect(await api('GET', '/query?q=' + encodeURIComponent("SELECT Id FROM Lead WHERE Id IN ('zzz')"))).toMatchObject(
      { status: 400, json: [{ errorCode: 'INVALID_QUERY_FILTER_OPERATOR' }] },
    );
    expect(await api('GET', '/query?q=' + encodeURIComponent('SELECT Id FROM Opportunity'))).toMatchObject({
      status: 400,
      json: [{ errorCode: 'INVALID_TYPE' }],
    });
    expect(await api('GET', '/query?q=' + encodeURIComponent('SELECT Id Lead'))).toMatchObject({
      status: 400,
      json: [{ errorCode: 'MALFORMED_QUERY' }],
    });
    expect(await api('GET', '/sobjects/Lead/00Q8d0000009ZZZ')).toMatchObject({
      status: 404,
      json: [{ errorCode: 'NOT_FOUND' }],
    });
  });

  it('reports usage in Sforce-Limit-Info and answers 403 REQUEST_LIMIT_EXCEEDED past the allocation', async () => {
    sandbox.setApiUsage(998);
    const ok = await api('GET', '/limits');
    expect(ok.headers.get('sforce-limit-info')).toBe('api-usage=999/1000');
    expect(ok.json).toEqual({ DailyApiRequests: { Max: 1000, Remaining: 1 } });
    await api('GET', '/limits');
    expect(await api('GET', '/limits')).toMatchObject({ status: 403, json: [{ errorCode: 'REQUEST_LIMIT_EXCEEDED' }] });
    sandbox.setApiUsage(0);
  });

  it('refuses a URI longer than Salesforce accepts (414), and a URI and headers that are together (431)', async () => {
    const ids = Array.from({ length: 700 }, () => `'${lead}'`).join(',');
    expect(
      (await api('GET', '/query?q=' + encodeURIComponent(`SELECT Id FROM Lead WHERE Id IN (${ids})`))).status,
    ).toBe(414);
    // Under 16,384 bytes of URI, but not with a large header added.
    const fewer = Array.from({ length: 450 }, () => `'${lead}'`).join(',');
    const path = '/query?q=' + encodeURIComponent(`SELECT Id FROM Lead WHERE Id IN (${fewer})`);
    expect(path.length).toBeLessThan(16_384);
    expect((await api('GET', path)).status).toBe(200);
    const res = await fetch(`${sandbox.url}/services/data/v62.0${path}`, {
      headers: { authorization: `Bearer ${sandbox.accessToken}`, 'x-padding': 'p'.repeat(6_000) },
    });
    expect(res.status).toBe(431);
    expect(((await res.json()) as { errorCode: string }[])[0]?.errorCode).toBe('REQUEST_HEADER_FIELDS_TOO_LARGE');
  });
});

describe('sandbox SOQL', () => {
  it('parses the subset the connector sends', () => {
    const q = parseSoql(
      'SELECT Id, Email FROM Lead WHERE LastModifiedDate >= 2024-05-01T00:00:00.000Z AND ' +
        "(LastModifiedDate > 2024-05-01T00:00:00Z OR (LastModifiedDate = 2024-05-01T00:00:00Z AND Id > 'a\\'b')) " +
        'ORDER BY LastModifiedDate ASC, Id DESC LIMIT 70',
    );
    expect(q.fields).toEqual(['Id', 'Email']);
    expect(q.object).toBe('Lead');
    expect(q.orderBy).toEqual([
      { field: 'LastModifiedDate', descending: false },
      { field: 'Id', descending: true },
    ]);
    expect(q.limit).toBe(70);
    expect(JSON.stringify(q.where)).toContain('"value":"a\'b"');
  });

  it('refuses what it does not understand', () => {
    expect(() => parseSoql('SELECT FROM Lead')).toThrow(SoqlError);
    expect(() => parseSoql('SELECT Id FROM Lead LIMIT x')).toThrow(/LIMIT/);
    expect(() => parseSoql("SELECT Id FROM Lead WHERE NOT Id LIKE 'a%'")).toThrow(SoqlError);
  });

  it('checks 18-character id suffixes', () => {
    expect(toId18('00Q1N00000bS2eO')).toBe('00Q1N00000bS2eOUAS');
    expect(toId18('00Q1N00000bS2eOUAS')).toBe('00Q1N00000bS2eOUAS');
    expect(toId18('00Q1N00000bS2eOAAA')).toBeUndefined();
    expect(toId18("00Q1N00000bS2e'")).toBeUndefined();
  });
});

describe('crm-enrich sandbox salesforce', () => {
  it('prints where it listens, serves its stats, and stops on SIGTERM', async () => {
    const child = spawn(
      'node_modules/.bin/tsx',
      ['src/cli.ts', 'sandbox', 'salesforce', '--port', '0', '--daily-limit', '50'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /salesforce sandbox listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m?.[1]) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    const stats = (await (await fetch(`${url}/__sandbox/stats`)).json()) as { dailyLimit: number };
    expect(stats.dailyLimit).toBe(50);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 30_000);
  it('runs the org as its options say: no View Setup, and the concurrent long-running request limit', async () => {
    const args = ['--no-view-setup', '--long-running-limit', '1', '--long-running-after-ms', '0', '--answer-delay-ms'];
    const child = spawn(
      'node_modules/.bin/tsx',
      ['src/cli.ts', 'sandbox', 'salesforce', '--port', '0', ...args, '800'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /salesforce sandbox listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m?.[1]) resolve(m[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const token = (await (
        await fetch(`${url}/services/oauth2/token`, {
          method: 'POST',
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: 'sandbox',
            client_secret: 'sandbox',
          }),
        })
      ).json()) as { access_token: string };
      const call = async (path: string) => {
        const res = await fetch(`${url}/services/data/v62.0${path}`, {
          headers: { authorization: `Bearer ${token.access_token}` },
        });
        return { status: res.status, json: await res.json() };
      };
      expect(await call('/limits')).toMatchObject({ status: 403, json: [{ errorCode: 'INSUFFICIENT_ACCESS' }] });
      const long = call('/query?q=SELECT+Id+FROM+Lead');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await call('/query?q=SELECT+Id+FROM+Lead')).toEqual({
        status: 403,
        json: [{ message: 'ConcurrentPerOrgLongTxn Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' }],
      });
      expect((await long).status).toBe(200);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }, 30_000);
});
