/**
 * Job changes end to end on HubSpot: 200 enriched customer contacts (and a few leads outside the
 * segment), 20% of the customers moved in the partner sandbox; one sweep over lifecycle stage =
 * customer finds every move and flags no one who stayed (precision and recall 1.0), asks the partner
 * nothing beyond one lookup per swept person, creates one task per move, leaves no duplicate contact or
 * company, and keeps every old e-mail. The moves are listed by the admin API and counted by the metric.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { sweep } from '../../src/cli/job-changes-command.js';
import { serverUnavailable } from '../support/db.js';
import { hubspotCalls, partnerServed, settled, stateReaches } from './probes.js';
import { ADMIN_TOKEN, eventually, partnerPeople } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping end-to-end tests: ${skip}`);

interface Listed {
  jobChanges: {
    recordId: string;
    personId: string;
    kind: string;
    from: { domain: string };
    to: { domain: string };
    actions: Record<string, string>;
  }[];
  weekly: { week: string; count: number }[];
}

describe.skipIf(skip)('job changes', () => {
  const stack = useStack({ sandboxes: { people: 2_000, companies: 300 } });

  it('one sweep finds every move of the segment, nothing else, one lookup per person, one task per move', async () => {
    const { hubspot, partner } = stack.sandboxes;
    const people = partnerPeople(stack.sandboxes, 210);
    const contacts = people.map((p, i) => {
      const email = p.workEmail!;
      const lifecyclestage = i < 200 ? 'customer' : 'lead';
      return {
        person: p,
        email,
        customer: i < 200,
        id: hubspot.createContact({
          email,
          firstname: p.person.first_name!,
          lastname: p.person.last_name!,
          lifecyclestage,
        }).id,
      };
    });
    for (const c of contacts)
      await stateReaches(
        stack.running,
        { connection: 'hubspot', objectType: 'contact', recordId: c.id },
        'enriched',
        120_000,
      );
    await settled(stack, 60_000);
    const companiesBefore = hubspot.store.objects.companies.size;

    // Every fifth customer moves, and so does every lead (outside the segment: the sweep must not see them).
    const moving = contacts.filter((c, i) => (c.customer && i % 5 === 0) || !c.customer);
    const answer = await fetch(`${partner.url}/__sandbox/job-changes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ personIds: moving.map((c) => c.person.id), seed: 7 }),
    });
    const { moved } = (await answer.json()) as { moved: { personId: string; to: { domain: string } }[] };
    expect(moved).toHaveLength(50);
    const movedCustomers = new Set(moving.filter((c) => c.customer).map((c) => c.id));
    expect(movedCustomers.size).toBe(40);

    const primaryBefore = new Map(contacts.map((c) => [c.id, hubspot.store.associations.primaryCompanyOf(c.id)]));
    expect([...primaryBefore.values()].every(Boolean), 'every contact was linked with its employer').toBe(true);
    const servedBefore = partnerServed(stack.sandboxes);
    const lookupsBefore = partner.stats().byEndpoint;
    const tasksBefore = hubspot.tasks().length;
    const companySearchesBefore = hubspotCalls(stack.sandboxes, '/crm/objects/2026-09/companies/search');
    const sweep = await stack.running.admin<{ segment: number; eligible: number; enqueued: number; deferred: number }>(
      'POST',
      '/job-changes/sweep',
      {
        connection: 'hubspot',
        object: 'contact',
        segment: { property: 'lifecyclestage', operator: 'EQ', value: 'customer' },
        olderThanDays: 0,
      },
    );
    expect(sweep.status).toBe(200);
    expect(sweep.body).toEqual({ segment: 200, eligible: 200, enqueued: 200, deferred: 0 });

    const since = encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString());
    // The sweep's jobs drain first; then what their writes set off.
    await settled(stack, 120_000);
    await settled(stack, 60_000);
    const { body: listed } = await stack.running.admin<Listed>('GET', `/job-changes?since=${since}&limit=1000`);

    const flagged = new Set(listed.jobChanges.map((j) => j.recordId));
    expect(flagged).toEqual(movedCustomers);
    expect(listed.jobChanges).toHaveLength(40);
    for (const change of listed.jobChanges) {
      const contact = contacts.find((c) => c.id === change.recordId)!;
      expect(change.personId).toBe(contact.person.id);
      expect(change.kind).toBe('employer');
      expect(change.to.domain).toBe(moved.find((m) => m.personId === contact.person.id)!.to.domain);
      expect(change.actions).toEqual({ properties: 'done', task: 'done', employer: 'done' });
    }
    expect(listed.weekly.reduce((n, w) => n + w.count, 0)).toBe(40);
    // One lookup per swept person, and nothing else of the partner: detection rides on the sweep's lookups,
    // and a new employer's company is created from the person's answer, its enrichment left for later.
    const swept = sweep.body.enqueued;
    const requests = (stats: Record<string, number>) => Object.values(stats).reduce((n, k) => n + k, 0);
    expect(requests(partner.stats().byEndpoint) - requests(lookupsBefore)).toBeLessThanOrEqual(swept);
    expect(partnerServed(stack.sandboxes) - servedBefore).toBeLessThanOrEqual(swept);

    const tasks = hubspot.tasks().slice(tasksBefore);
    expect(tasks).toHaveLength(40);
    expect(new Set(tasks.flatMap((t) => t.contacts))).toEqual(movedCustomers);
    for (const c of contacts) {
      const now = hubspot.getContact(c.id)!;
      expect(now.email, 'the old e-mail is kept').toBe(c.email);
      if (movedCustomers.has(c.id)) expect(now.crm_enrich_job_change_at).toBeTruthy();
      else expect(now.crm_enrich_job_change_at ?? '').toBe('');
    }
    const emails = [...hubspot.store.objects.contacts.values()].map((o) => o.properties.get('email'));
    expect(emails).toHaveLength(210);
    expect(new Set(emails).size).toBe(210);
    const domains = [...hubspot.store.objects.companies.values()].map((o) => o.properties.get('domain'));
    expect(new Set(domains).size, 'no company twice').toBe(domains.length);
    // The new employers were found by domain or created once each: one company per new domain.
    const newDomains = new Set(listed.jobChanges.map((j) => j.to.domain));
    expect(hubspot.store.objects.companies.size - companiesBefore).toBeLessThanOrEqual(newDomains.size);
    // A company created for a move carries the partner's id of the employer, as the person's answer gave it.
    const partnerIdOf = new Map(
      partner.dataset.companies.flatMap((c) => (c.fqdn ? [[c.fqdn.toLowerCase(), c.id] as const] : [])),
    );
    const createdForMoves = [...hubspot.store.objects.companies.values()].slice(companiesBefore);
    expect(createdForMoves.length, 'some new employers had no company yet').toBeGreaterThan(0);
    for (const company of createdForMoves) {
      const domain = company.properties.get('domain')!;
      expect(newDomains.has(domain), domain).toBe(true);
      expect(company.properties.get('crm_enrich_partner_id')).toBe(partnerIdOf.get(domain));
    }
    expect(
      hubspotCalls(stack.sandboxes, '/crm/objects/2026-09/companies/search') - companySearchesBefore,
    ).toBeLessThanOrEqual(newDomains.size);
    const formerEmployee = (contactId: string, companyId: string) =>
      hubspot.store.associations
        .associated('contacts', contactId)
        .find((a) => a.id === companyId)
        ?.types.map((t) => t.label);
    for (const c of contacts) {
      const primary = hubspot.store.associations.primaryCompanyOf(c.id)!;
      const was = primaryBefore.get(c.id)!;
      if (!movedCustomers.has(c.id)) {
        expect(primary, 'who stayed keeps their company').toBe(was);
        continue;
      }
      const to = moved.find((m) => m.personId === c.person.id)!.to.domain;
      expect(hubspot.getCompany(primary)?.domain, 'the new employer is the primary company').toBe(to);
      expect(hubspot.getContact(c.id)?.associatedcompanyid).toBe(primary);
      expect(formerEmployee(c.id, was), 'the old company is labelled').toEqual(
        expect.arrayContaining(['Former employee']),
      );
      expect(formerEmployee(c.id, was)).not.toContain('Primary');
    }

    const metrics = await (await fetch(`${stack.running.url}/metrics`)).text();
    expect(metrics).toMatch(/crm_enrich_job_changes_total\{connection="hubspot",kind="employer"\} 40/);

    // A second sweep at once finds nothing more: the known roles moved on with the people.
    const again = await stack.running.admin<{ enqueued: number }>('POST', '/job-changes/sweep', {
      connection: 'hubspot',
      object: 'contact',
      segment: { property: 'lifecyclestage', value: 'customer' },
      olderThanDays: 0,
    });
    expect(again.body.enqueued).toBe(200);
    // The sweep's jobs drain first; then what their writes set off.
    await settled(stack, 120_000);
    await settled(stack, 60_000);
    const { body: after } = await stack.running.admin<Listed>('GET', '/job-changes?limit=1000');
    expect(after.jobChanges).toHaveLength(40);
    expect(hubspot.tasks().slice(tasksBefore)).toHaveLength(40);
  }, 600_000);

  it('sweeps from the command line through the running service', async () => {
    process.env.ADMIN_TOKEN = ADMIN_TOKEN;
    let out = '';
    const sink = new Writable({ write: (chunk: Buffer, _e, done) => void ((out += chunk.toString()), done()) });
    await sweep(
      {
        connection: 'hubspot',
        object: 'contact',
        property: 'lifecyclestage',
        operator: 'EQ',
        value: ['lead'],
        olderThanDays: 0,
        url: stack.running.url,
      },
      sink,
    );
    expect(out).toMatch(/^10 records in the segment, 10 with partner data old enough; 10 refreshes enqueued\. /);
    // The ten leads moved too (first test): this sweep finds them.
    await eventually(
      async () => {
        const { body } = await stack.running.admin<Listed>('GET', '/job-changes?limit=1000');
        return body.jobChanges.length === 50 ? true : undefined;
      },
      120_000,
      "the leads' moves",
    );
    await settled(stack, 60_000);
  }, 300_000);

  it('sweeps the members of a HubSpot list', async () => {
    const { hubspot } = stack.sandboxes;
    const members = [...hubspot.store.objects.contacts.keys()];
    expect(members).toHaveLength(210);
    const listId = hubspot.createList(members);
    const before = hubspot.stats().byEndpoint['GET /crm/lists/2026-09/{id}/memberships'] ?? 0;
    const swept = await stack.running.admin<{ segment: number; eligible: number; enqueued: number }>(
      'POST',
      '/job-changes/sweep',
      {
        connection: 'hubspot',
        object: 'contact',
        segment: { listId },
        olderThanDays: 0,
      },
    );
    expect(swept.status).toBe(200);
    expect(swept.body).toMatchObject({ segment: members.length, eligible: members.length, enqueued: members.length });
    expect((hubspot.stats().byEndpoint['GET /crm/lists/2026-09/{id}/memberships'] ?? 0) - before).toBe(1);
    // The sweep's jobs drain first; then what their writes set off.
    await settled(stack, 120_000);
    await settled(stack, 60_000);
    // Everyone who moved was found before; nobody new is flagged.
    const { body } = await stack.running.admin<Listed>('GET', '/job-changes?limit=1000');
    expect(body.jobChanges).toHaveLength(50);
  }, 300_000);

  it('refuses a sweep it cannot run, naming the field', async () => {
    const bad = async (body: unknown) =>
      stack.running.admin<{ error: { code: string; message: string; details: { field: string } } }>(
        'POST',
        '/job-changes/sweep',
        body,
      );
    const cases: [unknown, string, string][] = [
      [{ connection: 'hubspot', object: 'contact', segment: { listId: '999' } }, 'invalid_sweep', 'segment.listId'],
      [
        { connection: 'hubspot', object: 'contact', segment: { listId: 'customers' } },
        'invalid_sweep',
        'segment.listId',
      ],
      [
        { connection: 'hubspot', object: 'contact', segment: { where: "lifecyclestage = 'customer'" } },
        'segment_not_supported',
        'segment.where',
      ],
      [
        { connection: 'nope', object: 'contact', segment: { property: 'lifecyclestage', value: 'customer' } },
        'unknown_connection',
        'connection',
      ],
      [
        { connection: 'hubspot', object: 'company', segment: { property: 'lifecyclestage', value: 'customer' } },
        'not_a_person_object',
        'object',
      ],
      [
        {
          connection: 'hubspot',
          object: 'contact',
          segment: { property: 'lifecyclestage', value: 'customer' },
          olderThanDays: -1,
        },
        'invalid_sweep',
        'olderThanDays',
      ],
    ];
    for (const [body, code, field] of cases) {
      const answer = await bad(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.code).toBe(code);
      expect(answer.body.error.details.field).toBe(field);
    }
    const list = await stack.running.admin<{ error: { details: { field: string } } }>(
      'GET',
      '/job-changes?since=yesterday',
    );
    expect(list.status).toBe(400);
    expect(list.body.error.details.field).toBe('since');
  });
});
