/**
 * A backfill whose segment is a HubSpot list: only the list's members are enriched, through the admin
 * API against the HubSpot and partner sandboxes over HTTP; an unknown list is refused at once, naming
 * the field.
 */
import { describe, expect, it } from 'vitest';
import { eventually, partnerPeople } from './stack.js';
import { useStack } from './use-stack.js';

describe('backfill of a HubSpot list', () => {
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

  it('refuses a list the portal does not have, naming listId', async () => {
    const refused = await stack.running.admin<{ error: { code: string; details: { field: string } } }>(
      'POST',
      '/backfills',
      { connection: 'hubspot', object: 'contact', listId: '9999' },
    );
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ code: 'unknown_list', details: { field: 'listId' } });
  });
});
