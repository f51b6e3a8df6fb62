/**
 * Salesforce job-change actions through jsforce against the sandbox: the CE_* fields written (never
 * Email), a Task for the record's owner with WhoId the Contact or Lead and the move in its subject,
 * each action only when on, and a missing field reported by its code without Salesforce's text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSalesforceConnector } from '../../connectors/salesforce/connector.js';
import { describeFieldsFor } from '../../connectors/salesforce/sandbox/fields-from-specs.js';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../connectors/salesforce/sandbox/server.js';
import type { CrmConnector, JobChangeAct } from '../../src/core/connector.js';

let sandbox: SalesforceSandbox;
let bare: SalesforceSandbox;
const connectors: CrmConnector[] = [];
const connect = (s: SalesforceSandbox) => {
  const c = createSalesforceConnector({
    auth: { kind: 'token', instanceUrl: s.url, accessToken: s.accessToken },
    orgId: s.orgId,
    apiReserve: 0,
  });
  connectors.push(c);
  return c;
};

beforeAll(async () => {
  const probe = connect(await startSalesforceSandbox()); // only to read the field specs the connector declares
  const fields = probe.jobChangeProperties!;
  sandbox = await startSalesforceSandbox({
    customFields: { Contact: describeFieldsFor([...fields.Contact!]), Lead: describeFieldsFor([...fields.Lead!]) },
  });
  bare = await startSalesforceSandbox();
});
afterAll(async () => {
  await Promise.all(connectors.map((c) => c.close()));
  await Promise.all([sandbox?.close(), bare?.close()]);
});

const act = (recordId: string): JobChangeAct => ({
  recordId,
  from: { name: 'Acme Pty Ltd', domain: 'acme.example' },
  to: { name: null, domain: 'globex.example' },
  oldTitle: 'Sales Manager',
  newTitle: 'VP Sales',
  detectedAt: new Date('2026-11-20T10:00:00Z'),
});

describe('Salesforce job-change actions', () => {
  it('writes the CE_ fields and creates one Task for the owner with WhoId the Contact', async () => {
    const salesforce = connect(sandbox);
    const id = sandbox.createRecord('Contact', { FirstName: 'Ann', LastName: 'Lee', Email: 'ann.lee@acme.example' });
    expect(await salesforce.applyJobChange!('Contact', act(id), { properties: true, task: true })).toEqual({
      properties: 'done',
      task: 'done',
    });
    const contact = sandbox.getRecord('Contact', id)!;
    expect(contact).toMatchObject({
      CE_Previous_Company__c: 'Acme Pty Ltd',
      CE_Previous_Title__c: 'Sales Manager',
      Email: 'ann.lee@acme.example',
    });
    expect(Date.parse(String(contact.CE_Job_Change_At__c))).toBe(Date.parse('2026-11-20T10:00:00Z'));
    const tasks = sandbox.records('Task').filter((t) => t.WhoId === id);
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({
      Subject: 'Ann Lee moved from Acme Pty Ltd to globex.example as VP Sales',
      Status: 'Not Started',
      OwnerId: contact.OwnerId,
    });
  });

  it('acts on a Lead too, and only as switched on', async () => {
    const salesforce = connect(sandbox);
    const id = sandbox.createRecord('Lead', { LastName: 'Ng', Company: 'Acme' });
    expect(await salesforce.applyJobChange!('Lead', act(id), { properties: false, task: true })).toEqual({
      task: 'done',
    });
    expect(sandbox.getRecord('Lead', id)?.CE_Previous_Company__c ?? null).toBeNull();
    expect(sandbox.records('Task').filter((t) => t.WhoId === id)).toHaveLength(1);
    expect(await salesforce.applyJobChange!('Account', act(id), { properties: true, task: true })).toEqual({});
  });

  it('reports fields the org lacks as failed, by code only, and still creates the Task', async () => {
    const salesforce = connect(bare);
    const id = bare.createRecord('Contact', { LastName: 'Bo' });
    const result = await salesforce.applyJobChange!('Contact', act(id), { properties: true, task: true });
    expect(result.properties).toMatch(/^failed: [A-Za-z_]+$/);
    expect(result.task).toBe('done');
  });
});
