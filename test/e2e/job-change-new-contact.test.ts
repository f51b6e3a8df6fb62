/**
 * The newContact job-change action end to end on HubSpot, switched on in an actions file of the test's
 * own: a moved contact whose partner record knows a work e-mail at the new employer gets a new contact
 * there, linked with the new company, once; a second sweep makes none again, the moved contact keeps its
 * e-mail, and a contact already holding the new address is never doubled.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { dropSchema, jobsInFlight, settled, stateReaches } from './probes.js';
import {
  eventually,
  partnerPeople,
  startSandboxes,
  startService,
  type RunningService,
  type Sandboxes,
} from './stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping the newContact end-to-end test: ${skip}`);

describe.skipIf(skip)('job changes: a new contact at the new employer', () => {
  let dir: string;
  let sandboxes: Sandboxes;
  let running: RunningService;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'job-change-new-contact-'));
    await cp('mappings', dir, { recursive: true });
    const file = join(dir, 'job-changes.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replaceAll('newContact: false', 'newContact: true'));
    sandboxes = await startSandboxes({ people: 1_000, companies: 150 });
    running = await startService(sandboxes, { mappingsDir: dir });
  });
  afterAll(async () => {
    await running?.stop();
    await sandboxes?.close();
    await dropSchema(running?.schema);
    await rm(dir, { recursive: true, force: true });
  });
  const stack = {
    get running() {
      return running;
    },
    get sandboxes() {
      return sandboxes;
    },
  };
  const drained = async (what: string) => {
    await eventually(async () => ((await jobsInFlight(running)) === 0 ? true : undefined), 120_000, what);
    await settled(stack, 60_000);
  };
  const sweep = () =>
    running.admin<{ enqueued: number }>('POST', '/job-changes/sweep', {
      connection: 'hubspot',
      object: 'contact',
      segment: { property: 'lifecyclestage', value: 'customer' },
      olderThanDays: 0,
    });

  it('creates one contact per move where the partner knows the new address, never a second', async () => {
    const { hubspot, partner } = sandboxes;
    const contacts = partnerPeople(sandboxes, 10).map((p) => ({
      person: p,
      email: p.workEmail!,
      id: hubspot.createContact({
        email: p.workEmail!,
        firstname: p.person.first_name!,
        lastname: p.person.last_name!,
        lifecyclestage: 'customer',
      }).id,
    }));
    for (const c of contacts)
      await stateReaches(running, { connection: 'hubspot', objectType: 'contact', recordId: c.id }, 'enriched', 60_000);
    await settled(stack, 60_000);

    const movers = contacts.slice(0, 4);
    const answer = await fetch(`${partner.url}/__sandbox/job-changes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ personIds: movers.map((c) => c.person.id), seed: 3 }),
    });
    const { moved } = (await answer.json()) as { moved: { personId: string; to: { domain: string } }[] };
    expect(moved).toHaveLength(4);
    // One mover's new address is in the CRM already (someone added them by hand): no second contact for it.
    const known = movers[3]!;
    const knownAddress = known.person.workEmail!;
    expect(knownAddress).not.toBe(known.email);
    const handMade = hubspot.createContact({ email: knownAddress, lifecyclestage: 'lead' }).id;
    await stateReaches(
      running,
      { connection: 'hubspot', objectType: 'contact', recordId: handMade },
      'enriched',
      60_000,
    );
    await settled(stack, 60_000);
    const before = hubspot.store.objects.contacts.size;

    expect((await sweep()).body.enqueued).toBe(10);
    await drained('the sweep');
    const { body } = await running.admin<{ jobChanges: { recordId: string; actions: Record<string, string> }[] }>(
      'GET',
      '/job-changes?limit=100',
    );
    expect(new Set(body.jobChanges.map((j) => j.recordId))).toEqual(new Set(movers.map((c) => c.id)));
    const created = [...hubspot.store.objects.contacts.values()].slice(before);
    for (const c of movers) {
      expect(hubspot.getContact(c.id)?.email, 'the moved contact keeps its e-mail').toBe(c.email);
      const to = moved.find((m) => m.personId === c.person.id)!.to.domain;
      const mine = created.filter((o) => String(o.properties.get('email')).endsWith(`@${to}`));
      if (c === known) {
        expect(mine, 'no second contact for an address the CRM has').toHaveLength(0);
        continue;
      }
      expect(mine, `one new contact at ${to}`).toHaveLength(1);
      expect(mine[0]!.properties.get('email')).toBe(c.person.workEmail);
      const company = hubspot.getContact(mine[0]!.id)?.associatedcompanyid;
      expect(hubspot.getCompany(company!)?.domain).toBe(to);
      expect(hubspot.getContact(c.id)?.associatedcompanyid).toBe(company);
    }
    expect(created).toHaveLength(3);
    const outcome = (id: string) => body.jobChanges.find((j) => j.recordId === id)!.actions.newContact;
    expect(outcome(known.id)).toBe('skipped: a contact has the work e-mail already');
    for (const c of movers.slice(0, 3)) expect(outcome(c.id)).toBe('done');

    // The partner's address at the new employer is now a contact of its own: a second sweep adds nobody.
    await sweep();
    await drained('the second sweep');
    expect(hubspot.store.objects.contacts.size).toBe(before + 3);
    const emails = [...hubspot.store.objects.contacts.values()].map((o) => o.properties.get('email'));
    expect(new Set(emails).size, 'no contact twice').toBe(emails.length);
  }, 300_000);
});
