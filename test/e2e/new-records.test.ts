/**
 * A record created in a CRM sandbox reaches the service through the CRM's own webhook, and within
 * seconds carries the partner's data, with state and audit rows to show for it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { eventually, partnerPeople, startSandboxes, startService, type RunningService, type Sandboxes } from './stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping end-to-end tests: ${skip}`);

describe.skipIf(skip)('new records', () => {
  let sandboxes: Sandboxes;
  let running: RunningService;

  beforeAll(async () => {
    sandboxes = await startSandboxes();
    running = await startService(sandboxes);
  });
  afterAll(async () => {
    await running?.stop();
    await sandboxes?.close();
  });

  it('enriches a contact created in HubSpot within 5 s, with state and audit rows', async () => {
    const [person] = partnerPeople(sandboxes, 1);
    const profile = person!.person;
    const created = sandboxes.hubspot.createContact({ email: person!.workEmail! });
    const started = Date.now();
    const enriched = await eventually(() => {
      const c = sandboxes.hubspot.getContact(created.id);
      return c?.jobtitle ? c : undefined;
    }, 5_000, 'the contact to be enriched');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(enriched.jobtitle).toBe(profile.position);
    expect(enriched.firstname).toBe(profile.first_name);
    expect(enriched.crm_enrich_partner_id).toBe(profile.id);
    expect(enriched.crm_enrich_enriched_at).toBeTruthy();

    const record = await eventually(async () => {
      const r = await running.admin<{ state: { status: string; partnerId: string }; audit: { property: string | null; newValue: string | null }[] }>('GET', `/records/hubspot/contact/${created.id}`);
      return r.status === 200 && r.body.audit.length ? r.body : undefined;
    });
    expect(record.state.status).toBe('enriched');
    expect(record.state.partnerId).toBe(profile.id);
    expect(record.audit.find((a) => a.property === 'jobtitle')?.newValue).toBe(profile.position);
  });

  it('enriches a Lead created in Salesforce within 5 s, with state and audit rows', async () => {
    const [person] = partnerPeople(sandboxes, 1, 1);
    const profile = person!.person;
    const id = sandboxes.salesforce.createRecord('Lead', { Email: person!.workEmail!, LastName: 'Unknown', Company: 'Unknown' });
    const started = Date.now();
    const lead = await eventually(() => {
      const l = sandboxes.salesforce.getRecord('Lead', id);
      return l?.Title ? l : undefined;
    }, 5_000, 'the Lead to be enriched');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(lead.Title).toBe(profile.position);
    const record = await eventually(async () => {
      const r = await running.admin<{ state: { status: string }; audit: { property: string | null }[] }>('GET', `/records/salesforce/Lead/${id}`);
      return r.status === 200 && r.body.audit.length ? r.body : undefined;
    });
    expect(record.state.status).toBe('enriched');
    expect(record.audit.some((a) => a.property === 'Title')).toBe(true);
  });
});
