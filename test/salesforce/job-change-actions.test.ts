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
/** An org without Contacts to Multiple Accounts. */
let single: SalesforceSandbox;
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
  single = await startSalesforceSandbox({
    contactsToMultipleAccounts: false,
    customFields: { Contact: describeFieldsFor([...fields.Contact!]) },
  });
});
afterAll(async () => {
  await Promise.all(connectors.map((c) => c.close()));
  await Promise.all([sandbox?.close(), bare?.close(), single?.close()]);
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

  it("moves the Contact's AccountId to the new employer, keeping the old Account as an inactive relation", async () => {
    const salesforce = connect(sandbox);
    const acme = sandbox.createRecord('Account', { Name: 'Acme', Website: 'acme.example' });
    const globex = sandbox.createRecord('Account', { Name: 'Globex', Website: 'globex.example' });
    const id = sandbox.createRecord('Contact', { LastName: 'Cy', Email: 'cy@acme.example', AccountId: acme });
    const relations = () =>
      sandbox
        .records('AccountContactRelation')
        .filter((r) => r.ContactId === id)
        .map((r) => ({ account: r.AccountId, direct: r.IsDirect, active: r.IsActive, ended: r.EndDate ?? null }));
    expect(relations()).toEqual([{ account: acme, direct: true, active: true, ended: null }]);

    const move = { ...act(id), previousCompanyId: acme, newCompanyId: globex };
    const only = { properties: false, task: false, employer: true };
    expect(await salesforce.applyJobChange!('Contact', move, only)).toEqual({ employer: 'done' });
    expect(sandbox.getRecord('Contact', id)).toMatchObject({ AccountId: globex, Email: 'cy@acme.example' });
    expect(relations()).toEqual(
      expect.arrayContaining([
        { account: globex, direct: true, active: true, ended: null },
        { account: acme, direct: false, active: false, ended: '2026-11-20' },
      ]),
    );
    expect(relations()).toHaveLength(2);
    expect(sandbox.getRecord('Contact', id)?.CE_Previous_Account__c ?? null).toBeNull();

    // An indirect relationship an admin made with the Account left is ended, not made twice.
    const initech = sandbox.createRecord('Account', { Name: 'Initech', Website: 'initech.example' });
    const again = { ...move, previousCompanyId: globex, newCompanyId: initech };
    sandbox.createRecord('AccountContactRelation', { AccountId: initech, ContactId: id });
    expect(await salesforce.applyJobChange!('Contact', again, only)).toEqual({ employer: 'done' });
    expect(relations()).toHaveLength(3);
    expect(relations()).toEqual(
      expect.arrayContaining([
        { account: initech, direct: true, active: true, ended: null },
        { account: globex, direct: false, active: false, ended: '2026-11-20' },
      ]),
    );

    expect(await salesforce.applyJobChange!('Lead', move, only)).toEqual({
      employer: 'skipped: a Lead has no Account',
    });
    expect(
      await salesforce.applyJobChange!(
        'Contact',
        { ...move, newCompanyId: null, newCompanyReason: 'creation is off' },
        only,
      ),
    ).toEqual({ employer: 'skipped: creation is off' });
  });

  it('keeps the old Account in CE_Previous_Account__c where the org has no AccountContactRelation', async () => {
    const salesforce = connect(single);
    const acme = single.createRecord('Account', { Name: 'Acme', Website: 'acme.example' });
    const globex = single.createRecord('Account', { Name: 'Globex', Website: 'globex.example' });
    const id = single.createRecord('Contact', { LastName: 'Di', Email: 'di@acme.example', AccountId: acme });
    const move = { ...act(id), previousCompanyId: acme, newCompanyId: globex };
    expect(
      await salesforce.applyJobChange!('Contact', move, { properties: false, task: false, employer: true }),
    ).toEqual({
      employer: 'done',
    });
    expect(single.getRecord('Contact', id)).toMatchObject({
      AccountId: globex,
      CE_Previous_Account__c: acme,
      Email: 'di@acme.example',
    });
    const describe = await fetch(`${single.url}/services/data/v62.0/sobjects/AccountContactRelation/describe`, {
      headers: { authorization: `Bearer ${single.accessToken}` },
    });
    expect(describe.status).toBe(404);
  });

  it('creates a Contact at the new employer once, never beside a Contact or Lead with the address', async () => {
    const salesforce = connect(sandbox);
    const globex = sandbox.createRecord('Account', { Name: 'Globex', Website: 'globex-new.example' });
    const id = sandbox.createRecord('Contact', { LastName: 'Park', Email: 'di@acme.example' });
    const newContact = { email: 'di.park@globex-new.example', firstName: 'Di', lastName: 'Park' };
    const move = { ...act(id), newCompanyId: globex, newContact };
    const only = { properties: false, task: false, newContact: true };
    const holders = () => sandbox.records('Contact').filter((c) => c.Email === newContact.email);
    expect(await salesforce.applyJobChange!('Contact', move, only)).toEqual({ newContact: 'done' });
    expect(holders()).toHaveLength(1);
    expect(holders()[0]).toMatchObject({ FirstName: 'Di', LastName: 'Park', Title: 'VP Sales', AccountId: globex });
    expect(await salesforce.applyJobChange!('Contact', move, only)).toEqual({
      newContact: 'skipped: a Contact has the work e-mail already',
    });
    const lead = { ...newContact, email: 'lead.park@globex-new.example' };
    sandbox.createRecord('Lead', { LastName: 'Park', Company: 'Globex', Email: lead.email });
    expect(await salesforce.applyJobChange!('Contact', { ...move, newContact: lead }, only)).toEqual({
      newContact: 'skipped: a Lead has the work e-mail already',
    });
    expect(holders()).toHaveLength(1);
    expect(sandbox.getRecord('Contact', id)?.Email).toBe('di@acme.example');
  });
});
