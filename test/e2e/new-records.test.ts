/**
 * A record created in a CRM sandbox reaches the service through the CRM's own webhook, and within
 * seconds carries the partner's data, with state and audit rows to show for it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { IMPORTER_TOKEN } from '../../connectors/hubspot/sandbox/server.js';
import { PRIORITY } from '../../src/store/queue.js';
import { dropSchema } from './probes.js';
import {
  eventually,
  partnerPeople,
  startSandboxes,
  startService,
  type RunningService,
  type Sandboxes,
} from './stack.js';

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
    await dropSchema(running?.schema);
  });

  it(
    "enriches what another app or a script reusing crm-enrich's token creates through the API, " +
      "one at a time as a person's work",
    async () => {
      const [script, app, typed] = partnerPeople(sandboxes, 3, 500);
      const create = (token: string, email: string) =>
        fetch(`${sandboxes.hubspot.url}/crm/v3/objects/contacts`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ properties: { email } }),
        }).then(async (r) => ((await r.json()) as { id: string }).id);
      const foreignBefore = (await running.admin<{ today: { foreignTokenChanges: number } }>('GET', '/stats')).body
        .today.foreignTokenChanges;
      const byScript = await create('sandbox-token', script!.workEmail!);
      const byApp = await create(IMPORTER_TOKEN, app!.workEmail!);
      const byPerson = sandboxes.hubspot.createContact({ email: typed!.workEmail! }).id;
      const enriched = (id: string) => !!sandboxes.hubspot.getContact(id)?.crm_enrich_partner_id;
      await eventually(
        () => ([byScript, byApp, byPerson].every(enriched) ? true : undefined),
        10_000,
        'the three contacts to be enriched',
      );
      // One record from an app, alone, is a person's tool at work (a web form, a sales tool): interactive.
      const jobs = await running.service.parts.store.db.query<{ id: string; priority: number }>(
        `SELECT data->>'recordId' AS id, priority FROM "${running.schema}".job ` +
          `WHERE name = 'enrich.hubspot.contact' AND data->>'recordId' = ANY($1)`,
        [[byScript, byApp, byPerson]],
      );
      expect(jobs.rows.map((r) => r.priority)).toEqual([
        PRIORITY.interactive,
        PRIORITY.interactive,
        PRIORITY.interactive,
      ]);
      // The script's creation was made with the service's token without being the service's: counted.
      const stats = await running.admin<{ today: { foreignTokenChanges: number } }>('GET', '/stats');
      expect(stats.body.today.foreignTokenChanges).toBe(foreignBefore + 1);
    },
  );

  it('enriches a contact created in HubSpot within 5 s, with state and audit rows', async () => {
    const [person] = partnerPeople(sandboxes, 1);
    const profile = person!.person;
    const created = sandboxes.hubspot.createContact({ email: person!.workEmail! });
    const started = Date.now();
    const enriched = await eventually(
      () => {
        const c = sandboxes.hubspot.getContact(created.id);
        return c?.jobtitle ? c : undefined;
      },
      5_000,
      'the contact to be enriched',
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(enriched.jobtitle).toBe(profile.position);
    expect(enriched.firstname).toBe(profile.first_name);
    expect(enriched.crm_enrich_partner_id).toBe(profile.id);
    expect(enriched.crm_enrich_enriched_at).toBeTruthy();

    const record = await eventually(async () => {
      const r = await running.admin<{
        state: { status: string; partnerId: string };
        audit: { property: string | null; newValue: string | null }[];
      }>('GET', `/records/hubspot/contact/${created.id}`);
      return r.status === 200 && r.body.audit.length ? r.body : undefined;
    });
    expect(record.state.status).toBe('enriched');
    expect(record.state.partnerId).toBe(profile.id);
    expect(record.audit.find((a) => a.property === 'jobtitle')?.newValue).toBe(profile.position);
  });

  it('enriches a Lead created in Salesforce within 5 s, with state and audit rows', async () => {
    const [person] = partnerPeople(sandboxes, 1, 1);
    const profile = person!.person;
    const id = sandboxes.salesforce.createRecord('Lead', {
      Email: person!.workEmail!,
      LastName: 'Unknown',
      Company: 'Unknown',
    });
    const started = Date.now();
    const lead = await eventually(
      () => {
        const l = sandboxes.salesforce.getRecord('Lead', id);
        return l?.Title ? l : undefined;
      },
      5_000,
      'the Lead to be enriched',
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(lead.Title).toBe(profile.position);
    const record = await eventually(async () => {
      const r = await running.admin<{ state: { status: string }; audit: { property: string | null }[] }>(
        'GET',
        `/records/salesforce/Lead/${id}`,
      );
      return r.status === 200 && r.body.audit.length ? r.body : undefined;
    });
    expect(record.state.status).toBe('enriched');
    expect(record.audit.some((a) => a.property === 'Title')).toBe(true);
  });
});
