/**
 * The service killed with SIGKILL in the middle of a backfill and started again finishes it: every
 * contact ends with its partner data, and no (record, property, value) reaches HubSpot twice, because
 * the restarted service reads what the dead one already wrote and finds nothing left to write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { jobStates, killAll, processSchema, serviceEnv, startServiceProcess, type ServiceProcess } from './process.js';
import { eventually, partnerPeople, startSandboxes, type Sandboxes } from './stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping the backfill crash test: ${skip}`);

const CONTACTS = 300;
const QUEUE = 'enrich.hubspot.contact';

describe.skipIf(skip)('a backfill survives SIGKILL', () => {
  let sandboxes: Sandboxes;
  const schema = processSchema();

  beforeAll(async () => {
    sandboxes = await startSandboxes();
  });
  afterAll(async () => {
    await killAll([schema]);
    await sandboxes?.close();
  });

  it('finishes after a restart with no contact lost and no value written twice', async () => {
    const people = partnerPeople(sandboxes, CONTACTS);
    expect(people).toHaveLength(CONTACTS);
    const contacts = people.map((p) => ({
      id: sandboxes.hubspot.createContact({ email: p.workEmail! }).id,
      profile: p.person,
    }));
    sandboxes.hubspot.recordWrites();
    // A dead worker's claims come back after 6 s: longer than a live batch takes, short enough for a test.
    // Employers' companies are created and counted in employers.test.ts; this file counts contacts alone.
    const env = serviceEnv(sandboxes, schema, {
      CRM_ENRICH_JOB_EXPIRE_SECONDS: '6',
      CRM_ENRICH_JOB_RETRY_DELAY_SECONDS: '1',
      HUBSPOT_CREATE_COMPANIES: 'false',
    });

    const first: ServiceProcess = await startServiceProcess(env);
    const started = await first.admin<{ status: string }>('POST', '/backfills', {
      connection: 'hubspot',
      object: 'contact',
    });
    expect(started.status).toBe(202);
    await eventually(
      () => (sandboxes.hubspot.writes().length > 0 ? true : undefined),
      20_000,
      'the first write of the backfill',
    );
    first.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const writtenBeforeCrash = new Set(sandboxes.hubspot.writes().map((w) => w.id));
    expect(writtenBeforeCrash.size).toBeGreaterThan(0);
    expect(writtenBeforeCrash.size).toBeLessThan(CONTACTS);
    // Claimed and never settled: only the queue's expiry can hand these out again.
    expect((await jobStates(schema, QUEUE)).active ?? 0).toBeGreaterThan(0);

    const second = await startServiceProcess(env);
    await eventually(
      async () => {
        const progress = await second.admin<{ done: boolean }>('GET', '/backfills/hubspot/contact');
        return progress.body.done ? true : undefined;
      },
      45_000,
      'the backfill to finish after the restart',
    );

    for (const { id, profile } of contacts) {
      const contact = sandboxes.hubspot.getContact(id);
      expect(contact?.crm_enrich_partner_id, `contact ${id}`).toBe(profile.id);
      if (profile.position) expect(contact?.jobtitle, `contact ${id}`).toBe(profile.position);
      if (profile.first_name) expect(contact?.firstname, `contact ${id}`).toBe(profile.first_name);
    }

    const seen = new Map<string, number>();
    for (const write of sandboxes.hubspot.writes()) {
      for (const [property, value] of Object.entries(write.properties)) {
        const key = `${write.id} ${property}=${String(value)}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
    }
    const repeated = [...seen].filter(([, n]) => n > 1).map(([key]) => key);
    expect(repeated).toEqual([]);
    expect(new Set(sandboxes.hubspot.writes().map((w) => w.id)).size).toBe(CONTACTS);

    const states = await jobStates(schema, QUEUE);
    expect(states.active ?? 0).toBe(0);
    expect((states.created ?? 0) + (states.retry ?? 0)).toBe(0);
    expect(second.output()).not.toContain('sandbox-token');
  }, 90_000);
});
