/**
 * A refresh of a few thousand Salesforce contacts through the whole loop: the lane gathers their bulk
 * writes into batches the size the connector asks for (SALESFORCE_BULK_WRITE_MIN), the connector sends
 * them through Bulk API 2.0 ingest jobs, and every record's outcome is recorded from its own row of the
 * job's results, in a handful of API calls rather than a collections call per 200 records.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { schemaQuery, settled } from './probes.js';
import { eventually, partnerPeople } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping end-to-end tests: ${skip}`);

const CONTACTS = 2_500;
const DAYS = 7;

describe.skipIf(skip)('Salesforce bulk writes through Bulk API 2.0 ingest', () => {
  const stack = useStack({
    sandboxes: { people: 3_400, companies: 300, partnerRateLimit: 1_000 },
    service: {
      env: {
        REFRESH_AFTER_DAYS: String(DAYS),
        PARTNER_RATE_LIMIT: '1000',
        SALESFORCE_CREATE_ACCOUNTS: 'false',
        SALESFORCE_BULK_WRITE_MIN: '1000',
      },
    },
  });

  const calls = () => ({ ...stack.sandboxes.salesforce.stats().byOperation });
  const spent = (before: Record<string, number>, op: string) => (calls()[op] ?? 0) - (before[op] ?? 0);

  /** Records whose state is enriched and due again after `since`, of these ids. */
  const refreshedSince = async (ids: string[], since: Date) =>
    (
      await schemaQuery<{ n: number }>(
        stack.running,
        `SELECT count(*)::int AS n FROM $schema.enrichment_state
          WHERE object_type = 'Contact' AND record_id = ANY($1) AND last_enriched_at >= $2 AND next_refresh_at > now()`,
        [ids, since],
      )
    )[0]!.n;

  it('writes a refresh of 2,500 contacts through ingest jobs, each outcome from its own row', async () => {
    const { salesforce } = stack.sandboxes;
    const people = partnerPeople(stack.sandboxes, CONTACTS);
    expect(people).toHaveLength(CONTACTS);
    const ids = people.map((p, i) =>
      salesforce.createRecord('Contact', { LastName: `Contact ${i}`, Email: p.workEmail! }, { notify: false }),
    );

    // A backfill enriches them first (bulk work too, so it goes through ingest as well).
    const start = new Date();
    expect(
      (await stack.running.admin('POST', '/backfills', { connection: 'salesforce', object: 'Contact' })).status,
    ).toBe(202);
    await eventually(
      async () => ((await refreshedSince(ids, start)) === CONTACTS ? true : undefined),
      60_000,
      'backfill',
    );
    await settled(stack, 20_000);

    // Time passes and the partner's data moves on for every one of them.
    for (const p of people) p.change({ position: `${p.person.position ?? 'Staff'} (promoted)` });
    const shift = `interval '${DAYS} days'`;
    await schemaQuery(
      stack.running,
      `UPDATE $schema.lookup_cache SET fetched_at = fetched_at - ${shift}, expires_at = expires_at - ${shift}`,
    );
    await schemaQuery(
      stack.running,
      `UPDATE $schema.enrichment_state SET next_refresh_at = next_refresh_at - ${shift},
         last_enriched_at = last_enriched_at - ${shift} WHERE object_type = 'Contact'`,
    );

    const before = calls();
    const jobsBefore = salesforce.stats().bulkIngest.jobs;
    const refreshStart = new Date();
    expect((await stack.running.service.parts.refreshNow()).refresh).toBe(CONTACTS);
    await eventually(
      async () => ((await refreshedSince(ids, refreshStart)) === CONTACTS ? true : undefined),
      60_000,
      'the refresh',
    );
    await settled(stack, 20_000);

    for (const [i, id] of ids.entries()) {
      if (i % 250 !== 0) continue;
      expect(salesforce.getRecord('Contact', id)?.Title).toMatch(/\(promoted\)$/);
    }
    // 2,500 writes gathered into two ingest jobs of SALESFORCE_BULK_WRITE_MIN (1,000) each, and the 500 left
    // once the lookups ran dry in three collections calls: not the thirteen collections calls of before.
    expect(salesforce.stats().bulkIngest.jobs - jobsBefore).toBe(2);
    expect(spent(before, 'ingest.create')).toBe(2);
    expect(spent(before, 'collections.update')).toBe(3);
    const writeAudits = await schemaQuery<{ n: number }>(
      stack.running,
      `SELECT count(DISTINCT record_id)::int AS n FROM $schema.audit_log
        WHERE record_id = ANY($1) AND property = 'Title' AND outcome = 'write' AND at >= $2`,
      [ids, refreshStart],
    );
    expect(writeAudits[0]!.n).toBe(CONTACTS);
  }, 180_000);
});
