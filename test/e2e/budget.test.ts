/**
 * The daily partner credit budget: bulk work stops at PARTNER_DAILY_LOOKUP_BUDGET, a record a person
 * just created goes on up to PARTNER_DAILY_LOOKUP_HARD_CAP, and the admin stats say so.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { partnerServed } from './probes.js';
import { eventually, partnerPeople } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping budget tests: ${skip}`);

interface Stats {
  today: { partnerLookups: number; budget: number; budgetLeft: number; hardCap: number; bulkPaused: boolean };
}

describe.skipIf(skip)('partner credit budget', () => {
  const stack = useStack({
    service: { env: { PARTNER_DAILY_LOOKUP_BUDGET: '3', PARTNER_DAILY_LOOKUP_HARD_CAP: '5' } },
  });

  it('pauses a backfill at the budget and still enriches new records up to the hard cap', async () => {
    const { sandboxes, running } = stack;
    sandboxes.hubspot.setWebhookUrl(undefined);
    const existing = partnerPeople(sandboxes, 6, 300).map(
      (p) => sandboxes.hubspot.createContact({ email: p.workEmail! }).id,
    );
    sandboxes.hubspot.setWebhookUrl(`${running.url}/webhooks/hubspot`);
    const served = partnerServed(sandboxes);

    expect((await running.admin('POST', '/backfills', { connection: 'hubspot', object: 'contact' })).status).toBe(202);
    const paused = await eventually(
      async () => {
        const stats = (await running.admin<Stats>('GET', '/stats')).body;
        return stats.today.bulkPaused ? stats : undefined;
      },
      10_000,
      'bulk work to pause at the budget',
    );
    expect(paused.today).toMatchObject({ partnerLookups: 3, budget: 3, budgetLeft: 0, hardCap: 5 });
    await new Promise((r) => setTimeout(r, 500));
    expect(partnerServed(sandboxes) - served).toBe(3);
    expect(existing.filter((id) => sandboxes.hubspot.getContact(id)?.crm_enrich_enriched_at)).toHaveLength(3);

    // A contact created now is work a person waits for: it goes past the budget, up to the hard cap.
    const [fresh] = partnerPeople(sandboxes, 1, 320);
    const { id } = sandboxes.hubspot.createContact({ email: fresh!.workEmail! });
    await eventually(
      () => sandboxes.hubspot.getContact(id)?.crm_enrich_enriched_at,
      5_000,
      'the new contact to be enriched',
    );
    expect(partnerServed(sandboxes) - served).toBe(4);
    expect(existing.filter((id) => sandboxes.hubspot.getContact(id)?.crm_enrich_enriched_at)).toHaveLength(3);
  });
});
