/**
 * The service against the two Salesforce org limits the sandbox can impose (docs/sandboxes.md): an
 * integration user without "View Setup and Configuration", for whom GET /limits answers 403, and the
 * concurrent long-running request limit (REQUEST_LIMIT_EXCEEDED "ConcurrentPerOrgLongTxn"). Neither
 * fails a record: the first reads the daily allocation from each answer's Sforce-Limit-Info instead,
 * the second puts the work off for a short while and then does it.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { schemaQuery } from './probes.js';
import { eventually, partnerPeople } from './stack.js';
import { useStack, type Stack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping the Salesforce org limit tests: ${skip}`);

/** A Contact the partner knows, created with an outbound message to the service. */
function knownContact(stack: Stack, offset: number): string {
  const person = partnerPeople(stack.sandboxes, 1, offset)[0]!;
  return stack.sandboxes.salesforce.createRecord('Contact', { LastName: 'Limits', Email: person.workEmail! });
}

const enriched = (stack: Stack, id: string) =>
  eventually(
    () => (stack.sandboxes.salesforce.getRecord('Contact', id)?.CE_Partner_Id__c ? true : undefined),
    60_000,
    'the Contact to be enriched',
  );

const failedJobs = async (stack: Stack, id: string) =>
  (
    await schemaQuery<{ n: number }>(
      stack.running,
      `SELECT count(*)::int AS n FROM $schema.job WHERE data->>'recordId' = $1 AND state = 'failed'`,
      [id],
    )
  )[0]!.n;

describe.skipIf(skip)('an integration user without View Setup and Configuration', () => {
  const stack = useStack({ sandboxes: { salesforceOrg: { viewSetup: false } } });

  it('enriches Contacts with GET /limits refused, asking it no more than once', async () => {
    const salesforce = stack.sandboxes.salesforce;
    const limits = await fetch(`${salesforce.url}/services/data/v62.0/limits`, {
      headers: { authorization: `Bearer ${salesforce.issueToken()}` },
    });
    expect(limits.status).toBe(403);
    expect(await limits.json()).toMatchObject([{ errorCode: 'INSUFFICIENT_ACCESS' }]);
    const asked = salesforce.stats().byOperation.limits ?? 0;
    const id = knownContact(stack, 0);
    await enriched(stack, id);
    const second = knownContact(stack, 1);
    await enriched(stack, second);
    expect((salesforce.stats().byOperation.limits ?? 0) - asked).toBeLessThanOrEqual(1);
    expect(await failedJobs(stack, id)).toBe(0);
  });
});

describe.skipIf(skip)('the concurrent long-running request limit', () => {
  const stack = useStack({ sandboxes: { salesforceOrg: { longRunning: { limit: 2 } } } });

  it('puts the work off while the org is at its limit, and enriches the Contact once it is not', async () => {
    const salesforce = stack.sandboxes.salesforce;
    // Other integrations of the org hold both long-running slots: every request is refused.
    salesforce.holdLongRunning(2);
    const id = knownContact(stack, 2);
    await expect.poll(() => salesforce.stats().longRunningRefusals, { timeout: 30_000 }).toBeGreaterThan(0);
    expect(salesforce.getRecord('Contact', id)?.CE_Partner_Id__c).toBeFalsy();
    salesforce.holdLongRunning(0);
    await enriched(stack, id);
    expect(await failedJobs(stack, id)).toBe(0);
  });
});
