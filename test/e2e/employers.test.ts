/**
 * Every enriched contact with its employer's company: found by domain or created once, linked through
 * HubSpot's v4 associations in batches, primary only where the contact has none, and never a company
 * for a free-mail domain or an employer the partner does not know.
 */
import { describe, expect, it } from 'vitest';
import { ASSOCIATION_TYPES } from '../../connectors/hubspot/sandbox/associations.js';
import { serverUnavailable } from '../support/db.js';
import { hubspotCalls, schemaQuery, settled } from './probes.js';
import { eventually, type Sandboxes } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping employer tests: ${skip}`);

type Person = Sandboxes['partner']['dataset']['personRecords'][number];

function employers(sandboxes: Sandboxes): [string, Person[]][] {
  const byEmployer = new Map<string, Person[]>();
  for (const p of sandboxes.partner.dataset.personRecords) {
    if (!p.workEmail) continue;
    byEmployer.set(p.employer.domain, [...(byEmployer.get(p.employer.domain) ?? []), p]);
  }
  return [...byEmployer].sort((a, b) => b[1].length - a[1].length);
}

const companiesWithDomain = (sandboxes: Sandboxes, domain: string) =>
  [...sandboxes.hubspot.store.objects.companies.values()].filter((c) => c.properties.get('domain') === domain);

describe.skipIf(skip)('contacts linked with their employers', () => {
  const stack = useStack({ sandboxes: { people: 4_000, companies: 80 } });

  it('creates one company for 30 colleagues of a new employer, linking each to it as primary in batches', async () => {
    const { sandboxes, running } = stack;
    const [domain, people] = employers(sandboxes).find(([, p]) => p.length >= 30)!;
    expect(companiesWithDomain(sandboxes, domain)).toHaveLength(0);
    const before = {
      creates: hubspotCalls(sandboxes, '/crm/objects/2026-09/companies/batch/create'),
      links: hubspotCalls(sandboxes, '/crm/associations/2026-09/contacts/companies/batch/create'),
    };

    const contacts = people.slice(0, 30).map((p) => sandboxes.hubspot.createContact({ email: p.workEmail! }, 'IMPORT'));
    await eventually(
      () => (contacts.every((c) => sandboxes.hubspot.getContact(c.id)?.associatedcompanyid) ? true : undefined),
      30_000,
      'every colleague to have a primary company',
    );
    await settled(stack);

    const created = companiesWithDomain(sandboxes, domain);
    expect(created).toHaveLength(1);
    const company = created[0]!;
    expect(company.properties.get('name')).toBe(people[0]!.employer.company.name);
    for (const c of contacts) {
      expect(sandboxes.hubspot.getContact(c.id)?.associatedcompanyid).toBe(company.id);
      const links = sandboxes.hubspot.store.associations.associated('contacts', c.id);
      expect(links).toEqual([
        {
          id: company.id,
          types: expect.arrayContaining([
            expect.objectContaining({ typeId: ASSOCIATION_TYPES.contactToCompany.primary }),
          ]),
        },
      ]);
    }
    // One creation call; links in batches, not one call per contact.
    expect(hubspotCalls(sandboxes, '/crm/objects/2026-09/companies/batch/create') - before.creates).toBe(1);
    expect(
      hubspotCalls(sandboxes, '/crm/associations/2026-09/contacts/companies/batch/create') - before.links,
    ).toBeLessThanOrEqual(3);
    // The created company is enriched like any other.
    await eventually(
      () => sandboxes.hubspot.getCompany(company.id)?.crm_enrich_partner_id,
      10_000,
      'the new company to be enriched',
    );
    expect(sandboxes.hubspot.getCompany(company.id)?.crm_enrich_partner_id).toBe(people[0]!.employer.company.id);

    // The state and the audit trail say which company and why.
    const states = await schemaQuery<{ company_id: string; company_reason: string }>(
      running,
      `SELECT company_id, company_reason FROM $schema.enrichment_state ` +
        `WHERE object_type = 'contact' AND record_id = ANY($1::text[])`,
      [contacts.map((c) => c.id)],
    );
    expect(states).toHaveLength(30);
    expect(new Set(states.map((s) => s.company_id))).toEqual(new Set([company.id]));
    expect(states.every((s) => s.company_reason.includes(domain))).toBe(true);
    const audit = await schemaQuery<{ outcome: string; n: number }>(
      running,
      `SELECT outcome, count(*)::int AS n FROM $schema.audit_log ` +
        `WHERE rule = 'company_link' AND record_id = ANY($1::text[]) GROUP BY outcome`,
      [contacts.map((c) => c.id)],
    );
    expect(audit).toEqual([{ outcome: 'linked_primary', n: 30 }]);
    const view = await running.admin<{ state: { companyId: string; companyReason: string } }>(
      'GET',
      `/records/hubspot/contact/${contacts[0]!.id}`,
    );
    expect(view.body.state.companyId).toBe(company.id);
    const stats = await running.admin<{ companies: { created: Record<string, number>; linkedRecords: number } }>(
      'GET',
      '/stats',
    );
    expect(Object.values(stats.body.companies.created)).toEqual([1]);
    expect(stats.body.companies.linkedRecords).toBe(30);
  });

  it(
    'reuses the oldest existing company of an employer, reports a duplicate, ' +
      'and keeps the primary company a person chose',
    async () => {
      const { sandboxes } = stack;
      const [domain, people] = employers(sandboxes).find(
        ([d, p]) => p.length >= 3 && companiesWithDomain(sandboxes, d).length === 0,
      )!;
      sandboxes.hubspot.setWebhookUrl(undefined);
      const existing = sandboxes.hubspot.createCompany({ domain, name: 'Existing employer' });
      const duplicate = sandboxes.hubspot.createCompany({ domain, name: 'Same employer, entered again' });
      const chosen = sandboxes.hubspot.createCompany({ domain: 'chosen-by-a-person.example', name: 'Chosen' });
      // A person already made another company this contact's primary one.
      const withPrimary = sandboxes.hubspot.createContact({ email: people[1]!.workEmail! });
      sandboxes.hubspot.store.associations.add(withPrimary.id, chosen.id, [
        ASSOCIATION_TYPES.contactToCompany.unlabeled,
        ASSOCIATION_TYPES.contactToCompany.primary,
      ]);
      sandboxes.hubspot.setWebhookUrl(`${stack.running.url}/webhooks/hubspot`);
      const plain = sandboxes.hubspot.createContact({ email: people[0]!.workEmail! });
      expect((await stack.running.admin('POST', `/records/hubspot/contact/${withPrimary.id}/enrich`)).status).toBe(202);

      await eventually(
        () => (sandboxes.hubspot.getContact(plain.id)?.associatedcompanyid ? true : undefined),
        10_000,
        'the contact to be linked',
      );
      await eventually(
        () =>
          sandboxes.hubspot.store.associations.associated('contacts', withPrimary.id).length === 2 ? true : undefined,
        10_000,
        'the second link',
      );
      await settled(stack);

      // Nothing created; the oldest of the two is linked and the pair reported, not merged.
      expect(sandboxes.hubspot.store.objects.companies.has(duplicate.id)).toBe(true);
      expect(companiesWithDomain(sandboxes, domain).map((c) => c.id)).toEqual([existing.id, duplicate.id]);
      const stats = await stack.running.admin<{
        companies: { duplicateDomains: { domain: string; companyIds: string[] }[] };
      }>('GET', '/stats');
      expect(stats.body.companies.duplicateDomains.find((d) => d.domain === domain)?.companyIds).toEqual([
        existing.id,
        duplicate.id,
      ]);
      expect(sandboxes.hubspot.getContact(plain.id)?.associatedcompanyid).toBe(existing.id);
      // The person's primary choice stands; the employer is linked beside it, without the primary type.
      expect(sandboxes.hubspot.getContact(withPrimary.id)?.associatedcompanyid).toBe(chosen.id);
      const employerLink = sandboxes.hubspot.store.associations
        .associated('contacts', withPrimary.id)
        .find((l) => l.id === existing.id)!;
      expect(employerLink.types.map((t) => t.typeId)).toEqual([ASSOCIATION_TYPES.contactToCompany.unlabeled]);
    },
  );

  it('finds an employer by the partner company id on it, and reports a company that only shares its name', async () => {
    const { sandboxes, running } = stack;
    const unused = employers(sandboxes).filter(
      ([d, p]) => p.length >= 2 && companiesWithDomain(sandboxes, d).length === 0,
    );
    const [, byIdPeople] = unused[0]!;
    const [nameDomain, byNamePeople] = unused[1]!;
    sandboxes.hubspot.setWebhookUrl(undefined);
    // Enriched once under another domain: its partner id is what identifies it.
    const enrichedBefore = sandboxes.hubspot.createCompany({
      domain: 'old-domain-of-the-employer.example',
      crm_enrich_partner_id: byIdPeople[0]!.employer.company.id!,
    });
    // Same name, different company as far as anything checkable goes.
    const namesake = sandboxes.hubspot.createCompany({
      domain: 'namesake.example',
      name: byNamePeople[0]!.employer.company.name!.toUpperCase(),
    });
    sandboxes.hubspot.setWebhookUrl(`${running.url}/webhooks/hubspot`);

    const byId = sandboxes.hubspot.createContact({ email: byIdPeople[0]!.workEmail! });
    const byName = sandboxes.hubspot.createContact({ email: byNamePeople[0]!.workEmail! });
    const linked = await eventually(
      () => {
        const a = sandboxes.hubspot.getContact(byId.id)?.associatedcompanyid;
        const b = sandboxes.hubspot.getContact(byName.id)?.associatedcompanyid;
        return a && b ? { a, b } : undefined;
      },
      10_000,
      'both contacts to be linked',
    );
    await settled(stack);

    expect(linked.a).toBe(enrichedBefore.id);
    const [state] = await schemaQuery<{ company_reason: string }>(
      running,
      `SELECT company_reason FROM $schema.enrichment_state WHERE record_id = $1`,
      [byId.id],
    );
    expect(state?.company_reason).toBe(`matched by partner company id ${byIdPeople[0]!.employer.company.id}`);
    // Never linked by name alone: a company of its own is created, and the namesake reported.
    expect(linked.b).not.toBe(namesake.id);
    expect(companiesWithDomain(sandboxes, nameDomain).map((c) => c.id)).toEqual([linked.b]);
    const stats = await running.admin<{
      companies: { nearMatches: { domain: string; name: string; companyIds: string[] }[] };
    }>('GET', '/stats');
    expect(stats.body.companies.nearMatches.find((m) => m.domain === nameDomain)).toMatchObject({
      name: byNamePeople[0]!.employer.company.name,
      companyIds: [namesake.id],
    });
  });

  it(
    'creates nothing for a free-mail address the partner does not know, ' +
      'nor for an employer unknown to the partner',
    async () => {
      const { sandboxes, running } = stack;
      const companiesBefore = sandboxes.hubspot.store.objects.companies.size;
      const freeMail = sandboxes.hubspot.createContact({ email: 'someone.unknown@gmail.com' });
      const unknownEmployer = sandboxes.hubspot.createContact({ email: 'someone@no-such-employer-anywhere.example' });
      for (const c of [freeMail, unknownEmployer]) {
        await eventually(
          async () => {
            const r = await running.admin<{ state?: { status: string } }>('GET', `/records/hubspot/contact/${c.id}`);
            return r.body.state?.status === 'no_match' ? true : undefined;
          },
          10_000,
          'the contact to end as no_match',
        );
      }
      await settled(stack);
      expect(sandboxes.hubspot.store.objects.companies.size).toBe(companiesBefore);
      expect(sandboxes.hubspot.store.associations.associated('contacts', freeMail.id)).toEqual([]);
      expect(sandboxes.hubspot.store.associations.associated('contacts', unknownEmployer.id)).toEqual([]);
      const rows = await schemaQuery<{ record_id: string; outcome: string; reason: string }>(
        running,
        `SELECT record_id, outcome, reason FROM $schema.audit_log ` +
          `WHERE rule = 'company_link' AND record_id = ANY($1::text[])`,
        [[freeMail.id, unknownEmployer.id]],
      );
      // A free-mail address names no employer at all; an unknown employer is said not to be linked, and why.
      expect(rows).toEqual([
        {
          record_id: unknownEmployer.id,
          outcome: 'not_linked',
          reason: expect.stringMatching(/partner does not know/),
        },
      ]);
    },
  );

  it('links a person matched through a free-mail address with the employer the partner names', async () => {
    const { sandboxes } = stack;
    const person = sandboxes.partner.dataset.personRecords.find(
      (p) => p.personalEmail && p.workEmail && companiesWithDomain(sandboxes, p.employer.domain).length === 0,
    )!;
    expect(person.personalEmail).toMatch(
      /@(gmail\.com|outlook\.com|yahoo\.com|hotmail\.com|icloud\.com|bigpond\.com|yahoo\.com\.au|naver\.com|qq\.com|yahoo\.co\.jp)$/,
    );
    const contact = sandboxes.hubspot.createContact({ email: person.personalEmail! });
    const companyId = await eventually(
      () => sandboxes.hubspot.getContact(contact.id)?.associatedcompanyid || undefined,
      10_000,
      'the contact to be linked',
    );
    expect(sandboxes.hubspot.getCompany(companyId)?.domain).toBe(person.employer.domain);
    expect(companiesWithDomain(sandboxes, person.employer.domain)).toHaveLength(1);
  });
});

describe.skipIf(skip)('the market of a new employer', () => {
  const stack = useStack({ sandboxes: { people: 2_000, companies: 200 } });

  it("looks the created company up in its person's market, not the default AU", async () => {
    const { sandboxes, running } = stack;
    const person = sandboxes.partner.dataset.personRecords.find(
      (p) => p.workEmail && p.market === 'NZ' && p.employer.home === 'NZ',
    )!;
    const contact = sandboxes.hubspot.createContact({ email: person.workEmail!, country: 'New Zealand' });
    const companyId = await eventually(
      () => sandboxes.hubspot.getContact(contact.id)?.associatedcompanyid || undefined,
      10_000,
      'the contact to be linked',
    );
    await eventually(
      () => sandboxes.hubspot.getCompany(companyId)?.crm_enrich_partner_id,
      10_000,
      'the company to be enriched',
    );
    await settled(stack);
    const [state] = await schemaQuery<{ market: string }>(
      running,
      `SELECT market FROM $schema.enrichment_state WHERE object_type = 'company' AND record_id = $1`,
      [companyId],
    );
    expect(state?.market).toBe('NZ');
  });

  it('files a New Zealander with no country in the CRM under NZ, by their address, and their employer', async () => {
    const { sandboxes, running } = stack;
    const people = sandboxes.partner.dataset.personRecords.filter(
      (p) => p.workEmail && p.market === 'NZ' && p.employer.home === 'NZ',
    );
    const person = people[1] ?? people[0]!;
    // Only an e-mail address, as an import creates a contact: the mapping's default market is AU.
    const contact = sandboxes.hubspot.createContact({ email: person.workEmail! });
    const companyId = await eventually(
      () => sandboxes.hubspot.getContact(contact.id)?.associatedcompanyid || undefined,
      10_000,
      'the contact to be linked',
    );
    await eventually(
      () => sandboxes.hubspot.getCompany(companyId)?.crm_enrich_partner_id,
      10_000,
      'the company to be enriched',
    );
    await settled(stack);
    const markets = await schemaQuery<{ object_type: string; market: string }>(
      running,
      `SELECT object_type, market FROM $schema.enrichment_state ` +
        `WHERE (object_type = 'contact' AND record_id = $1) OR (object_type = 'company' AND record_id = $2) ` +
        `ORDER BY object_type`,
      [contact.id, companyId],
    );
    expect(markets).toEqual([
      { object_type: 'company', market: 'NZ' },
      { object_type: 'contact', market: 'NZ' },
    ]);
    // Asked for in its own market, the company gets New Zealand's registry number.
    const company = sandboxes.hubspot.getCompany(companyId)!;
    expect(company.country).toBe('New Zealand');
    expect(company.crm_enrich_nzbn).toMatch(/^\d{13}$/);
  });
});
