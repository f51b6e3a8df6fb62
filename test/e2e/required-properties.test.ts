/**
 * A HubSpot portal that requires a property the mappings do not fill (enforced on API writes from
 * version 2026-09): the company the service would create for an employer is refused, and the audit
 * trail says which property; an update of a record without it ends in the dead letter with the reason.
 * A conditional rule (industry required on customers) parks the update of a customer the same way,
 * while a service on the legacy v3 paths, which HubSpot does not hold to the rules, writes it.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { hubspotCalls, schemaQuery, settled } from './probes.js';
import { eventually, type Sandboxes } from './stack.js';
import { useStack, type Stack } from './use-stack.js';

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

/** The dead letter of a record's job, once it is there. */
function deadLetterOf(stack: Stack, recordId: string) {
  return eventually(
    async () => {
      const res = await stack.running.admin<{ deadLetters: { data: { recordId: string }; error: unknown }[] }>(
        'GET',
        '/dead-letters?limit=100',
      );
      return res.body.deadLetters.find((d) => d.data.recordId === recordId);
    },
    20_000,
    'the company update to be dead-lettered',
  );
}

/** A customer company made in HubSpot's UI, without an industry, whose domain the partner knows. */
function customerWithoutIndustry(sandboxes: Sandboxes) {
  const taken = new Set([...sandboxes.hubspot.store.objects.companies.values()].map((c) => c.properties.get('domain')));
  const record = sandboxes.partner.dataset.companyRecords.find((c) => c.company.fqdn && !taken.has(c.company.fqdn))!;
  return sandboxes.hubspot.createCompany({ domain: record.company.fqdn!, lifecyclestage: 'customer' });
}

const industryOnCustomers = {
  companies: [{ property: 'industry', when: { property: 'lifecyclestage', value: 'customer' } }],
};

describe.skipIf(skip)('a portal with a conditional rule the mappings break, on API version 2026-09', () => {
  const stack = useStack({ sandboxes: { people: 2_000, companies: 60, hubspotRequireWhen: industryOnCustomers } });

  it('parks the update of a customer without an industry, naming the property, and retries it no more', async () => {
    const company = customerWithoutIndustry(stack.sandboxes);
    const letter = await deadLetterOf(stack, company.id);
    expect(JSON.stringify(letter.error)).toContain('this portal requires industry');
    expect(stack.sandboxes.hubspot.getCompany(company.id)!.crm_enrich_partner_id).toBeUndefined();
    // Parked, not retried: no further update of the company reaches HubSpot.
    await settled(stack);
    const updates = hubspotCalls(stack.sandboxes, '/crm/objects/2026-09/companies/batch/update');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(hubspotCalls(stack.sandboxes, '/crm/objects/2026-09/companies/batch/update')).toBe(updates);
  });
});

describe.skipIf(skip)('the same portal and rule, for a service on the legacy v3 paths', () => {
  const stack = useStack({
    sandboxes: { people: 2_000, companies: 60, hubspotRequireWhen: industryOnCustomers },
    service: { env: { HUBSPOT_API_VERSION: 'v3' } },
  });

  it('writes the customer, as HubSpot takes legacy writes whatever the rules, and calls no 2026-09 path', async () => {
    // The sandboxes' own set-up provisions properties on the default version; the service's calls are counted.
    const dated = () =>
      Object.entries(stack.sandboxes.hubspot.stats().byEndpoint)
        .filter(([endpoint]) => endpoint.includes('/2026-09/'))
        .reduce((n, [, calls]) => n + calls, 0);
    const datedBefore = dated();
    const updatesBefore = hubspotCalls(stack.sandboxes, '/crm/v3/objects/companies/batch/update');
    const company = customerWithoutIndustry(stack.sandboxes);
    await eventually(
      () => stack.sandboxes.hubspot.getCompany(company.id)!.crm_enrich_partner_id,
      20_000,
      'the customer to be enriched',
    );
    expect(stack.sandboxes.hubspot.getCompany(company.id)!.industry).toBeUndefined();
    expect(hubspotCalls(stack.sandboxes, '/crm/v3/objects/companies/batch/update')).toBeGreaterThan(updatesBefore);
    expect(dated()).toBe(datedBefore);
  });
});
