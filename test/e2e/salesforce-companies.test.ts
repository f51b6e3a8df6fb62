/**
 * A Salesforce Contact's employer is enriched once per domain, not once per Contact: colleagues lead to
 * one SOQL query for their employer's website and one enrichment of the Account.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { schemaQuery, settled } from './probes.js';
import { eventually } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping Salesforce company tests: ${skip}`);

describe.skipIf(skip)('Accounts of enriched Salesforce Contacts', () => {
  const stack = useStack();

  it('enriches the Account of three colleagues once, after one query for their domain', async () => {
    const { sandboxes, running } = stack;
    const salesforce = sandboxes.salesforce;
    const byEmployer = new Map<string, typeof sandboxes.partner.dataset.personRecords>();
    for (const p of sandboxes.partner.dataset.personRecords) {
      if (!p.workEmail) continue;
      byEmployer.set(p.employer.domain, [...(byEmployer.get(p.employer.domain) ?? []), p]);
    }
    const [domain, colleagues] = [...byEmployer].find(([, people]) => people.length >= 3)!;
    // Accounts that existed before the outbound message rule (the service never hears of them): the employer,
    // its website typed as people do, and a look-alike that must stay untouched.
    const account = salesforce.createRecord(
      'Account',
      { Name: 'Employer', Website: `https://www.${domain.toUpperCase()}/` },
      { notify: false },
    );
    const lookAlike = salesforce.createRecord(
      'Account',
      { Name: 'Look-alike', Website: `https://not${domain}` },
      { notify: false },
    );
    const accountQueriesBefore = salesforce.stats().queriesByFilter['Account.Website'] ?? 0;

    for (const person of colleagues.slice(0, 3))
      salesforce.createRecord('Contact', { LastName: 'Unknown', Email: person.workEmail! });
    const enriched = await eventually(
      () => {
        const a = salesforce.getRecord('Account', account);
        return a?.CE_Partner_Id__c ? a : undefined;
      },
      10_000,
      'the Account to be enriched',
    );
    expect(enriched.CE_Partner_Id__c).toBe(colleagues[0]!.employer.company.id);
    await eventually(
      () => (salesforce.stats().outbound.pending === 0 ? true : undefined),
      10_000,
      'outbound messages to be delivered',
    );
    await settled(stack);

    expect((salesforce.stats().queriesByFilter['Account.Website'] ?? 0) - accountQueriesBefore).toBe(1);
    expect(salesforce.getRecord('Account', lookAlike)?.CE_Partner_Id__c ?? null).toBeNull();
    const jobs = await schemaQuery<{ n: number }>(
      running,
      `SELECT count(*)::int AS n FROM $schema.job WHERE name = 'enrich.salesforce.account'`,
    );
    expect(jobs[0]!.n).toBe(1);
    const writes = await schemaQuery<{ n: number }>(
      running,
      `SELECT count(DISTINCT job_id)::int AS n FROM $schema.audit_log ` +
        `WHERE object_type = 'Account' AND record_id = $1 AND outcome = 'write'`,
      [account],
    );
    expect(writes[0]!.n).toBe(1);
  });
});
