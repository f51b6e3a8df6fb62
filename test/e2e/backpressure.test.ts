/**
 * An import's backlog waits in Postgres, not in memory: however many webhooks arrive and wake the
 * lane, it holds at most two batches being looked up, one batch of finished records whose write is
 * waiting to go, and a little room for work a person waits for; the limiter's waiting list stays
 * within that too. A contact a person creates during the import is
 * enriched while the import's jobs still wait.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { schemaQuery } from './probes.js';
import { eventually, partnerPeople } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping the backpressure test: ${skip}`);

const IMPORTED = 1_500;
const SINGLES = 5;
/**
 * Two HubSpot batches of 100 being looked up, one waiting to be written, and the interactive room
 * (a tenth of a batch, at least 5: 10).
 */
const MAX_HELD = 3 * 100 + 10;

describe.skipIf(skip)('backpressure during an import', () => {
  const stack = useStack({ sandboxes: { people: 3_000, companies: 300, partnerLatencyMs: 150 } });

  it('holds a bounded number of jobs while the backlog is in Postgres, yet enriches a new contact first', async () => {
    const { sandboxes, running } = stack;
    const people = partnerPeople(sandboxes, IMPORTED + SINGLES);
    // The import: its events say IMPORT and arrive in full deliveries (bulk work).
    for (const p of people.slice(0, IMPORTED)) sandboxes.hubspot.createContact({ email: p.workEmail! }, 'IMPORT');
    await eventually(
      async () => {
        const [row] = await schemaQuery<{ n: number }>(
          running,
          `SELECT count(*)::int AS n FROM $schema.job WHERE name = 'enrich.hubspot.contact'`,
        );
        return row!.n >= IMPORTED ? true : undefined;
      },
      20_000,
      'the import to be stored',
    );

    let mostHeld = 0;
    let mostQueued = 0;
    const sample = async () => {
      const [row] = await schemaQuery<{ n: number }>(
        running,
        `SELECT count(*)::int AS n FROM $schema.job WHERE name = 'enrich.hubspot.contact' AND state = 'active'`,
      );
      mostHeld = Math.max(mostHeld, row!.n);
      mostQueued = Math.max(mostQueued, running.service.parts.limiter.counts().queued);
    };
    const sampler = setInterval(() => void sample(), 50);
    try {
      // People type contacts in one at a time during the import (CRM_UI): each delivery wakes the lane.
      const singles = people.slice(IMPORTED).map((p) => sandboxes.hubspot.createContact({ email: p.workEmail! }).id);
      await eventually(
        () => (singles.every((id) => sandboxes.hubspot.getContact(id)?.crm_enrich_enriched_at) ? true : undefined),
        30_000,
        'the single contacts to be enriched',
      );
      const [waiting] = await schemaQuery<{ n: number }>(
        running,
        `SELECT count(*)::int AS n FROM $schema.job WHERE name = 'enrich.hubspot.contact' AND state < 'active'`,
      );
      // People first: the import is far from done when the new contacts are.
      expect(waiting!.n).toBeGreaterThan(IMPORTED / 2);
      await new Promise((r) => setTimeout(r, 1_000));
    } finally {
      clearInterval(sampler);
    }
    expect(mostHeld).toBeGreaterThan(50);
    expect(mostHeld).toBeLessThanOrEqual(MAX_HELD);
    expect(mostQueued).toBeLessThanOrEqual(MAX_HELD);
  }, 90_000);
});
