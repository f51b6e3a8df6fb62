/**
 * Job changes end to end on Salesforce, the goal of issue 33: 200 enriched Contacts of a segment (Lead
 * Source = Partner Referral) and ten outside it, 20% of the segment moved in the partner sandbox (and
 * everyone outside it). One sweep over the segment finds every move in it and flags no one who stayed
 * (precision and recall 1.0), asks the partner nothing beyond one lookup per swept Contact, creates one Task (WhoId
 * the Contact) per move, leaves no Contact or Account twice and keeps every Email; each moved Contact's
 * AccountId is its new employer's Account, and the Account it left is kept as an inactive
 * AccountContactRelation.
 */
import { describe, expect, it } from 'vitest';
import { domainOf } from '../../src/core/domain.js';
import { serverUnavailable } from '../support/db.js';
import { jobsInFlight, partnerServed, settled } from './probes.js';
import { eventually, partnerPeople } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping Salesforce job-change tests: ${skip}`);

interface Listed {
  jobChanges: { recordId: string; personId: string; to: { domain: string }; actions: Record<string, string> }[];
}

describe.skipIf(skip)('Salesforce job changes', () => {
  const stack = useStack({ sandboxes: { people: 2_000, companies: 300 } });

  it('one sweep finds every move of the segment and nothing else; the Contact follows the person', async () => {
    const { salesforce, partner } = stack.sandboxes;
    const people = partnerPeople(stack.sandboxes, 210);
    const contacts = people.map((p, i) => {
      const inSegment = i < 200;
      const id = salesforce.createRecord('Contact', {
        LastName: p.person.last_name!,
        FirstName: p.person.first_name!,
        Email: p.workEmail!,
        LeadSource: inSegment ? 'Partner Referral' : 'Web',
      });
      return { person: p, id, email: p.workEmail!, inSegment };
    });
    await eventually(
      () =>
        contacts.every((c) => {
          const now = salesforce.getRecord('Contact', c.id);
          return now?.CE_Partner_Id__c && now.AccountId;
        })
          ? true
          : undefined,
      180_000,
      'every Contact enriched and linked with its Account',
    );
    await eventually(
      () => (salesforce.stats().outbound.pending === 0 ? true : undefined),
      30_000,
      'outbound messages delivered',
    );
    await settled(stack, 60_000);
    const accountBefore = new Map(
      contacts.map((c) => [c.id, String(salesforce.getRecord('Contact', c.id)!.AccountId)]),
    );
    const accountsBefore = salesforce.records('Account').length;

    // Every fifth Contact of the segment moves, and so does everyone outside it (the sweep must not see them).
    const moving = contacts.filter((c, i) => (c.inSegment && i % 5 === 0) || !c.inSegment);
    const answer = await fetch(`${partner.url}/__sandbox/job-changes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ personIds: moving.map((c) => c.person.id), seed: 7 }),
    });
    expect(answer.status).toBe(200);
    const { moved } = (await answer.json()) as { moved: { personId: string; to: { domain: string } }[] };
    expect(moved).toHaveLength(50);
    const movedInSegment = new Set(moving.filter((c) => c.inSegment).map((c) => c.id));
    expect(movedInSegment.size).toBe(40);

    const served = partnerServed(stack.sandboxes);
    const lookupsBefore = partner.stats().byEndpoint;
    const sweep = await stack.running.admin<{ segment: number; eligible: number; enqueued: number }>(
      'POST',
      '/job-changes/sweep',
      {
        connection: 'salesforce',
        object: 'Contact',
        segment: { property: 'LeadSource', value: 'Partner Referral' },
        olderThanDays: 0,
      },
    );
    expect(sweep.body).toEqual({ segment: 200, eligible: 200, enqueued: 200, deferred: 0 });
    await eventually(async () => ((await jobsInFlight(stack.running)) === 0 ? true : undefined), 180_000, 'the sweep');
    await settled(stack, 60_000);

    const { body } = await stack.running.admin<Listed>('GET', '/job-changes?connection=salesforce&limit=1000');
    const flagged = new Set(body.jobChanges.map((j) => j.recordId));
    const truePositives = [...flagged].filter((id) => movedInSegment.has(id)).length;
    expect(truePositives / flagged.size, 'precision').toBe(1);
    expect(truePositives / movedInSegment.size, 'recall').toBe(1);
    expect(body.jobChanges).toHaveLength(40);
    for (const j of body.jobChanges) {
      expect(j.actions).toEqual({ properties: 'done', task: 'done', employer: 'done' });
      const contact = contacts.find((c) => c.id === j.recordId)!;
      expect(j.personId).toBe(contact.person.id);
      expect(j.to.domain).toBe(moved.find((m) => m.personId === contact.person.id)!.to.domain);
    }
    // One lookup per swept Contact, and nothing else of the partner: detection rides on the sweep's lookups,
    // and a new employer's Account is created from the person's answer, its enrichment left for later.
    const swept = sweep.body.enqueued;
    const requests = (stats: Record<string, number>) => Object.values(stats).reduce((n, k) => n + k, 0);
    expect(requests(partner.stats().byEndpoint) - requests(lookupsBefore)).toBeLessThanOrEqual(swept);
    expect(partnerServed(stack.sandboxes) - served).toBeLessThanOrEqual(swept);
    const newEmployers = new Set(body.jobChanges.map((j) => j.to.domain)).size;
    expect(salesforce.records('Account').length - accountsBefore).toBeLessThanOrEqual(newEmployers);
    // An Account created for a move carries the partner's id of the employer, as the person's answer gave it.
    const partnerIdOf = new Map(
      partner.dataset.companies.flatMap((c) => (c.fqdn ? [[domainOf(c.fqdn), c.id] as const] : [])),
    );
    const createdForMoves = salesforce.records('Account').slice(accountsBefore);
    expect(createdForMoves.length, 'some new employers had no Account yet').toBeGreaterThan(0);
    for (const account of createdForMoves)
      expect(account.CE_Partner_Id__c).toBe(partnerIdOf.get(domainOf(String(account.Website))));

    const tasks = salesforce.records('Task');
    expect(tasks).toHaveLength(40);
    expect(new Set(tasks.map((t) => t.WhoId))).toEqual(movedInSegment);

    const relations = salesforce.records('AccountContactRelation');
    for (const c of contacts) {
      const now = salesforce.getRecord('Contact', c.id)!;
      expect(now.Email, 'the old e-mail is kept').toBe(c.email);
      expect(Boolean(now.CE_Job_Change_At__c)).toBe(movedInSegment.has(c.id));
      const was = accountBefore.get(c.id)!;
      if (!movedInSegment.has(c.id)) {
        expect(now.AccountId, 'who stayed (or was not swept) keeps the Account').toBe(was);
        continue;
      }
      const to = moved.find((m) => m.personId === c.person.id)!.to.domain;
      const account = salesforce.getRecord('Account', String(now.AccountId))!;
      expect(domainOf(String(account.Website)), 'the new employer is the Account').toBe(to);
      const mine = relations.filter((r) => r.ContactId === c.id);
      expect(mine.find((r) => r.AccountId === was)).toMatchObject({ IsDirect: false, IsActive: false });
      expect(mine.find((r) => r.AccountId === now.AccountId)).toMatchObject({ IsDirect: true, IsActive: true });
    }
    const emails = salesforce.records('Contact').map((c) => String(c.Email).toLowerCase());
    expect(emails).toHaveLength(210);
    expect(new Set(emails).size, 'no Contact twice').toBe(210);
    const websites = salesforce
      .records('Account')
      .map((a) => domainOf(String(a.Website ?? '')))
      .filter(Boolean);
    expect(new Set(websites).size, 'no Account twice').toBe(websites.length);
  }, 600_000);

  it('sweeps a SOQL condition, and refuses one Salesforce refuses, naming the field', async () => {
    const { salesforce } = stack.sandboxes;
    const outside = salesforce.records('Contact').filter((c) => c.LeadSource === 'Web');
    expect(outside).toHaveLength(10);
    const byWhere = await stack.running.admin<{ segment: number; enqueued: number }>('POST', '/job-changes/sweep', {
      connection: 'salesforce',
      object: 'Contact',
      segment: { where: "LeadSource = 'Web'" },
      olderThanDays: 0,
    });
    expect(byWhere.body).toMatchObject({ segment: 10, enqueued: 10 });
    await eventually(
      async () => ((await jobsInFlight(stack.running)) === 0 ? true : undefined),
      60_000,
      'the second sweep',
    );
    await settled(stack, 60_000);
    const { body } = await stack.running.admin<Listed>('GET', '/job-changes?connection=salesforce&limit=1000');
    // Everyone outside the segment moved too: this sweep finds them, and only them, on top of the 40.
    const outsideIds = new Set(outside.map((o) => o.Id));
    expect(body.jobChanges.filter((j) => outsideIds.has(j.recordId))).toHaveLength(10);
    expect(body.jobChanges).toHaveLength(50);
    const bad = await stack.running.admin<{ error: { code: string; details: { field: string } } }>(
      'POST',
      '/job-changes/sweep',
      { connection: 'salesforce', object: 'Contact', segment: { where: 'LeadSource ==' } },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_sweep', details: { field: 'segment.where' } });
  }, 300_000);
});
