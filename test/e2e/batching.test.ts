/**
 * New records that arrive together (an import) share CRM calls: N new HubSpot contacts cost
 * ceil(N/100) batch reads and ceil(N/100) batch writes, not N of each.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { hubspotCalls, settled } from './probes.js';
import { eventually, partnerPeople } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping batching tests: ${skip}`);

describe.skipIf(skip)('batching', () => {
  const stack = useStack({ sandboxes: { people: 2_000 } });

  it('enriches 150 contacts imported together with 2 batch reads and 2 batch writes', async () => {
    const { sandboxes } = stack;
    const readsBefore = hubspotCalls(sandboxes, '/contacts/batch/read');
    const writesBefore = hubspotCalls(sandboxes, '/contacts/batch/update');
    const ids = partnerPeople(sandboxes, 150, 200).map(
      (p) => sandboxes.hubspot.createContact({ email: p.workEmail! }, 'IMPORT').id,
    );
    await eventually(
      () => (ids.every((id) => sandboxes.hubspot.getContact(id)?.crm_enrich_enriched_at) ? true : undefined),
      15_000,
      'all 150 contacts to be enriched',
    );
    await settled(stack);
    expect(hubspotCalls(sandboxes, '/contacts/batch/read') - readsBefore).toBe(2);
    expect(hubspotCalls(sandboxes, '/contacts/batch/update') - writesBefore).toBe(2);
  });
});
