/**
 * HubSpot's webhooks journal as the service's source of events (HUBSPOT_EVENTS): a service that only
 * reads the journal enriches a new contact with no webhook delivered; a service with both sources,
 * stopped for a day while HubSpot's webhooks went undelivered, catches up from the journal, running
 * every event of the outage once and none twice; and the journal's offset is kept per portal across
 * restarts. The service's own journal reader, over HTTP, against the HubSpot sandbox's journal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOURNAL_FEED } from '../../connectors/hubspot/journal-client.js';
import { serverUnavailable, uniqueSchema } from '../support/db.js';
import { dropSchema, jobsInFlight, schemaQuery } from './probes.js';
import {
  eventually,
  partnerPeople,
  startSandboxes,
  startService,
  type RunningService,
  type Sandboxes,
} from './stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping the webhooks journal tests: ${skip}`);

const DAY_MS = 86_400_000;

const journalEnv = (events: 'journal' | 'both') => ({
  HUBSPOT_CLIENT_ID: 'sandbox-client-id',
  HUBSPOT_EVENTS: events,
  HUBSPOT_JOURNAL_POLL_MS: '300',
});

/** Partner person lookups served so far (GET /people); the cache answers a second run of a record. */
const personLookups = (sandboxes: Sandboxes) => sandboxes.partner.stats().byEndpoint['GET /people'] ?? 0;

/** Enrichment jobs stored for each of these contacts, by id. */
async function jobsPerContact(running: RunningService, ids: string[]): Promise<Record<string, number>> {
  const rows = await schemaQuery<{ id: string; n: number }>(
    running,
    `SELECT data->>'recordId' AS id, count(*)::int AS n FROM $schema.job
      WHERE name = 'enrich.hubspot.contact' AND data->>'recordId' = ANY($1) GROUP BY 1`,
    [ids],
  );
  return Object.fromEntries(ids.map((id) => [id, rows.find((r) => r.id === id)?.n ?? 0]));
}

const enriched = (sandboxes: Sandboxes, id: string) => !!sandboxes.hubspot.getContact(id)?.crm_enrich_partner_id;

/** The stored journal offset of the connection, with the account it is kept for. */
async function storedOffsets(running: RunningService) {
  return schemaQuery<{ account: string; position: string }>(
    running,
    `SELECT account, position FROM $schema.feed_position WHERE connection = 'hubspot' AND feed = $1`,
    [JOURNAL_FEED],
  );
}

/**
 * Waits until no job is left and the service has read the journal to its newest entry (the service's own
 * writes are journaled too, so the newest entry moves until its work is done).
 */
async function readToTheEnd(sandboxes: Sandboxes, running: RunningService): Promise<void> {
  await eventually(
    async () => {
      if ((await jobsInFlight(running)) > 0) return undefined;
      const latest = sandboxes.hubspot.journal.list().at(-1)?.offset;
      return (await storedOffsets(running))[0]?.position === latest ? true : undefined;
    },
    15_000,
    'the journal to be read to its newest entry',
  );
}

describe.skipIf(skip)('HubSpot webhooks journal', () => {
  let sandboxes: Sandboxes;
  const schemas: string[] = [];
  let running: RunningService | undefined;

  beforeAll(async () => {
    sandboxes = await startSandboxes({ people: 1_000, companies: 200 });
  });
  afterAll(async () => {
    await running?.stop();
    await sandboxes?.close();
    for (const schema of schemas) await dropSchema(schema);
  });

  const stop = async () => {
    await running?.stop();
    running = undefined;
  };
  /** A service on `schema`, once it has made its journal subscriptions and read the journal once. */
  const start = async (events: 'journal' | 'both', schema = uniqueSchema('journal')) => {
    if (!schemas.includes(schema)) schemas.push(schema);
    // A service left by a failed test would read the same journal and change what this one sees.
    await stop();
    const started = await startService(sandboxes, { schema, env: journalEnv(events) });
    running = started;
    await eventually(() => (started.service.parts.feeds[0]!.stats.reads > 0 ? true : undefined), 10_000, 'a read');
    return started;
  };

  it('enriches a new contact with no webhook delivered when the service reads only the journal', async () => {
    const service = await start('journal');
    // No public URL: HubSpot has nowhere to deliver webhooks.
    sandboxes.hubspot.setWebhookUrl(undefined);
    const sentBefore = sandboxes.hubspot.stats().webhooks.deliveries;
    const [person] = partnerPeople(sandboxes, 1, 10);
    const contact = sandboxes.hubspot.createContact({ email: person!.workEmail! });

    await eventually(() => (enriched(sandboxes, contact.id) ? true : undefined), 15_000, 'the contact enriched');
    expect(sandboxes.hubspot.stats().webhooks.deliveries).toBe(sentBefore);
    expect(await jobsPerContact(service, [contact.id])).toEqual({ [contact.id]: 1 });
    // The journal's subscriptions were made by the service, for the properties its mappings match on.
    const subscriptions = sandboxes.hubspot.journal.subscriptionsOf(1_000_001);
    expect(subscriptions.map((s) => s.objectTypeId).sort()).toEqual(['0-1', '0-2']);
    await stop();
  });

  it(
    'catches up from the journal after a day-long outage whose webhooks were lost: every event of the ' +
      'outage run once, none twice, and the offset kept for the portal across the restart',
    async () => {
      const schema = uniqueSchema('journal');
      const first = await start('both', schema);
      const [before, ...rest] = partnerPeople(sandboxes, 7, 40);
      const outagePeople = rest.slice(0, 4);
      const after = rest[4]!;
      const movedTo = rest[5]!;

      // Running: the webhook and the journal both bring the new contact; it runs once.
      const early = sandboxes.hubspot.createContact({ email: before!.workEmail! });
      await eventually(() => (enriched(sandboxes, early.id) ? true : undefined), 15_000, 'the first contact');
      await readToTheEnd(sandboxes, first);
      expect(await jobsPerContact(first, [early.id])).toEqual({ [early.id]: 1 });
      const [kept] = await storedOffsets(first);
      expect(kept?.account).toBe(String(sandboxes.hubspot.portalId));
      await stop();

      // The outage: HubSpot's webhooks reach nobody and are given up; a day passes.
      const deliveredBefore = sandboxes.hubspot.stats().webhooks.eventsSent;
      const outage = outagePeople.map((p) => sandboxes.hubspot.createContact({ email: p.workEmail! }));
      sandboxes.hubspot.updateRecord('contacts', early.id, { email: movedTo.workEmail! });
      sandboxes.hubspot.journal.age(DAY_MS);
      await sandboxes.hubspot.webhooksIdle();
      expect(sandboxes.hubspot.stats().webhooks.eventsSent).toBe(deliveredBefore);
      expect(outage.some((c) => enriched(sandboxes, c.id))).toBe(false);

      // Restarted on the same database: the journal is read on from the stored offset.
      const lookupsBefore = personLookups(sandboxes);
      sandboxes.hubspot.recordWrites();
      const writesBefore = sandboxes.hubspot.writes().length;
      const second = await start('both', schema);
      const reader = second.service.parts.feeds[0]!;
      await eventually(
        () => (outage.every((c) => enriched(sandboxes, c.id)) ? true : undefined),
        20_000,
        'every contact of the outage enriched',
      );
      // After the restart, webhooks are the fast path again, and the journal brings the same event.
      const late = sandboxes.hubspot.createContact({ email: after.workEmail! });
      await eventually(() => (enriched(sandboxes, late.id) ? true : undefined), 15_000, 'the contact made after');
      await readToTheEnd(sandboxes, second);

      const ids = [...outage.map((c) => c.id), late.id];
      expect(await jobsPerContact(second, ids)).toEqual(Object.fromEntries(ids.map((id) => [id, 1])));
      expect(reader.stats.duplicates).toBeGreaterThan(0);
      const writes = sandboxes.hubspot
        .writes()
        .slice(writesBefore)
        .filter((w) => w.objectType === 'contacts');
      for (const id of ids)
        expect(
          writes.filter((w) => w.id === id),
          `writes of contact ${id}`,
        ).toHaveLength(1);
      // One lookup per new contact; the changed e-mail of the first contact is its own event, looked up once.
      expect(personLookups(sandboxes) - lookupsBefore).toBe(ids.length + 1);
      expect(await jobsPerContact(second, [early.id])).toEqual({ [early.id]: 2 });

      // The offset is the portal's and survives the restart: nothing read before is read again.
      const offsets = await storedOffsets(second);
      expect(offsets).toEqual([
        { account: String(sandboxes.hubspot.portalId), position: sandboxes.hubspot.journal.list().at(-1)!.offset },
      ]);
      await stop();
      const third = await start('both', schema);
      await new Promise((r) => setTimeout(r, 1_000));
      expect(third.service.parts.feeds[0]!.stats.entries).toBe(0);
      expect(third.service.parts.feeds[0]!.stats.reads).toBeGreaterThan(0);
      await stop();
    },
  );

  it('reads on from the oldest entry kept when the stored offset has expired, after more than three days', async () => {
    const schema = uniqueSchema('journal');
    const first = await start('journal', schema);
    sandboxes.hubspot.setWebhookUrl(undefined);
    const [old, fresh] = partnerPeople(sandboxes, 2, 80);
    const before = sandboxes.hubspot.createContact({ email: old!.workEmail! });
    await eventually(() => (enriched(sandboxes, before.id) ? true : undefined), 15_000, 'the contact before');
    await readToTheEnd(sandboxes, first);
    const [kept] = await storedOffsets(first);
    await stop();

    // Four days without the service: every entry it knew is gone from the journal.
    sandboxes.hubspot.journal.age(4 * DAY_MS);
    expect(sandboxes.hubspot.journal.list().map((e) => e.offset)).not.toContain(kept!.position);
    const second = await start('journal', schema);
    sandboxes.hubspot.setWebhookUrl(undefined);
    const after = sandboxes.hubspot.createContact({ email: fresh!.workEmail! });
    await eventually(() => (enriched(sandboxes, after.id) ? true : undefined), 15_000, 'the contact after');
    await readToTheEnd(sandboxes, second);
    expect((await storedOffsets(second))[0]?.position).not.toBe(kept!.position);
    await stop();
  });
});
