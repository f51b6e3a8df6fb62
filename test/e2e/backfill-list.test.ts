/**
 * A HubSpot list as a segment, through the admin API against the HubSpot and partner sandboxes over HTTP:
 * a backfill of a list's members by id (and no other record), its dry run with the credits it may spend,
 * a backfill by the list's name, a refresh of a list; an unknown list is refused at once, naming the field.
 * And a Salesforce list view by its label and a report by id, against the Salesforce sandbox.
 */
import { describe, expect, it } from 'vitest';
import { eventually, partnerPeople } from './stack.js';
import { useStack } from './use-stack.js';

describe('a CRM list as a segment', () => {
  const stack = useStack({ sandboxes: { people: 200, companies: 40 } });

  it('enriches the members of the list and no other record', async () => {
    const hubspot = stack.sandboxes.hubspot;
    // Created with no webhook to tell the service, as records that were in the portal before it.
    hubspot.setWebhookUrl(undefined);
    const ids = partnerPeople(stack.sandboxes, 5).map((p) => hubspot.createContact({ email: p.workEmail! }).id);
    hubspot.setWebhookUrl(`${stack.running.url}/webhooks/hubspot`);
    const listId = hubspot.createList(ids.slice(0, 2));
    const started = await stack.running.admin('POST', '/backfills', {
      connection: 'hubspot',
      object: 'contact',
      listId,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const partnerId = (id: string) => hubspot.store.objects.contacts.get(id)?.properties.get('crm_enrich_partner_id');
    await eventually(() => (ids.slice(0, 2).every((id) => partnerId(id)) ? true : undefined), 30_000, 'the members');
    const progress = await stack.running.admin<{ listed: number; status: string }>('GET', '/backfills/hubspot/contact');
    expect(progress.body).toMatchObject({ listed: 2, status: 'listed' });
    expect(ids.slice(2).map(partnerId)).toEqual([undefined, undefined, undefined]);
  }, 60_000);

  /** Until no job of the object waits or runs: each record's state is stored. */
  const idle = () =>
    eventually(
      async () => {
        const p = await stack.running.admin<{ done: boolean }>('GET', '/backfills/hubspot/contact');
        return p.body.done ? true : undefined;
      },
      30_000,
      'the jobs settled',
    );

  it('dry-runs and backfills a list given by name, then refreshes it without spending a credit twice', async () => {
    const hubspot = stack.sandboxes.hubspot;
    const partnerCalls = () => stack.sandboxes.partner.stats().byEndpoint['GET /people'] ?? 0;
    hubspot.setWebhookUrl(undefined);
    const ids = partnerPeople(stack.sandboxes, 4, 10).map((p) => hubspot.createContact({ email: p.workEmail! }).id);
    hubspot.setWebhookUrl(`${stack.running.url}/webhooks/hubspot`);
    hubspot.createList(ids.slice(0, 3), { name: 'Trade fair 2026' });
    const before = partnerCalls();
    const dry = await stack.running.admin<{ listId: string; listed: number; wouldEnrich: number; credits: number }>(
      'POST',
      '/backfills/dry-run',
      { connection: 'hubspot', object: 'contact', listName: 'trade fair 2026' },
    );
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    // At most two keys a record: its e-mail as a work address, then as a personal one, if the first finds nobody.
    expect(dry.body).toMatchObject({ listed: 3, wouldEnrich: 3, credits: 6 });
    expect(partnerCalls()).toBe(before);

    const started = await stack.running.admin('POST', '/backfills', {
      connection: 'hubspot',
      object: 'contact',
      listName: 'Trade fair 2026',
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const partnerId = (id: string) => hubspot.store.objects.contacts.get(id)?.properties.get('crm_enrich_partner_id');
    await eventually(() => (ids.slice(0, 3).every((id) => partnerId(id)) ? true : undefined), 30_000, 'the members');
    expect(partnerId(ids[3]!)).toBeUndefined();
    const spent = partnerCalls() - before;
    expect(spent).toBe(3);
    await idle();

    // A member never enriched is counted, not refreshed: enriching it is a backfill's work.
    const mixed = hubspot.createList([...ids.slice(0, 3), ids[3]!], { name: 'Fair and one more' });
    const refreshed = await stack.running.admin('POST', '/refresh', {
      connection: 'hubspot',
      object: 'contact',
      listId: mixed,
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(202);
    expect(refreshed.body).toMatchObject({ listId: mixed, members: 4, enqueued: 3, notEnriched: 1 });
    await idle();
    expect(partnerCalls() - before).toBe(spent);
  }, 60_000);

  it('refuses a list name the portal does not have, and a request naming a list twice', async () => {
    const unknown = await stack.running.admin<{ error: { code: string; details: { field: string } } }>(
      'POST',
      '/refresh',
      { connection: 'hubspot', object: 'contact', listName: 'No such fair' },
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'unknown_list', details: { field: 'listName' } });
    const both = await stack.running.admin<{ error: { details: { field: string } } }>('POST', '/backfills', {
      connection: 'hubspot',
      object: 'contact',
      listId: '1',
      listName: 'Trade fair 2026',
    });
    expect(both.status).toBe(400);
    expect(both.body.error.details.field).toBe('listName');
  });

  it('refuses a list the portal does not have, naming listId', async () => {
    const refused = await stack.running.admin<{ error: { code: string; details: { field: string } } }>(
      'POST',
      '/backfills',
      { connection: 'hubspot', object: 'contact', listId: '9999' },
    );
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ code: 'unknown_list', details: { field: 'listId' } });
    // A list of companies is no list of contacts: its ids would name other records.
    const companies = stack.sandboxes.hubspot.createList(['1'], { objectTypeId: '0-2' });
    const other = await stack.running.admin<{ error: { code: string; message: string } }>('POST', '/backfills', {
      connection: 'hubspot',
      object: 'contact',
      listId: companies,
    });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('unusable_list');
    expect(other.body.error.message).toContain('holds records of object type 0-2, not contacts');
    // The dry run and the refresh read the members at once, and refuse in the same words.
    for (const path of ['/backfills/dry-run', '/refresh']) {
      const also = await stack.running.admin<{ error: { code: string; details: { field: string } } }>('POST', path, {
        connection: 'hubspot',
        object: 'contact',
        listId: '9999',
      });
      expect(also.status, path).toBe(404);
      expect(also.body.error).toMatchObject({ code: 'unknown_list', details: { field: 'listId' } });
    }
  });

  it('backfills the members of a Salesforce list view given by label, and refreshes a report of them', async () => {
    const salesforce = stack.sandboxes.salesforce;
    const people = partnerPeople(stack.sandboxes, 4, 20);
    const ids = people.map((p, i) =>
      salesforce.createRecord(
        'Lead',
        { LastName: `Fair ${i}`, Company: 'Acme', Email: p.workEmail!, LeadSource: i < 2 ? 'Trade Fair' : 'Web' },
        { notify: false },
      ),
    );
    salesforce.createListView({
      objectType: 'Lead',
      developerName: 'Trade_Fair_Leads',
      label: 'Trade fair leads',
      where: "LeadSource = 'Trade Fair'",
    });
    const started = await stack.running.admin('POST', '/backfills', {
      connection: 'salesforce',
      object: 'Lead',
      listName: 'Trade fair leads',
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const partnerId = (id: string) => salesforce.getRecord('Lead', id)?.CE_Partner_Id__c;
    await eventually(() => (ids.slice(0, 2).every((id) => partnerId(id)) ? true : undefined), 30_000, 'the members');
    expect(ids.slice(2).map(partnerId)).toEqual([undefined, undefined]);
    await eventually(
      async () => {
        const p = await stack.running.admin<{ done: boolean }>('GET', '/backfills/salesforce/Lead');
        return p.body.done ? true : undefined;
      },
      30_000,
      'the jobs settled',
    );
    const report = salesforce.createReport({ objectType: 'Lead', name: 'Fair and web', where: "Company = 'Acme'" });
    const refreshed = await stack.running.admin('POST', '/refresh', {
      connection: 'salesforce',
      object: 'Lead',
      listId: report,
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(202);
    expect(refreshed.body).toMatchObject({ members: 4, enqueued: 2, notEnriched: 2 });
  }, 60_000);
});
