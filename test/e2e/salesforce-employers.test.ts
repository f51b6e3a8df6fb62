/**
 * Salesforce Contacts get their employer's Account in AccountId, in the same collection update as the
 * enrichment: one Account created for a new employer however many colleagues arrive, an existing one
 * found by its website, and a Contact that has an Account keeps it.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { schemaQuery, settled } from './probes.js';
import { eventually, type Sandboxes } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping Salesforce employer tests: ${skip}`);

type Person = Sandboxes['partner']['dataset']['personRecords'][number];

function employers(sandboxes: Sandboxes): [string, Person[]][] {
  const byEmployer = new Map<string, Person[]>();
  for (const p of sandboxes.partner.dataset.personRecords) {
    if (!p.workEmail) continue;
    byEmployer.set(p.employer.domain, [...(byEmployer.get(p.employer.domain) ?? []), p]);
  }
  return [...byEmployer].sort((a, b) => b[1].length - a[1].length);
}

describe.skipIf(skip)('Salesforce Contacts linked with their employers', () => {
  const stack = useStack({ sandboxes: { people: 3_000, companies: 100 } });

  const accountsWithWebsite = (domain: string) =>
    stack.sandboxes.salesforce.records('Account').filter((a) =>
      String(a.Website ?? '')
        .toLowerCase()
        .includes(domain),
    );

  it('gives 10 Contacts of a new employer one Account, set in the enrichment update itself', async () => {
    const { sandboxes, running } = stack;
    const salesforce = sandboxes.salesforce;
    const [domain, people] = employers(sandboxes).find(([, p]) => p.length >= 10)!;
    expect(accountsWithWebsite(domain)).toEqual([]);
    const before = {
      creates: salesforce.stats().byOperation['collections.create'] ?? 0,
      updates: salesforce.stats().byOperation['collections.update'] ?? 0,
    };

    const contacts = people
      .slice(0, 10)
      .map((p) => salesforce.createRecord('Contact', { LastName: 'Unknown', Email: p.workEmail! }));
    await eventually(
      () => (contacts.every((id) => salesforce.getRecord('Contact', id)?.AccountId) ? true : undefined),
      20_000,
      'every Contact to have an Account',
    );
    await eventually(
      () => (salesforce.stats().outbound.pending === 0 ? true : undefined),
      10_000,
      'outbound messages to be delivered',
    );
    await settled(stack);

    const accounts = accountsWithWebsite(domain);
    expect(accounts).toHaveLength(1);
    expect(accounts[0]!.Name).toBe(people[0]!.employer.company.name);
    for (const id of contacts) {
      const contact = salesforce.getRecord('Contact', id)!;
      expect(contact.AccountId).toBe(accounts[0]!.Id);
      // Enriched in the same update that set the Account.
      expect(contact.CE_Partner_Id__c).toBeTruthy();
    }
    expect((salesforce.stats().byOperation['collections.create'] ?? 0) - before.creates).toBe(1);
    // Contacts' updates carry AccountId: no update for the link alone (the new Account's enrichment is one more).
    const contactUpdates = (salesforce.stats().byOperation['collections.update'] ?? 0) - before.updates;
    expect(contactUpdates).toBeLessThanOrEqual(10 + 1);
    const audit = await schemaQuery<{ outcome: string; n: number }>(
      running,
      `SELECT outcome, count(*)::int AS n FROM $schema.audit_log ` +
        `WHERE rule = 'company_link' AND record_id = ANY($1::text[]) GROUP BY outcome`,
      [contacts],
    );
    expect(audit).toEqual([{ outcome: 'linked_primary', n: 10 }]);
  });

  it('finds the existing Account by its website, and leaves a Contact that has an Account alone', async () => {
    const { sandboxes } = stack;
    const salesforce = sandboxes.salesforce;
    const [domain, people] = employers(sandboxes).find(
      ([d, p]) => p.length >= 2 && accountsWithWebsite(d).length === 0,
    )!;
    const existing = salesforce.createRecord(
      'Account',
      { Name: 'Existing', Website: `http://www.${domain}/about` },
      { notify: false },
    );
    const other = salesforce.createRecord(
      'Account',
      { Name: 'Chosen by a person', Website: 'https://chosen.example' },
      { notify: false },
    );

    const plain = salesforce.createRecord('Contact', { LastName: 'Unknown', Email: people[0]!.workEmail! });
    const kept = salesforce.createRecord('Contact', {
      LastName: 'Unknown',
      Email: people[1]!.workEmail!,
      AccountId: other,
    });
    await eventually(
      () => (salesforce.getRecord('Contact', plain)?.AccountId ? true : undefined),
      10_000,
      'the Contact to get its Account',
    );
    await eventually(
      () => (salesforce.getRecord('Contact', kept)?.CE_Partner_Id__c ? true : undefined),
      10_000,
      'the other Contact to be enriched',
    );
    await settled(stack);

    expect(salesforce.getRecord('Contact', plain)?.AccountId).toBe(existing);
    expect(salesforce.getRecord('Contact', kept)?.AccountId).toBe(other);
    expect(accountsWithWebsite(domain).map((a) => a.Id)).toEqual([existing]);
  });
});
