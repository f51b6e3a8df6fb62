/**
 * The catch-up sweep: webhooks are dropped once the CRM's retries run out, so the scheduled tick asks
 * each CRM for records created or changed since the last sweep and enriches the ones never seen.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { settled } from './probes.js';
import { eventually, partnerPeople } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping catch-up tests: ${skip}`);

describe.skipIf(skip)('catch-up sweep', () => {
  const stack = useStack();

  it('enriches records whose webhooks never arrived, once', async () => {
    const { sandboxes, running } = stack;
    // The first sweep looks back one day, so this tick's own view starts clean.
    await running.service.parts.refreshNow();
    sandboxes.hubspot.setWebhookUrl(undefined);
    const [person] = partnerPeople(sandboxes, 1, 60);
    const missed = sandboxes.hubspot.createContact({ email: person!.workEmail! });
    sandboxes.hubspot.setWebhookUrl(`${running.url}/webhooks/hubspot`);
    await new Promise((r) => setTimeout(r, 50));

    const first = await running.service.parts.refreshNow();
    expect(first.catchup).toBeGreaterThanOrEqual(1);
    await eventually(
      () => sandboxes.hubspot.getContact(missed.id)?.crm_enrich_enriched_at,
      10_000,
      'the missed contact to be enriched',
    );
    await settled(stack);

    const second = await running.service.parts.refreshNow();
    expect(second.catchup).toBe(0);
  });
});

describe.skipIf(skip)("catch-up sweep with HubSpot's search indexing lag", () => {
  const stack = useStack({ sandboxes: { searchLagMs: 1_500 } });

  it('finds, on the next sweep, a record changed just before a sweep that search did not show yet', async () => {
    const { sandboxes, running } = stack;
    await running.service.parts.refreshNow();
    sandboxes.hubspot.setWebhookUrl(undefined);
    const [person] = partnerPeople(sandboxes, 1, 70);
    const missed = sandboxes.hubspot.createContact({ email: person!.workEmail! });
    sandboxes.hubspot.setWebhookUrl(`${running.url}/webhooks/hubspot`);

    // Swept at once: the new contact is not indexed yet, so this sweep cannot see it.
    expect((await running.service.parts.refreshNow()).catchup).toBe(0);
    await new Promise((r) => setTimeout(r, 1_600));
    // The next sweep starts back by the listing lag, so the contact is not lost behind the watermark.
    expect((await running.service.parts.refreshNow()).catchup).toBe(1);
    await eventually(
      () => sandboxes.hubspot.getContact(missed.id)?.crm_enrich_enriched_at,
      10_000,
      'the missed contact to be enriched',
    );
  });
});
