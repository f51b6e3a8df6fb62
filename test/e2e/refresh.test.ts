/**
 * The scheduled refresh through the whole loop, with time moved on by shifting what the service
 * stored: it brings the partner's new data once REFRESH_AFTER_DAYS have passed, a value a person
 * typed (before or after the first enrichment) survives under protect_edits with the audit saying
 * why, and unchanged partner data costs one partner call per record and no CRM call at all.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { hubspotCalls, partnerServed, schemaQuery, settled, stateReaches } from './probes.js';
import { eventually, partnerPeople } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping end-to-end tests: ${skip}`);

interface RecordView {
  state: { status: string; nextRefreshAt: string; lastWritten: Record<string, string | null> };
  audit: {
    property: string | null;
    oldValue: string | null;
    newValue: string | null;
    rule: string | null;
    outcome: string | null;
    reason: string | null;
  }[];
}

const DAYS = 7;

describe.skipIf(skip)('refresh', () => {
  // Shorter than the 30 days the lookup cache keeps a partner answer by default: a refresh must still
  // reach the partner.
  const stack = useStack({ service: { env: { REFRESH_AFTER_DAYS: String(DAYS) } } });

  /** Creates contacts for partner people and waits until each is enriched and the echoes are settled. */
  async function enrichedContacts(n: number, offset: number) {
    const people = partnerPeople(stack.sandboxes, n, offset);
    const contacts = people.map((p) => ({
      record: p,
      person: p.person,
      email: p.workEmail!,
      id: stack.sandboxes.hubspot.createContact({ email: p.workEmail! }).id,
    }));
    for (const c of contacts)
      await stateReaches(stack.running, { connection: 'hubspot', objectType: 'contact', recordId: c.id }, 'enriched');
    await settled(stack);
    return contacts;
  }

  /** DAYS pass for these contacts: their state and the partner answers cached for them move that far back. */
  async function daysPass(contacts: { id: string; email: string; person: { id?: string } }[]): Promise<void> {
    const shift = `interval '${DAYS} days'`;
    const keys = contacts.flatMap((c) => [c.email.toLowerCase(), c.person.id!.toLowerCase()]);
    await schemaQuery(
      stack.running,
      `UPDATE $schema.lookup_cache SET fetched_at = fetched_at - ${shift}, expires_at = expires_at - ${shift} ` +
        `WHERE value = ANY($1)`,
      [keys],
    );
    await schemaQuery(
      stack.running,
      `UPDATE $schema.enrichment_state ` +
        `SET next_refresh_at = next_refresh_at - ${shift}, last_enriched_at = last_enriched_at - ${shift} ` +
        `WHERE object_type = 'contact' AND record_id = ANY($1)`,
      [contacts.map((c) => c.id)],
    );
  }

  const view = async (id: string) =>
    (await stack.running.admin<RecordView>('GET', `/records/hubspot/contact/${id}`)).body;

  it(
    "brings the partner's new data after REFRESH_AFTER_DAYS but keeps a value a person edited, " +
      'and the audit says why',
    async () => {
      const [contact] = await enrichedContacts(1, 20);
      const { person, id, record: partnerRecord } = contact!;
      const ourTitle = person.position!;
      expect(stack.sandboxes.hubspot.getContact(id)?.jobtitle).toBe(ourTitle);

      const edited = `${ourTitle} (as the account manager knows it)`;
      stack.sandboxes.hubspot.updateRecord('contacts', id, { jobtitle: edited });
      // The partner's data moves on: a new title (which must not replace the edit) and a new headline
      // (which must be written).
      partnerRecord.change({ position: 'Chief Refresh Officer', headline: 'Now refreshing records for a living' });
      Object.assign(person, partnerRecord.person);
      await daysPass([contact!]);

      expect((await stack.running.service.parts.refreshNow()).refresh).toBe(1);
      const after = await eventually(
        () => {
          const c = stack.sandboxes.hubspot.getContact(id);
          return c?.crm_enrich_headline === person.headline ? c : undefined;
        },
        10_000,
        'the refreshed headline',
      );
      await settled(stack);

      expect(after.jobtitle).toBe(edited);
      const record = await view(id);
      const kept = record.audit.find((a) => a.property === 'jobtitle' && a.outcome === 'kept_person_edit');
      expect(kept, JSON.stringify(record.audit)).toBeDefined();
      expect(kept!.oldValue).toBe(edited);
      expect(kept!.newValue).toBe('Chief Refresh Officer');
      expect(kept!.rule).toBe('protect_edits');
      expect(kept!.reason).toMatch(/person changed/);
      expect(
        record.audit.some(
          (a) => a.property === 'crm_enrich_headline' && a.outcome === 'write' && a.newValue === person.headline,
        ),
      ).toBe(true);
      // What we last wrote is still the old title, so the next refresh also knows the edit is a person's.
      expect(record.state.lastWritten.jobtitle).toBe(ourTitle);
      expect(record.state.status).toBe('enriched');
      expect(Date.parse(record.state.nextRefreshAt)).toBeGreaterThan(Date.now() + 86_400_000);
    },
  );

  it('keeps a value a person typed before the first enrichment, and the audit says why', async () => {
    const [p] = partnerPeople(stack.sandboxes, 1, 80);
    const typed = 'Head of Things (typed by sales)';
    const { id } = stack.sandboxes.hubspot.createContact({ email: p!.workEmail!, jobtitle: typed });
    await stateReaches(stack.running, { connection: 'hubspot', objectType: 'contact', recordId: id }, 'enriched');
    await settled(stack);

    const contact = stack.sandboxes.hubspot.getContact(id)!;
    expect(p!.person.position).not.toBe(typed);
    expect(contact.jobtitle).toBe(typed);
    expect(contact.crm_enrich_partner_id).toBe(p!.person.id);
    const record = await view(id);
    expect(record.audit.find((a) => a.property === 'jobtitle')).toMatchObject({
      outcome: 'kept_person_edit',
      oldValue: typed,
      newValue: p!.person.position,
      reason: 'a value crm-enrich did not write is kept',
    });
    expect(record.state.lastWritten.jobtitle).toBeUndefined();
  });

  it('makes no CRM call and one partner call per record when a refresh finds the data unchanged', async () => {
    const contacts = await enrichedContacts(3, 40);
    const ids = contacts.map((c) => c.id);
    const before = {
      updates: hubspotCalls(stack.sandboxes, 'contacts/batch/update'),
      reads: hubspotCalls(stack.sandboxes, 'contacts/batch/read'),
      partner: partnerServed(stack.sandboxes),
    };
    const auditRows = async () =>
      (
        await schemaQuery<{ n: number }>(
          stack.running,
          `SELECT count(*)::int AS n FROM $schema.audit_log WHERE record_id = ANY($1)`,
          [ids],
        )
      )[0]!.n;
    const auditBefore = await auditRows();
    await daysPass(contacts);

    expect((await stack.running.service.parts.refreshNow()).refresh).toBe(3);
    await eventually(
      async () => {
        const rows = await schemaQuery(
          stack.running,
          `SELECT 1 FROM $schema.enrichment_state WHERE record_id = ANY($1) AND next_refresh_at > now()`,
          [ids],
        );
        return rows.length === 3 ? true : undefined;
      },
      10_000,
      'the refreshed records to be due again in the future',
    );
    await settled(stack);

    expect(hubspotCalls(stack.sandboxes, 'contacts/batch/update')).toBe(before.updates);
    expect(hubspotCalls(stack.sandboxes, 'contacts/batch/read')).toBe(before.reads);
    // Each record asked the partner once, by the key that matched last time, and needed nothing more.
    expect(partnerServed(stack.sandboxes)).toBe(before.partner + 3);
    expect(await auditRows()).toBe(auditBefore + 3);
    for (const id of ids) {
      const [latest] = (await view(id)).audit;
      expect(latest?.outcome).toBe('unchanged');
    }
    // A second refresh tick finds nothing due: the refreshed records moved their due time forward.
    expect((await stack.running.service.parts.refreshNow()).refresh).toBe(0);
  });
});
