/**
 * Salesforce list views and reports as segments, through the connector (jsforce, unmodified) against the
 * sandbox over HTTP: a list view by id and found by API name or label, read whole through its SOQL query
 * and locators past a query batch; a report's detail rows; a report of more rows than Salesforce answers
 * refused with what to do; unknown ids as not_found; a view of another object refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSalesforceConnector } from '../../connectors/salesforce/connector.js';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../connectors/salesforce/sandbox/server.js';
import type { CrmConnector } from '../../src/core/connector.js';

let sandbox: SalesforceSandbox;
let connector: CrmConnector;
const fair: string[] = [];
const others: string[] = [];

beforeAll(async () => {
  sandbox = await startSalesforceSandbox({ queryPageSize: 50 });
  connector = createSalesforceConnector({
    auth: { kind: 'token', instanceUrl: sandbox.url, accessToken: sandbox.accessToken },
    orgId: sandbox.orgId,
    apiReserve: 0,
  });
  for (let i = 0; i < 120; i++) {
    const source = i % 3 === 0 ? 'Other' : 'Trade Fair';
    const id = sandbox.createRecord(
      'Contact',
      { LastName: `Person ${i}`, Email: `p${i}@fair.example`, LeadSource: source },
      { notify: false },
    );
    (source === 'Trade Fair' ? fair : others).push(id);
  }
});
afterAll(async () => {
  await sandbox?.close();
});

describe('Salesforce list views and reports as segments', () => {
  it("reads a list view's every member through its query, past one query batch", async () => {
    const view = sandbox.createListView({
      objectType: 'Contact',
      developerName: 'Trade_Fair_2026',
      label: 'Trade fair 2026',
      where: "LeadSource = 'Trade Fair'",
    });
    const before = sandbox.stats().byOperation;
    const members = await connector.listMembers!('Contact', view);
    expect([...members].sort()).toEqual([...fair].sort());
    const after = sandbox.stats().byOperation;
    expect((after['listview.describe'] ?? 0) - (before['listview.describe'] ?? 0)).toBe(1);
    // 80 members at 50 a batch: the query and one queryMore.
    expect((after.queryMore ?? 0) - (before.queryMore ?? 0)).toBe(1);
  });

  it('finds a list view by its API name or its label, and says undefined for neither', async () => {
    const view = sandbox.createListView({ objectType: 'Contact', developerName: 'Everyone', label: 'All of them' });
    expect(await connector.findList!('Contact', 'Everyone')).toBe(view);
    expect(await connector.findList!('Contact', 'all OF them')).toBe(view);
    expect(await connector.findList!('Contact', 'Nobody')).toBeUndefined();
    expect(await connector.findList!('Lead', 'Everyone')).toBeUndefined();
    expect(await connector.listMembers!('Contact', view)).toHaveLength(120);
  });

  it("reads a report's members from its id column", async () => {
    const report = sandbox.createReport({ objectType: 'Contact', name: 'Others', where: "LeadSource = 'Other'" });
    expect([...(await connector.listMembers!('Contact', report))].sort()).toEqual([...others].sort());
  });

  it('refuses a report of more rows than Salesforce answers, and one of another object', async () => {
    for (let i = 0; i < 1_900; i++)
      sandbox.createRecord('Lead', { LastName: `L${i}`, Company: 'C' }, { notify: false });
    const big = sandbox.createReport({ objectType: 'Lead', name: 'All leads' });
    await expect(connector.listMembers!('Lead', big)).resolves.toHaveLength(1_900);
    for (let i = 0; i < 101; i++) sandbox.createRecord('Lead', { LastName: `M${i}`, Company: 'C' }, { notify: false });
    await expect(connector.listMembers!('Lead', big)).rejects.toMatchObject({
      code: 'validation',
      message: expect.stringContaining('more rows than the 2000 Salesforce answers'),
    });
    const few = sandbox.createReport({ objectType: 'Lead', name: 'Few leads', where: "LastName = 'M1'" });
    await expect(connector.listMembers!('Contact', few)).rejects.toMatchObject({
      code: 'validation',
      message: expect.stringContaining('no column of Contact ids'),
    });
  });

  it('says not_found for an unknown view or report, and refuses an id of neither', async () => {
    await expect(connector.listMembers!('Contact', '00B8d0000000ZZZ')).rejects.toMatchObject({ code: 'not_found' });
    await expect(connector.listMembers!('Contact', '00O8d0000000ZZZ')).rejects.toMatchObject({ code: 'not_found' });
    await expect(connector.listMembers!('Contact', '0038d0000000001')).rejects.toMatchObject({ code: 'validation' });
    const leads = sandbox.createListView({ objectType: 'Lead', developerName: 'Leads', label: 'Leads' });
    // Asked as a Contact view, the path names another object: Salesforce answers as for an unknown view.
    await expect(connector.listMembers!('Contact', leads)).rejects.toMatchObject({ code: 'not_found' });
  });
});
