/**
 * A backfill's first page is enriched as soon as it is enqueued: the listing wakes this instance's lane
 * instead of leaving the jobs for its next poll. Here the lane polls once a minute, so without that wake
 * the contacts would wait far longer than the test allows.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { eventually, partnerPeople } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping the backfill wake test: ${skip}`);

const CONTACTS = 5;

describe.skipIf(skip)('a backfill wakes the lane', () => {
  const stack = useStack({
    service: { env: { HUBSPOT_CREATE_COMPANIES: 'false' }, lanes: { pollMs: 60_000 } },
  });

  it('enriches the listed contacts long before the lane would poll again', async () => {
    const { hubspot } = stack.sandboxes;
    // Created while no webhook is delivered: only the backfill can find them.
    hubspot.setWebhookUrl(undefined);
    const ids = partnerPeople(stack.sandboxes, CONTACTS, 40).map(
      (p) => hubspot.createContact({ email: p.workEmail! }).id,
    );
    const started = await stack.running.admin('POST', '/backfills', { connection: 'hubspot', object: 'contact' });
    expect(started.status).toBe(202);
    await eventually(
      () => (ids.every((id) => hubspot.getContact(id)?.crm_enrich_enriched_at) ? true : undefined),
      15_000,
      'every listed contact to be enriched',
    );
    expect(ids.filter((id) => !hubspot.getContact(id)?.jobtitle)).toEqual([]);
  });
});
