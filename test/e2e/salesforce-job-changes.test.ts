/**
 * Job changes end to end on Salesforce: enriched Contacts of a segment (Lead Source = Partner
 * Referral) and a few outside it, some of each moved in the partner sandbox; one sweep over the segment
 * flags exactly the moved Contacts in it, spends at most one lookup per swept person, creates one Task
 * (WhoId the Contact) per move, writes the CE_ fields, keeps every Email and creates no Account twice.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { jobsInFlight, partnerServed, settled } from './probes.js';
import { eventually, partnerPeople } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping Salesforce job-change tests: ${skip}`);

describe.skipIf(skip)('Salesforce job changes', () => {
  const stack = useStack({ sandboxes: { people: 1_000, companies: 150 } });

  it('one sweep over a field segment finds the moves in it, with a Task and the CE_ fields for each', async () => {
    const { salesforce, partner } = stack.sandboxes;
    const people = partnerPeople(stack.sandboxes, 30, 40);
    const contacts = people.map((p, i) => {
      const inSegment = i < 25;
      const id = salesforce.createRecord('Contact', {
        LastName: p.person.last_name!,
        FirstName: p.person.first_name!,
        Email: p.workEmail!,
        LeadSource: inSegment ? 'Partner Referral' : 'Web',
      });
      return { person: p, id, email: p.workEmail!, inSegment };
    });
    await eventually(
      () => (contacts.every((c) => salesforce.getRecord('Contact', c.id)?.CE_Partner_Id__c) ? true : undefined),
      60_000,
      'every Contact enriched',
    );
    await eventually(
      () => (salesforce.stats().outbound.pending === 0 ? true : undefined),
      20_000,
      'outbound messages delivered',
    );
    await settled(stack, 30_000);
    const accountsBefore = salesforce.records('Account').length;

    const moving = contacts.filter((c, i) => (c.inSegment && i % 5 === 0) || !c.inSegment);
    const answer = await fetch(`${partner.url}/__sandbox/job-changes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ personIds: moving.map((c) => c.person.id) }),
    });
    expect(answer.status).toBe(200);
    const movedInSegment = new Set(moving.filter((c) => c.inSegment).map((c) => c.id));
    expect(movedInSegment.size).toBe(5);

    const served = partnerServed(stack.sandboxes);
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
    expect(sweep.body).toMatchObject({ segment: 25, eligible: 25, enqueued: 25 });
    await eventually(async () => ((await jobsInFlight(stack.running)) === 0 ? true : undefined), 60_000, 'the sweep');
    await settled(stack, 30_000);

    const { body } = await stack.running.admin<{ jobChanges: { recordId: string; actions: Record<string, string> }[] }>(
      'GET',
      '/job-changes?connection=salesforce&limit=100',
    );
    expect(new Set(body.jobChanges.map((j) => j.recordId))).toEqual(movedInSegment);
    expect(body.jobChanges).toHaveLength(5);
    for (const j of body.jobChanges) expect(j.actions).toEqual({ properties: 'done', task: 'done' });
    expect(partnerServed(stack.sandboxes) - served).toBeLessThanOrEqual(25);

    const tasks = salesforce.records('Task');
    expect(tasks).toHaveLength(5);
    expect(new Set(tasks.map((t) => t.WhoId))).toEqual(movedInSegment);
    for (const c of contacts) {
      const now = salesforce.getRecord('Contact', c.id)!;
      expect(now.Email).toBe(c.email);
      expect(Boolean(now.CE_Job_Change_At__c)).toBe(movedInSegment.has(c.id));
    }
    expect(salesforce.records('Account').length).toBe(accountsBefore);

    // A SOQL condition selects a segment too: the Web Contacts, all of whom moved.
    const byWhere = await stack.running.admin<{ segment: number; enqueued: number }>('POST', '/job-changes/sweep', {
      connection: 'salesforce',
      object: 'Contact',
      segment: { where: "LeadSource = 'Web'" },
      olderThanDays: 0,
    });
    expect(byWhere.body).toMatchObject({ segment: 5, enqueued: 5 });
    await eventually(
      async () => ((await jobsInFlight(stack.running)) === 0 ? true : undefined),
      60_000,
      'the second sweep',
    );
    await settled(stack, 30_000);
    const { body: after } = await stack.running.admin<{ jobChanges: { recordId: string }[] }>(
      'GET',
      '/job-changes?connection=salesforce&limit=100',
    );
    expect(new Set(after.jobChanges.map((j) => j.recordId))).toEqual(new Set(moving.map((c) => c.id)));
    const bad = await stack.running.admin<{ error: { code: string; details: { field: string } } }>(
      'POST',
      '/job-changes/sweep',
      {
        connection: 'salesforce',
        object: 'Contact',
        segment: { where: 'LeadSource ==' },
      },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_sweep', details: { field: 'segment.where' } });
    const websites = salesforce
      .records('Account')
      .map((a) => String(a.Website ?? '').toLowerCase())
      .filter(Boolean);
    expect(new Set(websites).size).toBe(websites.length);
  }, 300_000);
});
