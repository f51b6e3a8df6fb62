/**
 * A record the partner does not know: it ends as no_match, nothing is written to the CRM, and the
 * partner is not asked again about it until the cached miss expires.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { hubspotCalls, partnerServed, schemaQuery, settled } from './probes.js';
import { eventually } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping end-to-end tests: ${skip}`);

interface RecordView {
  state: { status: string; partnerId: string | null };
  audit: { property: string | null; outcome: string | null; reason: string | null; rule: string | null }[];
}

describe.skipIf(skip)('a record with no partner match', () => {
  // Employers' companies are created and counted in employers.test.ts; this file counts contacts alone.
  const stack = useStack({
    service: { env: { HUBSPOT_CREATE_COMPANIES: 'false', SALESFORCE_CREATE_ACCOUNTS: 'false' } },
  });

  // The rows about the record's enrichment; its company link has rows of its own (employers.test.ts).
  const enrichmentRows = (v: RecordView): RecordView => ({
    ...v,
    audit: v.audit.filter((a) => a.rule !== 'company_link'),
  });
  const view = async (id: string) =>
    enrichmentRows((await stack.running.admin<RecordView>('GET', `/records/hubspot/contact/${id}`)).body);
  const auditCount = async (id: string) =>
    (
      await schemaQuery<{ n: number }>(
        stack.running,
        `SELECT count(*)::int AS n FROM $schema.audit_log ` +
          `WHERE object_type = 'contact' AND record_id = $1 AND rule IS DISTINCT FROM 'company_link'`,
        [id],
      )
    )[0]!.n;
  const enrichAgain = async (id: string, expectedAuditRows: number) => {
    const res = await stack.running.admin<{ queued: boolean }>('POST', `/records/hubspot/contact/${id}/enrich`);
    expect(res.status).toBe(202);
    expect(res.body.queued).toBe(true);
    await eventually(
      async () => ((await auditCount(id)) >= expectedAuditRows ? true : undefined),
      10_000,
      `audit row ${expectedAuditRows} of ${id}`,
    );
    await settled(stack);
  };

  it('ends as no_match, writes nothing, and asks the partner again only after the cached miss expires', async () => {
    const email = 'nobody.known@unlisted-company.example';
    const created = stack.sandboxes.hubspot.createContact({ email, firstname: 'Nobody' });
    const servedBefore = partnerServed(stack.sandboxes);

    const first = await eventually(
      async () => {
        const r = await stack.running.admin<RecordView>('GET', `/records/hubspot/contact/${created.id}`);
        return r.status === 200 && r.body.state?.status === 'no_match' ? enrichmentRows(r.body) : undefined;
      },
      10_000,
      'the contact to end as no_match',
    );
    await settled(stack);
    expect(first.state.partnerId).toBeNull();
    expect(first.audit).toHaveLength(1);
    expect(first.audit[0]!.outcome).toBe('no_match');
    expect(first.audit[0]!.reason).toMatch(/work_email, then personal_email/);
    // The e-mail was tried as a work address and as a personal one: two partner calls, no more.
    const servedAfterFirst = partnerServed(stack.sandboxes);
    expect(servedAfterFirst - servedBefore).toBe(2);
    expect(hubspotCalls(stack.sandboxes, 'contacts/batch/update')).toBe(0);
    const contact = stack.sandboxes.hubspot.getContact(created.id)!;
    expect(Object.keys(contact).filter((p) => p.startsWith('crm_enrich_'))).toEqual([]);
    expect(contact.jobtitle ?? '').toBe('');

    // Asked again within the cache's time: the misses answer, the partner is not called.
    await enrichAgain(created.id, 2);
    expect(partnerServed(stack.sandboxes)).toBe(servedAfterFirst);
    expect((await view(created.id)).audit.map((a) => a.outcome)).toEqual(['no_match', 'no_match']);
    expect(hubspotCalls(stack.sandboxes, 'contacts/batch/update')).toBe(0);

    // Once the misses expire, the next enrichment asks the partner again: the cache, not a lost job, kept it quiet.
    await schemaQuery(
      stack.running,
      `UPDATE $schema.lookup_cache SET expires_at = now() - interval '1 second' WHERE value = $1`,
      [email],
    );
    await enrichAgain(created.id, 3);
    expect(partnerServed(stack.sandboxes)).toBe(servedAfterFirst + 2);
    expect((await view(created.id)).state.status).toBe('no_match');
    expect(hubspotCalls(stack.sandboxes, 'contacts/batch/update')).toBe(0);
  });
});
