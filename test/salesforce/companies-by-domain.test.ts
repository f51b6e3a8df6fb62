import { Connection } from 'jsforce';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSalesforceConnector } from '../../connectors/salesforce/connector.js';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../connectors/salesforce/sandbox/server.js';
import { likeContaining, SALESFORCE_MAX_URI } from '../../connectors/salesforce/soql.js';
import type { CompanyMatch, CrmConnector } from '../../src/core/connector.js';

let sandbox: SalesforceSandbox;
let connector: CrmConnector;
let jsforce: Connection;
const accounts: Record<string, string> = {};

const account = (key: string, Website: string | null) => {
  accounts[key] = sandbox.createRecord('Account', { Name: key, Website });
};

beforeAll(async () => {
  sandbox = await startSalesforceSandbox();
  connector = createSalesforceConnector({
    auth: { kind: 'token', instanceUrl: sandbox.url, accessToken: sandbox.accessToken },
    orgId: sandbox.orgId,
    apiReserve: 0,
  });
  jsforce = new Connection({ instanceUrl: sandbox.url, accessToken: sandbox.accessToken, version: '62.0' });
  account('acme', 'https://www.acme.com/');
  account('globex', 'globex.io');
  account('initech', 'HTTP://Initech.COM:8080/about?x=1');
  account('umbrella', 'www.umbrella.org');
  account('notacme', 'https://notacme.com');
  account('acme-sub', 'https://acme.com.evil.net');
  account('empty', null);
  account('quote', "https://o'brien.com");
  account('percent', '50%off.com');
  account('underscore', 'under_score.com');
});

afterAll(async () => {
  await connector.close();
  await sandbox.close();
});

const queries = () => sandbox.stats().byOperation.query ?? 0;
const websiteQueries = () => sandbox.stats().queriesByFilter['Account.Website'] ?? 0;

const ids = (found: Map<string, CompanyMatch> | undefined) => new Map([...(found ?? [])].map(([d, m]) => [d, m.id]));

describe('Salesforce connector: Accounts by website domain', () => {
  it('names Account as the company object', () => {
    expect(connector.companyObjectType).toBe('Account');
  });

  it('finds Accounts whose website, in any common form, is the domain, in one query', async () => {
    const before = queries();
    const found = ids(
      await connector.findCompaniesByDomain?.([
        'acme.com',
        'Globex.io',
        'https://initech.com/',
        'umbrella.org',
        'nobody.example',
      ]),
    );
    expect(found).toEqual(
      new Map([
        ['acme.com', accounts.acme],
        ['globex.io', accounts.globex],
        ['initech.com', accounts.initech],
        ['umbrella.org', accounts.umbrella],
      ]),
    );
    expect(queries() - before).toBe(1);
  });

  it('does not take a look-alike website for the domain', async () => {
    const found = ids(await connector.findCompaniesByDomain?.(['acme.com', 'cme.com', 'acme.co']));
    expect([...found.entries()]).toEqual([['acme.com', accounts.acme]]);
  });

  it('matches the oldest Account when several share a website, and names the others', async () => {
    const later = sandbox.createRecord('Account', { Name: 'acme again', Website: 'acme.com' });
    const found = await connector.findCompaniesByDomain?.(['acme.com']);
    expect(found?.get('acme.com')).toEqual({ id: accounts.acme, others: [later] });
    expect(later).not.toBe(accounts.acme);
  });

  it('finds Accounts by partner id (here in AccountNumber) or exact name in one query, oldest first', async () => {
    const enriched = sandbox.createRecord('Account', {
      Name: 'Renamed Ltd',
      Website: 'elsewhere.example',
      AccountNumber: 'co_au000042',
    });
    const named = sandbox.createRecord('Account', { Name: "O'Neil & Sons", Website: 'oneil.example' });
    const before = queries();
    const found = await connector.findCompaniesByKeys?.({
      partnerIdProperty: 'AccountNumber',
      partnerIds: ['co_au000042', 'co_au999999'],
      names: ["O'Neil & Sons", 'Nobody Pty Ltd'],
    });
    expect(found).toEqual([
      { id: enriched, partnerId: 'co_au000042', name: 'Renamed Ltd' },
      { id: named, partnerId: null, name: "O'Neil & Sons" },
    ]);
    expect(queries() - before).toBe(1);
  });

  it('spends no call when nothing is a domain', async () => {
    const before = connector.stats().calls;
    expect((await connector.findCompaniesByDomain?.(['', '  ', 'localhost']))?.size).toBe(0);
    expect(connector.stats().calls).toBe(before);
  });

  it('keeps quotes and LIKE wildcards in a domain literal, so they cannot break or widen the query', async () => {
    const found = ids(
      await connector.findCompaniesByDomain?.([
        "o'brien.com",
        '50%off.com',
        'under_score.com',
        "x.com' OR Name != '",
        'a%.com',
        '_.com',
      ]),
    );
    expect(found).toEqual(
      new Map([
        ["o'brien.com", accounts.quote],
        ['50%off.com', accounts.percent],
        ['under_score.com', accounts.underscore],
      ]),
    );
    // The escaped wildcards match only themselves: `c_e` would otherwise match acme's website, `%` every website.
    const literal = await jsforce.query(
      `SELECT Id FROM Account WHERE Website LIKE ${likeContaining('ac_e.com')} OR Website LIKE ${likeContaining('%')}`,
    );
    expect(literal.records.map((r) => r.Id)).toEqual([accounts.percent]);
    const wild = await jsforce.query("SELECT Id FROM Account WHERE Website LIKE '%ac_e.com%'");
    expect(wild.records.length).toBeGreaterThan(0);
  });

  it('splits 250 domains into as few queries as fit the URI limit, each counted', async () => {
    const domains = Array.from(
      { length: 250 },
      (_, i) => `a-rather-long-company-name-${String(i).padStart(3, '0')}.example.com`,
    );
    domains.forEach((d, i) => {
      if (i % 50 === 0) sandbox.createRecord('Account', { Name: d, Website: `https://www.${d}/` });
    });
    // One query with every domain would not fit one GET; three do (each term costs about 78 encoded
    // characters, and a query keeps its URI to 8 KB, half the limit, leaving room for the headers).
    const terms = domains.map((d) => `Website LIKE ${likeContaining(d)}`).join(' OR ');
    const soql = `SELECT Id, Website FROM Account WHERE ${terms} ORDER BY Id`;
    const single = `/services/data/v62.0/query?q=${encodeURIComponent(soql)}`;
    expect(single.length).toBeGreaterThan(SALESFORCE_MAX_URI);
    const before = {
      sandbox: queries(),
      website: websiteQueries(),
      connector: connector.stats().byOperation.query ?? 0,
    };
    const found = await connector.findCompaniesByDomain?.(domains);
    expect([...(found?.keys() ?? [])].sort()).toEqual(domains.filter((_, i) => i % 50 === 0));
    expect(queries() - before.sandbox).toBe(3);
    expect(websiteQueries() - before.website).toBe(3);
    expect((connector.stats().byOperation.query ?? 0) - before.connector).toBe(3);
  });
});

describe('Salesforce sandbox: LIKE', () => {
  const ids = async (soql: string) => (await jsforce.query(soql)).records.map((r) => r.Id);
  const errorOf = (soql: string) =>
    jsforce.query(soql).then(
      () => undefined,
      (e: Error & { errorCode?: string }) => e.errorCode,
    );

  it('matches whole values case-insensitively, with % and _ as wildcards, joined by OR', async () => {
    expect(await ids("SELECT Id FROM Account WHERE Website LIKE 'GLOBEX.IO'")).toEqual([accounts.globex]);
    expect(await ids("SELECT Id FROM Account WHERE Website LIKE 'globex.i_' OR Website LIKE 'www.umbrella%'")).toEqual([
      accounts.globex,
      accounts.umbrella,
    ]);
    expect(await ids("SELECT Id FROM Account WHERE Website LIKE 'globex'")).toEqual([]);
    expect(await ids("SELECT Id FROM Account WHERE Website LIKE '%o\\'brien%'")).toEqual([accounts.quote]);
  });

  it('answers what it does not support with the errors Salesforce gives', async () => {
    expect(await errorOf("SELECT Id FROM Account WHERE NumberOfEmployees LIKE '1%'")).toBe(
      'INVALID_QUERY_FILTER_OPERATOR',
    );
    expect(await errorOf('SELECT Id FROM Account WHERE Website LIKE 5')).toBe('MALFORMED_QUERY');
    expect(await errorOf("SELECT Id FROM Account WHERE Website NOT LIKE 'a%'")).toBe('MALFORMED_QUERY');
    expect(await errorOf("SELECT Id FROM Account WHERE Website LIKE 'a\\qb'")).toBe('MALFORMED_QUERY');
  });
});
