/**
 * HubSpot job-change actions through the official client against the sandbox: the job-change
 * properties provisioned and written (never the e-mail), one task for the contact's owner associated
 * with the contact and worded "<name> moved from <old> to <new> as <title>", each action only when on,
 * and a failure reported by its code without the CRM's text; the task is read back through its contact,
 * and the contact through the task, over the associations API. On both API versions.
 */
import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HUBSPOT_API_PATHS, HUBSPOT_API_VERSIONS } from '../../connectors/hubspot/api-version.js';
import { createHubspotConnector } from '../../connectors/hubspot/connector.js';
import { startHubspotSandbox, type HubspotSandbox } from '../../connectors/hubspot/sandbox/server.js';
import type { CrmConnector, JobChangeAct } from '../../src/core/connector.js';

const act = (recordId: string): JobChangeAct => ({
  recordId,
  from: { name: 'Acme Pty Ltd', domain: 'acme.example' },
  to: { name: 'Globex', domain: 'globex.example' },
  oldTitle: 'Sales Manager',
  newTitle: 'VP Sales',
  detectedAt: new Date('2026-11-20T10:00:00Z'),
});

describe.each(HUBSPOT_API_VERSIONS)('HubSpot job-change actions, API version %s', (version) => {
  const P = HUBSPOT_API_PATHS[version];
  let sandbox: HubspotSandbox;
  let hubspot: CrmConnector;

  beforeAll(async () => {
    sandbox = await startHubspotSandbox({ rateLimit: 10_000, searchLagMs: 0 });
    hubspot = createHubspotConnector({
      connection: 'hubspot',
      accessToken: 'sandbox-token',
      basePath: sandbox.url,
      rateLimit: { max: 1000, windowMs: 10_000 },
      apiVersion: version,
    });
  });
  afterAll(async () => {
    await hubspot.close();
    await sandbox.close();
  });

  /** The ids associated with `type` `id` of `toType`, read as a user reads them: GET of the object's associations. */
  async function associatedIds(type: string, id: string, toType: string): Promise<string[]> {
    const client = new Client({ accessToken: 'sandbox-token', basePath: sandbox.url, numberOfApiCallRetries: 0 });
    const res = await client.apiRequest({ path: `${P.objectAssociations}/${type}/${id}/associations/${toType}` });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: { toObjectId: number; associationTypes: { typeId: number }[] }[] };
    return body.results.map((r) => String(r.toObjectId));
  }

  it('are refused before the properties exist, then write them and create one task for the owner', async () => {
    const { id } = sandbox.createContact({
      email: 'ann.lee@acme.example',
      firstname: 'Ann',
      lastname: 'Lee',
      hubspot_owner_id: '',
    });
    const before = await hubspot.applyJobChange!('contact', act(id), { properties: true, task: false });
    expect(before).toEqual({ properties: 'failed: validation' });

    const provisioned = await hubspot.ensureProperties('contact', [...hubspot.jobChangeProperties!.contact!]);
    expect(provisioned.created.sort()).toEqual([
      'crm_enrich_job_change_at',
      'crm_enrich_previous_company',
      'crm_enrich_previous_title',
    ]);

    const result = await hubspot.applyJobChange!('contact', act(id), { properties: true, task: true });
    expect(result).toEqual({ properties: 'done', task: 'done' });
    const contact = sandbox.getContact(id)!;
    expect(contact).toMatchObject({
      crm_enrich_previous_company: 'Acme Pty Ltd',
      crm_enrich_previous_title: 'Sales Manager',
      email: 'ann.lee@acme.example',
    });
    expect(Date.parse(contact.crm_enrich_job_change_at!)).toBe(Date.parse('2026-11-20T10:00:00Z'));
    const tasks = sandbox.tasks().filter((t) => t.contacts.includes(id));
    expect(tasks).toHaveLength(1);
    expect(tasks[0]!.properties).toMatchObject({
      hs_task_subject: 'Ann Lee moved from Acme Pty Ltd to Globex as VP Sales',
      hs_task_status: 'NOT_STARTED',
    });
    // The task is on the contact's record, and the contact on the task's, as HubSpot's UI shows them.
    expect(await associatedIds('contacts', id, 'tasks')).toEqual([tasks[0]!.id]);
    expect(await associatedIds('tasks', tasks[0]!.id, 'contacts')).toEqual([id]);
    expect(await associatedIds('0-1', id, '0-27')).toEqual([tasks[0]!.id]);
  });

  it("gives the task to the contact's owner, and does only the actions switched on", async () => {
    const ownerId = '12345';
    const { id } = sandbox.createContact({ email: 'bo@acme.example', firstname: 'Bo' });
    sandbox.store.get('contacts', id)!.properties.set('hubspot_owner_id', ownerId);
    expect(await hubspot.applyJobChange!('contact', act(id), { properties: false, task: true })).toEqual({
      task: 'done',
    });
    expect(sandbox.getContact(id)?.crm_enrich_previous_company).toBeUndefined();
    const [task] = sandbox.tasks().filter((t) => t.contacts.includes(id));
    expect(task?.properties.hubspot_owner_id).toBe(ownerId);
    expect(await hubspot.applyJobChange!('contact', act(id), { properties: false, task: false })).toEqual({});
    expect(sandbox.tasks().filter((t) => t.contacts.includes(id))).toHaveLength(1);
  });

  it("reads a list's members a page of 250 at a time, and says not_found for an unknown list", async () => {
    const ids = Array.from({ length: 260 }, (_, i) => sandbox.createContact({ email: `member${i}@list.example` }).id);
    const listId = sandbox.createList(ids);
    const memberships = () => sandbox.stats().byEndpoint[`GET ${P.lists}/{id}/memberships`] ?? 0;
    const before = memberships();
    expect(await hubspot.listMembers!('contact', listId)).toEqual(ids);
    expect(memberships() - before).toBe(2);
    await expect(hubspot.listMembers!('contact', '999')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('reports a task for a contact that is gone as failed, by code only', async () => {
    const result = await hubspot.applyJobChange!('contact', act('99999999'), { properties: false, task: true });
    expect(result.task).toMatch(/^failed: [a-z_]+$/);
    expect(await hubspot.applyJobChange!('company', act('1'), { properties: true, task: true })).toEqual({});
  });

  it('moves the contact to the new employer as primary and labels the old company "Former employee"', async () => {
    const acme = sandbox.createCompany({ name: 'Acme Pty Ltd', domain: 'acme-move.example' }).id;
    const globex = sandbox.createCompany({ name: 'Globex', domain: 'globex-move.example' }).id;
    const { id } = sandbox.createContact({ email: 'cy@acme-move.example', firstname: 'Cy' });
    sandbox.store.associations.add(id, acme, [1]);
    const move = { ...act(id), previousCompanyId: acme, newCompanyId: globex };
    const only = { properties: false, task: false, employer: true };

    expect(await hubspot.applyJobChange!('contact', move, only)).toEqual({
      employer: expect.stringMatching(/^failed: label_missing .*mappings provision/),
    });
    expect(sandbox.getContact(id)?.associatedcompanyid).toBe(acme);
    expect(await hubspot.provisionJobChangeSchema!()).toEqual([expect.stringMatching(/^created association label/)]);
    expect(await hubspot.provisionJobChangeSchema!()).toEqual([expect.stringMatching(/already there$/)]);

    expect(await hubspot.applyJobChange!('contact', move, only)).toEqual({ employer: 'done' });
    expect(sandbox.getContact(id)).toMatchObject({ associatedcompanyid: globex, email: 'cy@acme-move.example' });
    const labels = Object.fromEntries(
      sandbox.store.associations.associated('contacts', id).map((a) => [a.id, a.types.map((t) => t.label).sort()]),
    );
    expect(labels).toEqual({ [acme]: ['Former employee', null], [globex]: ['Primary', null] });

    const none = await hubspot.applyJobChange!(
      'contact',
      { ...move, newCompanyId: null, newCompanyReason: 'creation is off' },
      only,
    );
    expect(none).toEqual({ employer: 'skipped: creation is off' });
  });

  it('creates a contact at the new employer once, never beside one that has the address', async () => {
    const globex = sandbox.createCompany({ name: 'Globex', domain: 'globex-new.example' }).id;
    const { id } = sandbox.createContact({ email: 'di@acme.example', firstname: 'Di' });
    const newContact = { email: 'di.park@globex-new.example', firstName: 'Di', lastName: 'Park' };
    const move = { ...act(id), newCompanyId: globex, newContact };
    const only = { properties: false, task: false, newContact: true };
    const holders = () =>
      [...sandbox.store.objects.contacts.values()].filter((o) => o.properties.get('email') === newContact.email);

    expect(await hubspot.applyJobChange!('contact', move, only)).toEqual({ newContact: 'done' });
    expect(holders()).toHaveLength(1);
    const created = holders()[0]!.id;
    expect(sandbox.getContact(created)).toMatchObject({
      firstname: 'Di',
      lastname: 'Park',
      jobtitle: 'VP Sales',
      associatedcompanyid: globex,
    });
    expect(await hubspot.applyJobChange!('contact', move, only)).toEqual({
      newContact: 'skipped: a contact has the work e-mail already',
    });
    expect(holders()).toHaveLength(1);
    expect(sandbox.getContact(id)?.email).toBe('di@acme.example');
    expect(await hubspot.applyJobChange!('contact', { ...move, newContact: null }, only)).toEqual({
      newContact: 'skipped: the partner knows no work e-mail at the new employer',
    });
  });
});
