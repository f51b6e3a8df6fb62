/**
 * Discovery against the HubSpot and partner sandboxes, through the admin API: the people a persona
 * finds at an enriched company, previewed with what each would cost, then created once, linked with
 * the company, tagged and explained, with no credit spent on a person the CRM already holds.
 */
import { describe, expect, it } from 'vitest';
import { LOOKUPS_COUNTER } from '../../src/enrich/partner-lookups.js';
import type { Candidate, DiscoveryPreview, DiscoveryRunResult } from '../../src/discovery/discovery.js';
import { serverUnavailable } from '../support/db.js';
import { hubspotCalls, partnerServed, schemaQuery, settled } from './probes.js';
import { runCli } from './process.js';
import { ADMIN_TOKEN, eventually } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping discovery tests: ${skip}`);

describe.skipIf(skip)('discovery of people at a target company', () => {
  const stack = useStack();
  const credits = () => stack.running.service.parts.ports.counters.get(LOOKUPS_COUNTER);

  /** A partner company with many people, its record in HubSpot enriched (so its partner id is known). */
  async function targetCompany() {
    const { sandboxes } = stack;
    const byCompany = new Map<string, typeof sandboxes.partner.dataset.personRecords>();
    for (const p of sandboxes.partner.dataset.personRecords) {
      const id = p.employer.company.id as string;
      byCompany.set(id, [...(byCompany.get(id) ?? []), p]);
    }
    const [partnerId, people] = [...byCompany].sort((a, b) => b[1].length - a[1].length)[0]!;
    const company = sandboxes.hubspot.createCompany({ domain: people[0]!.employer.domain });
    await eventually(
      () => sandboxes.hubspot.getCompany(company.id)?.crm_enrich_partner_id || undefined,
      10_000,
      'the company to be enriched',
    );
    await settled(stack);
    return { company, partnerId, people };
  }

  it('previews, runs once, links those already there, and never adds anyone twice', async () => {
    const { sandboxes, running } = stack;
    const { company, partnerId, people } = await targetCompany();
    expect(sandboxes.hubspot.getCompany(company.id)!.crm_enrich_partner_id).toBe(partnerId);

    // Two departments that have people here with e-mail addresses.
    const departments = [...new Set(people.filter((p) => p.workEmail).map((p) => String(p.departmentId)))].slice(0, 2);
    const filters = { department: departments };

    // A bad code is refused before any search, naming the filter and the code.
    await running.admin('POST', '/discovery/preview', {
      crm: 'hubspot',
      companyId: company.id,
      filters: { department: ['1'] },
    });
    const served = partnerServed(sandboxes);
    const bad = await running.admin<{ error: { code: string; message: string; details: { field: string } } }>(
      'POST',
      '/discovery/preview',
      { crm: 'hubspot', companyId: company.id, filters: { department: ['99'] } },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'unknown_filter_value', details: { field: 'filters.department' } });
    expect(bad.body.error.message).toContain('"99"');
    const unknown = await running.admin<{ error: { code: string; message: string } }>('POST', '/discovery/preview', {
      crm: 'hubspot',
      companyId: company.id,
      filters: { title: ['CEO'] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('"title"');
    expect(partnerServed(sandboxes)).toBe(served);

    const preview = await running.admin<DiscoveryPreview>('POST', '/discovery/preview', {
      crm: 'hubspot',
      companyId: company.id,
      filters,
      limit: 5,
    });
    expect(preview.status).toBe(200);
    const expected = people
      .filter((p) => departments.includes(String(p.departmentId)) && p.market === preview.body.company.market)
      .map((p) => p.id);
    expect(preview.body.company).toMatchObject({ id: company.id, partnerId });
    // Everyone who fits, each either listed or counted past the limit of 5; at most 5 acted on.
    const listed = preview.body.candidates.map((c) => c.personId);
    expect(listed.filter((id) => !expected.includes(id))).toEqual([]);
    expect(listed.length + preview.body.beyondLimit).toBe(expected.length);
    expect(preview.body.candidates.filter((c) => c.action !== 'skip').length).toBe(
      Math.min(5, preview.body.candidates.filter((c) => c.hasEmail).length),
    );
    // Nothing spent by a preview.
    const creditsBefore = await credits();

    // One of them is in HubSpot already, by partner id (made before the service heard of it).
    const withEmail = preview.body.candidates.filter((c) => c.hasEmail);
    expect(withEmail.length).toBeGreaterThanOrEqual(3);
    const known = people.find((p) => p.id === withEmail[0]!.personId)!;
    sandboxes.hubspot.setWebhookUrl(undefined);
    const existing = sandboxes.hubspot.createContact({
      email: `someone.else.${known.id}@example.org`,
      crm_enrich_partner_id: known.id,
    });
    sandboxes.hubspot.setWebhookUrl(`${running.url}/webhooks/hubspot`);

    const again = await running.admin<DiscoveryPreview>('POST', '/discovery/preview', {
      crm: 'hubspot',
      companyId: company.id,
      filters,
      limit: 3,
    });
    const byId = new Map(again.body.candidates.map((c) => [c.personId, c] as const));
    expect(byId.get(known.id)).toMatchObject({ action: 'link', recordId: existing.id, credit: false });
    for (const c of again.body.candidates.filter((c) => !c.hasEmail))
      expect(c).toMatchObject({ action: 'skip', code: 'no_email' });
    const acting = again.body.candidates.filter((c) => c.action !== 'skip');
    expect(acting).toHaveLength(Math.min(3, again.body.candidates.filter((c) => c.hasEmail).length));
    // Those the limit leaves out are counted, not listed: the preview shows what a run of this limit looks at.
    expect(again.body.candidates.filter((c) => c.code === 'over_limit')).toEqual([]);
    expect(again.body.credits).toBe(again.body.candidates.filter((c: Candidate) => c.action === 'create').length);
    expect(await credits()).toBe(creditsBefore);

    const run = await running.admin<DiscoveryRunResult>('POST', '/discovery/run', {
      crm: 'hubspot',
      companyId: company.id,
      filters,
      limit: 3,
    });
    expect(run.status).toBe(200);
    expect(run.body.created).toBe(again.body.counts.create);
    expect(run.body.linked).toBe(1);
    expect(run.body.stopped?.reason ?? null).toBe(again.body.beyondLimit > 0 ? 'run_limit' : null);
    expect(await credits()).toBe(creditsBefore + run.body.credits);
    expect(run.body.credits).toBe(again.body.credits);

    for (const p of run.body.people.filter((p) => p.action === 'created')) {
      const contact = sandboxes.hubspot.getContact(p.recordId!)!;
      const person = people.find((x) => x.id === p.personId)!;
      expect(contact).toMatchObject({
        email: person.workEmail ?? expect.any(String),
        crm_enrich_partner_id: person.id,
        crm_enrich_source: 'discovery',
        associatedcompanyid: company.id,
      });
      expect(contact.jobtitle).toBe(person.position);
      const audit = await schemaQuery<{ property: string; outcome: string; reason: string }>(
        running,
        `SELECT property, outcome, reason FROM $schema.audit_log WHERE object_type = 'contact' AND record_id = $1`,
        [p.recordId],
      );
      expect(audit.find((a) => a.property === 'jobtitle')).toMatchObject({ outcome: 'write' });
      expect(audit.find((a) => a.property === 'associatedcompanyid')).toMatchObject({ outcome: 'linked_primary' });
      expect(audit.every((a) => a.reason.includes('discovery'))).toBe(true);
      // The record's explanation, as the admin page, the card and MCP read it, counts the fields written.
      const view = await running.admin<{ runs: { rows: { property: string | null; outcome: string }[] }[] }>(
        'GET',
        `/records/hubspot/contact/${p.recordId}`,
      );
      expect(view.status).toBe(200);
      const written = view.body.runs.flatMap((r) => r.rows.filter((row) => row.outcome === 'write'));
      expect(written.map((row) => row.property)).toEqual(
        expect.arrayContaining(['email', 'jobtitle', 'crm_enrich_partner_id', 'crm_enrich_source']),
      );
    }
    expect(sandboxes.hubspot.getContact(existing.id)!.associatedcompanyid).toBe(company.id);

    // Their creation webhooks cost nothing: the service knows it made them.
    await settled(stack);
    expect(await credits()).toBe(creditsBefore + run.body.credits);

    // Two more runs at once: nobody created twice, nothing spent twice.
    const contactsBefore = hubspotCalls(sandboxes, '/crm/objects/2026-09/contacts/batch/create');
    const [a, b] = await Promise.all([
      running.admin<DiscoveryRunResult>('POST', '/discovery/run', {
        crm: 'hubspot',
        companyId: company.id,
        filters,
        limit: 100,
      }),
      running.admin<DiscoveryRunResult>('POST', '/discovery/run', {
        crm: 'hubspot',
        companyId: company.id,
        filters,
        limit: 100,
      }),
    ]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const createdIds = [...run.body.people, ...a.body.people, ...b.body.people]
      .filter((p) => p.action === 'created')
      .map((p) => p.personId);
    expect(new Set(createdIds).size).toBe(createdIds.length);
    expect(createdIds.length).toBe(withEmail.length - 1);
    expect(hubspotCalls(sandboxes, '/crm/objects/2026-09/contacts/batch/create') - contactsBefore).toBeLessThanOrEqual(
      2,
    );
    const rows = await schemaQuery<{ n: number }>(
      running,
      `SELECT count(*)::int AS n FROM $schema.discovered_person WHERE action = 'created' AND company_id = $1`,
      [company.id],
    );
    expect(rows[0]!.n).toBe(createdIds.length);

    // A last run finds nobody new and spends nothing.
    const spent = await credits();
    const last = await running.admin<DiscoveryRunResult>('POST', '/discovery/run', {
      crm: 'hubspot',
      companyId: company.id,
      filters,
      limit: 100,
    });
    expect(last.body).toMatchObject({ created: 0, linked: 0, credits: 0 });
    expect(await credits()).toBe(spent);
  });

  it('is driven from the command line: a dry run lists the candidates, a run adds them', async () => {
    const { sandboxes, running } = stack;
    const counts = new Map<string, number>();
    for (const p of sandboxes.partner.dataset.personRecords)
      if (p.workEmail && p.departmentId === 2) counts.set(p.employer.domain, (counts.get(p.employer.domain) ?? 0) + 1);
    const domain = [...counts].sort((x, y) => y[1] - x[1])[2]![0];
    const company = sandboxes.hubspot.createCompany({ domain });
    await eventually(
      () => sandboxes.hubspot.getCompany(company.id)?.crm_enrich_partner_id || undefined,
      10_000,
      'the company to be enriched',
    );
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ADMIN_TOKEN, LOG_LEVEL: 'silent' };
    const discover = (...args: string[]) =>
      runCli(['discover', '--url', running.url, '--crm', 'hubspot', '--company', company.id, ...args], env);

    const refused = await discover('--department', '99', '--dry-run');
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('filters.department: "99" is not a department code');

    const spent = await credits();
    const dry = await discover('--department', '2', '--limit', '2', '--dry-run');
    expect(dry.code, dry.output).toBe(0);
    expect(dry.output).toContain('nothing was created or spent');
    expect(dry.output).toMatch(/^person +position +seniority +department +e-mail +dnd phone +action +reason$/m);
    expect(dry.output).toMatch(
      /2 to create, 0 to link, \d+ skipped(, \d+ more past the limit of 2)?; 2 credit\(s\) would be spent/,
    );
    expect(dry.output).not.toContain("over this run's limit");
    expect(await credits()).toBe(spent);

    // A company named by its domain, as a person knows it; the people created are named.
    const byDomain = (...args: string[]) =>
      runCli(['discover', '--url', running.url, '--crm', 'hubspot', ...args], env);
    const unknown = await byDomain('--company', 'no-such-company.example', '--department', '2', '--dry-run');
    expect(unknown.code).toBe(1);
    expect(unknown.output).toContain('hubspot has no company with the domain no-such-company.example');
    const run = await byDomain('--company', `https://www.${domain}/`, '--department', '2', '--limit', '2');
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/: 2 created, 0 linked, \d+ skipped, 2 credit\(s\) spent/);
    const named = [...run.output.matchAll(/^ {2}created (\d+) \(([^)]+)\): created by discovery/gm)];
    expect(named).toHaveLength(2);
    for (const [, id, name] of named) {
      const contact = sandboxes.hubspot.getContact(id!)!;
      expect(name).toBe(`${contact.firstname} ${contact.lastname}`);
    }
    expect(run.output).toContain("stopped at this run's limit of 2");
    expect(await credits()).toBe(spent + 2);
  });

  it('keeps personas, checks their codes, and visits flagged companies on the schedule', async () => {
    const { sandboxes, running } = stack;
    const catalogue = await running.admin<{
      filters: { identifier: string; values: { code: string; label: string }[] }[];
    }>('GET', '/filter-options?identifiers=seniority,department');
    expect(catalogue.status).toBe(200);
    expect(catalogue.body.filters.find((f) => f.identifier === 'seniority')!.values.map((v) => v.code)).toContain('5');
    expect((await running.admin('GET', '/filter-options?identifiers=nope')).status).toBe(400);

    const refused = await running.admin<{ error: { code: string; details: { field: string } } }>(
      'PUT',
      '/personas/managers',
      { filters: { seniority: ['12'] } },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'unknown_filter_value', details: { field: 'filters.seniority' } });
    const saved = await running.admin('PUT', '/personas/managers', {
      filters: { seniority: ['4', '5'] },
      description: 'heads of and managers',
    });
    expect(saved.status).toBe(201);
    expect((await running.admin('PUT', '/personas/managers', { filters: { seniority: ['4', '5', '3'] } })).status).toBe(
      200,
    );
    const list = await running.admin<{ personas: { name: string; filters: { seniority: string[] } }[] }>(
      'GET',
      '/personas',
    );
    expect(list.body.personas).toEqual([
      expect.objectContaining({ name: 'managers', filters: { seniority: ['4', '5', '3'] } }),
    ]);
    expect(
      (await running.admin('POST', '/discovery/preview', { crm: 'hubspot', companyId: '1', persona: 'nobody' })).status,
    ).toBe(404);

    // A company not enriched yet is refused with the reason.
    sandboxes.hubspot.setWebhookUrl(undefined);
    const bare = sandboxes.hubspot.createCompany({ name: 'Not enriched' });
    sandboxes.hubspot.setWebhookUrl(`${running.url}/webhooks/hubspot`);
    const notYet = await running.admin<{ error: { code: string } }>('POST', '/discovery/preview', {
      crm: 'hubspot',
      companyId: bare.id,
      persona: 'managers',
    });
    expect(notYet.status).toBe(409);
    expect(notYet.body.error.code).toBe('company_not_enriched');

    // Flag an enriched company with the persona: the schedule adds its people.
    const target = (
      await running.admin<DiscoveryPreview>('POST', '/discovery/preview', {
        crm: 'hubspot',
        companyId: await enrichedCompanyId(),
        persona: 'managers',
        limit: 100,
      })
    ).body;
    const toCreate = target.candidates.filter((c) => c.action === 'create').length;
    sandboxes.hubspot.updateRecord('companies', target.company.id, { crm_enrich_discover: 'managers' });
    const scheduled = await running.admin<{ companies: number; created: number }>('POST', '/discovery/schedule/run');
    expect(scheduled.status).toBe(200);
    expect(scheduled.body.companies).toBeGreaterThanOrEqual(1);
    expect(scheduled.body.created).toBe(Math.min(toCreate, 10));
    const next = await running.admin<{ companies: number; created: number }>('POST', '/discovery/schedule/run');
    expect(next.body.created).toBe(Math.min(Math.max(0, toCreate - 10), 10));
    expect((await running.admin('DELETE', '/personas/managers')).status).toBe(204);
    expect((await running.admin('DELETE', '/personas/managers')).status).toBe(404);

    async function enrichedCompanyId(): Promise<string> {
      const { company } = await (async () => {
        const people = sandboxes.partner.dataset.personRecords.filter(
          (p) => p.seniorityId === 4 || p.seniorityId === 5,
        );
        const counts = new Map<string, number>();
        for (const p of people) counts.set(p.employer.domain, (counts.get(p.employer.domain) ?? 0) + 1);
        const domain = [...counts].sort((x, y) => y[1] - x[1])[1]![0];
        const c = sandboxes.hubspot.createCompany({ domain });
        await eventually(
          () => sandboxes.hubspot.getCompany(c.id)?.crm_enrich_partner_id || undefined,
          10_000,
          'the company to be enriched',
        );
        return { company: c };
      })();
      return company.id;
    }
  });
});
