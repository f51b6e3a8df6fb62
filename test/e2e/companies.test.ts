/**
 * A contact's employer is enriched once per domain, not once per contact: people of the same company
 * lead to one CRM search for their domains and one enrichment of the company record. A company the
 * service created is not enriched again when its creation event outruns the record of its creation, nor
 * counted as a change a script made with the service's token.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { hubspotCalls, partnerServed, schemaQuery, settled } from './probes.js';
import { eventually, partnerPeople } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping company tests: ${skip}`);

describe.skipIf(skip)('companies of enriched contacts', () => {
  const stack = useStack();

  it('enriches the company of three colleagues once, after one search for their domain', async () => {
    const { sandboxes, running } = stack;
    // Three people of one employer, and the employer's record in the CRM with just its domain.
    const byEmployer = new Map<string, typeof sandboxes.partner.dataset.personRecords>();
    for (const p of sandboxes.partner.dataset.personRecords) {
      if (!p.workEmail) continue;
      byEmployer.set(p.employer.domain, [...(byEmployer.get(p.employer.domain) ?? []), p]);
    }
    const [domain, colleagues] = [...byEmployer].find(([, people]) => people.length >= 3)!;
    // Created before the service hears of it (no webhook), as an existing company would be.
    sandboxes.hubspot.setWebhookUrl(undefined);
    const company = sandboxes.hubspot.createCompany({ domain });
    sandboxes.hubspot.setWebhookUrl(`${running.url}/webhooks/hubspot`);
    const searchesBefore = hubspotCalls(sandboxes, '/crm/objects/2026-09/companies/search');

    for (const person of colleagues.slice(0, 3)) sandboxes.hubspot.createContact({ email: person.workEmail! });
    const enriched = await eventually(
      () => {
        const c = sandboxes.hubspot.getCompany(company.id);
        return c?.crm_enrich_partner_id ? c : undefined;
      },
      10_000,
      'the company to be enriched',
    );
    expect(enriched.crm_enrich_partner_id).toBe(colleagues[0]!.employer.company.id);
    await settled(stack);

    expect(hubspotCalls(sandboxes, '/crm/objects/2026-09/companies/search') - searchesBefore).toBe(1);
    const jobs = await schemaQuery<{ n: number }>(
      running,
      `SELECT count(*)::int AS n FROM $schema.job WHERE name = 'enrich.hubspot.company'`,
    );
    expect(jobs[0]!.n).toBe(1);
    const writes = await schemaQuery<{ n: number }>(
      running,
      `SELECT count(DISTINCT job_id)::int AS n FROM $schema.audit_log ` +
        `WHERE object_type = 'company' AND record_id = $1 AND outcome = 'write'`,
      [company.id],
    );
    expect(writes[0]!.n).toBe(1);
  });

  it('neither reads nor looks up again a company it created whose creation event got past the intake', async () => {
    const { sandboxes, running } = stack;
    const readsBefore = hubspotCalls(sandboxes, '/crm/objects/2026-09/companies/batch/read');
    const lookupsBefore = partnerServed(sandboxes);
    const jobsBefore = await schemaQuery<{ n: number }>(
      running,
      `SELECT count(*)::int AS n FROM $schema.job WHERE name = 'enrich.hubspot.company'`,
    );
    // The creation event is a person's here, so the intake lets it through, as it does the service's own
    // when its creation is not in Postgres yet; the record of the creation is there before the job is claimed.
    const company = sandboxes.hubspot.createCompany({ domain: 'made-by-crm-enrich.example', name: 'Made Here' });
    await schemaQuery(
      running,
      `INSERT INTO $schema.created_record (connection, account, object_type, record_id)
       SELECT 'hubspot', account, 'company', $1 FROM $schema.connection_account
       WHERE connection = 'hubspot' ORDER BY last_seen DESC LIMIT 1`,
      [company.id],
    );
    await eventually(
      async () => {
        const jobs = await schemaQuery<{ n: number }>(
          running,
          `SELECT count(*)::int AS n FROM $schema.job WHERE name = 'enrich.hubspot.company'`,
        );
        return jobs[0]!.n > jobsBefore[0]!.n ? true : undefined;
      },
      10_000,
      'the creation event to become a job',
    );
    await settled(stack);

    expect(hubspotCalls(sandboxes, '/crm/objects/2026-09/companies/batch/read')).toBe(readsBefore);
    expect(partnerServed(sandboxes)).toBe(lookupsBefore);
    const state = await schemaQuery(running, `SELECT 1 FROM $schema.enrichment_state WHERE record_id = $1`, [
      company.id,
    ]);
    expect(state).toHaveLength(0);
  });

  it('counts none of the companies it creates as changes made with its token by someone else', async () => {
    const { sandboxes, running } = stack;
    const foreign = async () =>
      (await running.admin<{ today: { foreignTokenChanges: number } }>('GET', '/stats')).body.today.foreignTokenChanges;
    const foreignBefore = await foreign();
    const companiesBefore = sandboxes.hubspot.store.objects.companies.size;
    // The record of each creation reaches Postgres a moment after HubSpot announces the creation, and the
    // company's job is stored later still, as both wait behind an import's statements on the embedded
    // database: the intake cannot know these companies yet, the lane can.
    const { store, ports } = running.service.parts;
    const add = store.created.add.bind(store.created);
    store.created.add = async (...args) => {
      await new Promise((r) => setTimeout(r, 300));
      return add(...args);
    };
    const enqueue = ports.enqueue.enqueue.bind(ports.enqueue);
    ports.enqueue.enqueue = async (jobs) => {
      if (jobs.some((j) => j.data.objectType === 'company')) await new Promise((r) => setTimeout(r, 1_000));
      return enqueue(jobs);
    };
    // People of 60 employers the CRM does not hold yet, imported by another app: the service creates each
    // employer's company with its own token, and HubSpot announces each creation as that token's.
    const seen = new Set<string>();
    const people = partnerPeople(sandboxes, 2_000, 1_000)
      .filter((p) => !seen.has(p.employer.domain) && seen.add(p.employer.domain))
      .slice(0, 60);
    const res = await fetch(`${sandboxes.hubspot.url}/crm/v3/objects/contacts/batch/create`, {
      method: 'POST',
      headers: { authorization: 'Bearer sandbox-importer-token', 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: people.map((p) => ({ properties: { email: p.workEmail! } })) }),
    });
    expect(res.status).toBe(201);
    await eventually(
      () => (sandboxes.hubspot.store.objects.companies.size - companiesBefore >= 50 ? true : undefined),
      20_000,
      'the employers to be created',
    );
    await settled(stack, 20_000);
    store.created.add = add;
    ports.enqueue.enqueue = enqueue;

    expect(await foreign()).toBe(foreignBefore);
  });
});
