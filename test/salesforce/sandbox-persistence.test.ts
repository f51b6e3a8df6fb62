/**
 * The Salesforce sandbox with a data directory keeps its org across restarts (records, custom fields,
 * the id counter; one file per org id), and the connector reads the org id it runs against from OAuth
 * UserInfo, as it does at start-up. Driven through jsforce (inside the connector) over HTTP.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSalesforceConnector } from '../../connectors/salesforce/connector.js';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../connectors/salesforce/sandbox/server.js';
import { CrmError } from '../../src/core/connector.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const connectorOn = (sandbox: SalesforceSandbox, orgId?: string) =>
  createSalesforceConnector({
    auth: { kind: 'token', instanceUrl: sandbox.url, accessToken: sandbox.accessToken },
    ...(orgId ? { orgId } : {}),
  });

describe('Salesforce sandbox kept in a data directory', () => {
  it('finds its records and custom fields again after a restart, and never reuses an id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crm-enrich-org-'));
    dirs.push(dir);
    const customFields = { Lead: [{ name: 'Seniority__c', label: 'Seniority', type: 'string' as const, length: 40 }] };
    let sandbox = await startSalesforceSandbox({ dataDir: dir, customFields });
    let connector = connectorOn(sandbox);
    const lead = sandbox.createRecord('Lead', { LastName: 'Doe', Company: 'Acme' });
    await connector.writeRecords('Lead', [{ id: lead, properties: { Seniority__c: 'senior' } }]);
    await connector.close();
    await sandbox.close();
    expect(readdirSync(dir)).toEqual([`salesforce-org-${sandbox.orgId}.json`]);

    sandbox = await startSalesforceSandbox({ dataDir: dir });
    connector = connectorOn(sandbox);
    const [read] = await connector.readRecords('Lead', [lead], ['LastName', 'Company', 'Seniority__c']);
    expect(read?.properties).toMatchObject({ LastName: 'Doe', Company: 'Acme', Seniority__c: 'senior' });
    const next = sandbox.createRecord('Lead', { LastName: 'Roe', Company: 'Acme' });
    expect(next).not.toBe(lead);
    expect(sandbox.records('Lead').map((r) => r.Id)).toEqual([lead, next]);
    await connector.close();
    await sandbox.close();
  });

  it('tells the connector its org id through UserInfo, and refuses another than the one configured', async () => {
    const orgId = '00D5e0000012345';
    const sandbox = await startSalesforceSandbox({ orgId });
    expect(sandbox.orgId).toMatch(/^00D5e0000012345[A-Z0-5]{3}$/);
    const connector = connectorOn(sandbox);
    expect(await connector.readAccount()).toBe(sandbox.orgId);
    const wrong = connectorOn(sandbox, '00D8d0000000001');
    await expect(wrong.readAccount()).rejects.toThrow(CrmError);
    await expect(wrong.readAccount()).rejects.toThrow(/belong to org 00D5e0000012345/);
    // An OAuth session: the token answer's identity URL names the org, so no UserInfo call is needed.
    const oauth = createSalesforceConnector({
      auth: { kind: 'client_credentials', loginUrl: sandbox.url, clientId: 'sandbox', clientSecret: 'sandbox' },
    });
    expect(await oauth.readAccount()).toBe(sandbox.orgId);
    expect(oauth.stats().byOperation.userinfo).toBeUndefined();
    expect(connector.stats().byOperation.userinfo).toBe(1);
    await oauth.close();
    const refused = await fetch(`${sandbox.url}/services/oauth2/userinfo`, { headers: { authorization: 'Bearer x' } });
    expect(refused.status).toBe(403);
    await Promise.all([connector.close(), wrong.close()]);
    await sandbox.close();
  });
});
