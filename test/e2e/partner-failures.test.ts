/**
 * The partner failing: at a 30 % failure rate every record still ends enriched; with the partner
 * down, jobs retry, land in the dead letter with their error, and replay to success once it is back.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { settled } from './probes.js';
import { eventually, partnerPeople } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping end-to-end tests: ${skip}`);

interface DeadLetterView {
  id: string;
  queue: string;
  data: { connection: string; objectType: string; recordId: string };
  error: { message: string; code?: string };
  attempts: number;
}

describe.skipIf(skip)('partner failures', () => {
  const stack = useStack({
    sandboxes: { partnerFailRate: 0.3 },
    service: { queue: { maxAttempts: 2, retryDelaySeconds: 1, retryDelayMaxSeconds: 1 } },
  });

  function createContacts(n: number, offset: number) {
    return partnerPeople(stack.sandboxes, n, offset).map((p) => ({
      person: p.person,
      id: stack.sandboxes.hubspot.createContact({ email: p.workEmail! }).id,
    }));
  }

  const enrichedIds = async (ids: string[]) => {
    const states = await stack.running.service.parts.store.state.getMany('hubspot', 'contact', ids);
    return ids.filter((id) => states.get(id)?.status === 'enriched');
  };

  it('enriches every record while the partner fails 30 % of requests', async () => {
    const contacts = createContacts(10, 100);
    const ids = contacts.map((c) => c.id);
    await eventually(
      async () => ((await enrichedIds(ids)).length === ids.length ? true : undefined),
      30_000,
      'all ten contacts to be enriched',
    );
    await settled(stack);

    expect(stack.sandboxes.partner.stats().injectedFailures).toBeGreaterThan(0);
    for (const { id, person } of contacts) {
      const contact = stack.sandboxes.hubspot.getContact(id)!;
      expect(contact.jobtitle).toBe(person.position);
      expect(contact.crm_enrich_partner_id).toBe(person.id);
    }
    expect((await stack.running.admin<{ deadLetters: unknown[] }>('GET', '/dead-letters')).body.deadLetters).toEqual(
      [],
    );
  });

  it(
    'parks jobs in the dead letter while the partner is down, and replays one, then all, ' +
      'to success once it is back',
    async () => {
      stack.sandboxes.partner.setFailRate(1);
      const contacts = createContacts(3, 200);
      const ids = contacts.map((c) => c.id);

      const dead = await eventually(
        async () => {
          const res = await stack.running.admin<{ deadLetters: DeadLetterView[] }>('GET', '/dead-letters');
          const ours = res.body.deadLetters.filter((d) => ids.includes(d.data.recordId));
          return ours.length === ids.length ? ours : undefined;
        },
        30_000,
        'the three jobs to reach the dead letter',
      );
      for (const letter of dead) {
        expect(letter.queue).toBe('enrich.hubspot.contact');
        expect(letter.attempts).toBe(2);
        expect(letter.error.code).toBe('server_error');
        expect(letter.error.message).toMatch(/partner API failed/);
      }
      expect(await enrichedIds(ids)).toEqual([]);
      for (const { id } of contacts) expect(stack.sandboxes.hubspot.getContact(id)?.jobtitle ?? '').toBe('');
      const stats = await stack.running.admin<{ deadLetters: number }>('GET', '/stats');
      expect(stats.body.deadLetters).toBe(3);

      stack.sandboxes.partner.setFailRate(0);
      const [first, ...rest] = dead;
      const one = await stack.running.admin<{ replayed: number }>('POST', '/dead-letters/replay', { ids: [first!.id] });
      expect(one.body.replayed).toBe(1);
      await eventually(
        async () => ((await enrichedIds([first!.data.recordId])).length === 1 ? true : undefined),
        10_000,
        'the one replayed contact to be enriched',
      );
      const left = (await stack.running.admin<{ deadLetters: DeadLetterView[] }>('GET', '/dead-letters')).body
        .deadLetters;
      expect(left.map((d) => d.id).sort()).toEqual(rest.map((d) => d.id).sort());

      const replay = await stack.running.admin<{ replayed: number }>('POST', '/dead-letters/replay', {});
      expect(replay.status).toBe(200);
      expect(replay.body.replayed).toBe(2);

      await eventually(
        async () => ((await enrichedIds(ids)).length === ids.length ? true : undefined),
        10_000,
        'the replayed contacts to be enriched',
      );
      for (const { id, person } of contacts)
        expect(stack.sandboxes.hubspot.getContact(id)?.jobtitle).toBe(person.position);
      expect((await stack.running.admin<{ deadLetters: unknown[] }>('GET', '/dead-letters')).body.deadLetters).toEqual(
        [],
      );
    },
  );
});
