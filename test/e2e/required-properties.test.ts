/**
 * A HubSpot portal that requires a property the mappings do not fill (enforced on API writes from
 * version 2026-09): the company the service would create for an employer is refused, and the audit
 * trail says which property; an update of a record without it ends in the dead letter with the reason.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { schemaQuery, settled } from './probes.js';
import { eventually, type Sandboxes } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping required-property tests: ${skip}`);

describe.skipIf(skip)('a portal that requires a property the mappings leave empty', () => {
  // The default company mapping does not write HubSpot's own `industry` (it fills crm_enrich_industries).
  const stack = useStack({ sandboxes: { people: 2_000, companies: 60, hubspotRequire: { companies: ['industry'] } } });

  const companiesWithDomain = (sandboxes: Sandboxes, domain: string) =>
    [...sandboxes.hubspot.store.objects.companies.values()].filter((c) => c.properties.get('domain') === domain);

  it("refuses the employer's company, and the contact's audit row names the property", async () => {
    const { sandboxes, running } = stack;
    const person = sandboxes.partner.dataset.personRecords.find(
      (p) => p.workEmail && companiesWithDomain(sandboxes, p.employer.domain).length === 0,
    )!;
    const contact = sandboxes.hubspot.createContact({ email: person.workEmail! });
    const row = await eventually(
      async () => {
        const rows = await schemaQuery<{ outcome: string; reason: string }>(
          running,
          `SELECT outcome, reason FROM $schema.audit_log WHERE rule = 'company_link' AND record_id = $1`,
          [contact.id],
        );
        return rows[0];
      },
      15_000,
      'the company link to be audited',
    );
    expect(row.outcome).toBe('not_linked');
    expect(row.reason).toContain(`the CRM did not create a company for ${person.employer.domain}`);
    expect(row.reason).toContain('this portal requires industry');
    expect(companiesWithDomain(sandboxes, person.employer.domain)).toHaveLength(0);
    await settled(stack);
  });

  it('sends an update of a company without it to the dead letter, naming the property', async () => {
    const { sandboxes, running } = stack;
    const record = sandboxes.partner.dataset.companyRecords.find(
      (c) => c.company.fqdn && companiesWithDomain(sandboxes, c.company.fqdn).length === 0,
    )!;
    const company = sandboxes.hubspot.createCompany({ domain: record.company.fqdn! });
    const letter = await eventually(
      async () => {
        const res = await running.admin<{ deadLetters: { data: { recordId: string }; error: unknown }[] }>(
          'GET',
          '/dead-letters?limit=100',
        );
        return res.body.deadLetters.find((d) => d.data.recordId === company.id);
      },
      20_000,
      'the company update to be dead-lettered',
    );
    expect(JSON.stringify(letter.error)).toContain('this portal requires industry');
    expect(sandboxes.hubspot.getCompany(company.id)!.crm_enrich_partner_id).toBeUndefined();
  });
});
