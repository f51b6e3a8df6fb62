/**
 * Discovery in Salesforce: new people become Contacts with the Account in AccountId (set in the create
 * itself), found first by partner id and profile URL, and a Contact that names another Account keeps it.
 */
import { describe, expect, it } from 'vitest';
import type { DiscoveryPreview, DiscoveryRunResult } from '../../src/discovery/discovery.js';
import { LOOKUPS_COUNTER } from '../../src/enrich/partner-lookups.js';
import { serverUnavailable } from '../support/db.js';
import { settled } from './probes.js';
import { eventually } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping Salesforce discovery tests: ${skip}`);

describe.skipIf(skip)('discovery in Salesforce', () => {
  const stack = useStack();

  // A Contact already under another Account is left there.
  it('creates Contacts under the Account in one call and links one found by profile', async () => {
    const { sandboxes, running } = stack;
    const salesforce = sandboxes.salesforce;
    const byCompany = new Map<string, typeof sandboxes.partner.dataset.personRecords>();
    for (const p of sandboxes.partner.dataset.personRecords) {
      const id = p.employer.company.id as string;
      if (p.workEmail) byCompany.set(id, [...(byCompany.get(id) ?? []), p]);
    }
    const people = [...byCompany.values()].sort((a, b) => b.length - a.length)[0]!;
    const account = salesforce.createRecord('Account', {
      Name: 'Target',
      Website: `https://www.${people[0]!.employer.domain}/`,
    });
    await eventually(
      () => salesforce.getRecord('Account', account)?.CE_Partner_Id__c || undefined,
      15_000,
      'the Account to be enriched',
    );
    await settled(stack);

    const departments = [...new Set(people.map((p) => String(p.departmentId)))];
    const filters = { department: departments.slice(0, 4) };
    const first = await running.admin<DiscoveryPreview>('POST', '/discovery/preview', {
      crm: 'salesforce',
      companyId: account,
      filters,
      limit: 100,
    });
    expect(first.status).toBe(200);
    const withEmail = first.body.candidates.filter((c) => c.hasEmail);
    expect(withEmail.length).toBeGreaterThanOrEqual(3);

    // One is a Contact under another Account (by partner id); one is a Contact with no Account (by profile URL).
    // Both predate crm-enrich (no outbound message), as most of an org's records do.
    const quiet = { notify: false };
    const other = salesforce.createRecord('Account', { Name: 'Elsewhere' }, quiet);
    const elsewhere = salesforce.createRecord(
      'Contact',
      { LastName: 'Elsewhere', CE_Partner_Id__c: withEmail[0]!.personId, AccountId: other },
      quiet,
    );
    const profile = sandboxes.partner.dataset.personRecords.find((p) => p.id === withEmail[1]!.personId)!;
    const unlinked = salesforce.createRecord(
      'Contact',
      { LastName: 'Unlinked', CE_LinkedIn_URL__c: `https://linkedin.com/in/${profile.slug}/` },
      quiet,
    );

    const preview = await running.admin<DiscoveryPreview>('POST', '/discovery/preview', {
      crm: 'salesforce',
      companyId: account,
      filters,
      limit: 100,
    });
    const byId = new Map(preview.body.candidates.map((c) => [c.personId, c] as const));
    expect(byId.get(withEmail[0]!.personId)).toMatchObject({
      action: 'skip',
      code: 'linked_elsewhere',
      recordId: elsewhere,
    });
    expect(byId.get(withEmail[1]!.personId)).toMatchObject({ action: 'link', recordId: unlinked, credit: false });

    const creates = () => salesforce.stats().byOperation['collections.create'] ?? 0;
    const createsBefore = creates();
    const spentBefore = await running.service.parts.ports.counters.get(LOOKUPS_COUNTER);
    const run = await running.admin<DiscoveryRunResult>('POST', '/discovery/run', {
      crm: 'salesforce',
      companyId: account,
      filters,
      limit: 100,
    });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ created: preview.body.counts.create, linked: 1 });
    expect(creates() - createsBefore).toBe(1);
    for (const p of run.body.people.filter((p) => p.action === 'created')) {
      const contact = salesforce.getRecord('Contact', p.recordId!)!;
      expect(contact).toMatchObject({ AccountId: account, CE_Source__c: 'discovery', CE_Partner_Id__c: p.personId });
      expect(contact.LastName).toBeTruthy();
      expect(contact.Email).toBeTruthy();
    }
    expect(salesforce.getRecord('Contact', unlinked)!.AccountId).toBe(account);
    expect(salesforce.getRecord('Contact', elsewhere)!.AccountId).toBe(other);

    // The outbound messages for the new Contacts spend nothing.
    await eventually(
      () => (salesforce.stats().outbound.pending === 0 ? true : undefined),
      10_000,
      'outbound messages to be delivered',
    );
    await settled(stack);
    expect(await running.service.parts.ports.counters.get(LOOKUPS_COUNTER)).toBe(spentBefore + run.body.credits);
  });
});
