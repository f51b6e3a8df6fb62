/**
 * Every MCP tool through the SDK's client against the whole stack, signed in as an assistant would
 * be: answers as structured content, credits spent through the service's budget (and not for cached
 * answers), partner errors and bad input as tool results with isError, each call in the audit log
 * under the client's name, enrich_record on the governed path, and the write scope enforced.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOKUPS_COUNTER } from '../../src/enrich/partner-lookups.js';
import { serverUnavailable } from '../support/db.js';
import { partnerPeople } from '../e2e/stack.js';
import { useStack } from '../e2e/use-stack.js';
import { settled } from '../e2e/probes.js';
import { connect, MemoryOAuthClient, signIn } from './oauth-helpers.js';

const skip = await serverUnavailable();

type Structured = Record<string, unknown>;

describe.skipIf(skip)('MCP tools', () => {
  const stack = useStack({ sandboxes: { people: 400, companies: 60 } });
  let mcp: Client;
  let clientId: string;

  beforeAll(async () => {
    const client = await signIn(stack.running.url, { client: new MemoryOAuthClient({ name: 'Research assistant' }) });
    clientId = client.clientInformation()!.client_id;
    mcp = await connect(stack.running.url, client);
  });
  afterAll(async () => {
    await mcp?.close();
  });

  async function call(name: string, args: Record<string, unknown>) {
    const result = await mcp.callTool({ name, arguments: args });
    return {
      isError: result.isError === true,
      structured: result.structuredContent as Structured,
      text: (result.content as { text: string }[])[0]?.text ?? '',
    };
  }
  const credits = () => stack.running.service.parts.store.counters.get(LOOKUPS_COUNTER);
  const toolAudit = async (tool: string) =>
    (await stack.running.service.parts.store.recordView({ connection: 'mcp', objectType: 'tool', recordId: tool }, 10))
      .audit;

  it("says what it adds beside a CRM's own MCP server, in its instructions and in every tool", async () => {
    expect(mcp.getInstructions()).toContain("HubSpot's reads and writes CRM records");
    for (const tool of (await mcp.listTools()).tools)
      expect(tool.description, tool.name).toMatch(/sales-intelligence partner|crm-enrich|partner's data/);
  });

  it('looks up a company by domain in a market for one credit, then answers from the cache for free', async () => {
    const company = stack.sandboxes.partner.dataset.companyRecords[3]!;
    const before = await credits();
    const first = await call('lookup_company', {
      by: 'fqdn',
      value: `https://www.${company.domain}/about`,
      market: company.home,
    });
    expect(first.isError).toBe(false);
    expect(first.structured).toMatchObject({ found: true, fromCache: false, by: 'fqdn', market: company.home });
    expect((first.structured.record as Structured).name).toBe(company.company.name);
    expect(await credits()).toBe(before + 1);

    const again = await call('lookup_company', { by: 'fqdn', value: company.domain, market: company.home });
    expect(again.structured).toMatchObject({ found: true, fromCache: true });
    expect(await credits()).toBe(before + 1);

    const [row] = await toolAudit('lookup_company');
    expect(row).toMatchObject({ outcome: 'ok', actor: `mcp:Research assistant (${clientId})` });
    expect(row!.reason).toContain('from cache');
    expect(row!.reason).not.toContain(company.domain);
  });

  it('looks up a person by work e-mail and says when the partner has no match', async () => {
    const [person] = partnerPeople(stack.sandboxes, 1, 5);
    const found = await call('lookup_person', { by: 'work_email', value: person!.workEmail!.toUpperCase() });
    expect(found.structured).toMatchObject({ found: true, by: 'work_email' });
    expect((found.structured.record as Structured).id).toBe(person!.id);
    const missing = await call('lookup_person', { by: 'work_email', value: 'nobody@unknown-company.example' });
    expect(missing.isError).toBe(false);
    expect(missing.structured).toMatchObject({ found: false });
    expect(missing.structured.record).toBeUndefined();
  });

  it('refuses a value that is not the identifier it claims to be, without spending a credit', async () => {
    const before = await credits();
    const bad = await call('lookup_person', { by: 'work_email', value: 'not an address' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/^value: this is not a usable work_email/);
    const unknownKind = await call('lookup_company', { by: 'duns', value: '123' });
    expect(unknownKind.isError).toBe(true);
    expect(unknownKind.text).toMatch(/by/);
    expect(await credits()).toBe(before);
    expect((await toolAudit('lookup_person'))[0]).toMatchObject({ outcome: 'refused' });
  });

  it('searches people by persona with catalogue codes, page by page, spending no credit', async () => {
    const before = await credits();
    const first = await call('search_people', {
      market: 'AU',
      filters: { company_size: ['51-200', '201-500'] },
      pageSize: 5,
    });
    expect(first.isError).toBe(false);
    const results = first.structured.results as Structured[];
    expect(results.length).toBeGreaterThan(0);
    expect(first.structured).toMatchObject({ page: 0, pageSize: 5, more: results.length === 5 });
    const second = await call('search_people', {
      market: 'AU',
      filters: { company_size: ['51-200', '201-500'] },
      pageSize: 5,
      page: 1,
    });
    const ids = (list: Structured[]) => list.map((r) => r.person_id);
    expect(ids(second.structured.results as Structured[]).some((id) => ids(results).includes(id))).toBe(false);
    // Credits are profile lookups; a search reveals no contact details and spends none.
    expect(await credits()).toBe(before);
  });

  it('names every unknown filter and code before searching, and spends nothing', async () => {
    const before = await credits();
    const bad = await call('search_people', {
      filters: { company_size: ['huge'], industry: ['l1:C', 'l9:Z'], favourite_colour: ['blue'] },
    });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('filters.company_size: "huge" is not one of its codes');
    expect(bad.text).toContain('filters.industry: "l9:Z"');
    expect(bad.text).not.toContain('"l1:C"');
    expect(bad.text).toContain('filters.favourite_colour: not a filter of the people search');
    expect(await credits()).toBe(before);
    const second = await call('search_people', { filters: { industry: ['l2:C11'] }, pageSize: 1 });
    expect(second.isError).toBe(false);
  });

  it('lists filter options and pages a paged filter', async () => {
    const all = await call('filter_options', {});
    expect((all.structured.markets as Structured[]).map((m) => m.code)).toContain('AU');
    expect((all.structured.filters as Structured[]).map((f) => f.identifier)).toContain('company_size');
    const sub = await call('filter_options', { identifiers: ['industry'], levelOne: 'l1:C' });
    const values = ((sub.structured.filters as Structured[])[0]!.values as Structured[]).map((v) => v.code);
    expect(values).toContain('l2:C11');
    const refused = await call('filter_options', { search: 'sydney' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/paged filter/);
  });

  // explain_record then shows the enrichment, with who asked for it.
  it('enriches a record through the lane and says what was written and why', async () => {
    const [person] = partnerPeople(stack.sandboxes, 1, 40);
    // No webhook: only the tool enriches this contact.
    stack.sandboxes.hubspot.setWebhookUrl(undefined);
    const { id } = stack.sandboxes.hubspot.createContact({ email: person!.workEmail!, jobtitle: 'Typed by a person' });
    stack.sandboxes.hubspot.setWebhookUrl(`${stack.running.url}/webhooks/hubspot`);

    const result = await call('enrich_record', { crm: 'hubspot', object: 'contact', id });
    expect(result.isError).toBe(false);
    expect(result.structured.finished).toBe(true);
    const written = result.structured.written as Structured[];
    expect(written.length).toBeGreaterThan(0);
    for (const row of written)
      expect(row).toMatchObject({ outcome: 'write', rule: expect.any(String), reason: expect.any(String) });
    expect(written.map((r) => r.property)).toContain('firstname');
    expect(result.structured.state).toMatchObject({
      status: 'enriched',
      partnerId: person!.id,
      matchedBy: 'work_email',
    });
    expect(stack.sandboxes.hubspot.getContact(id)!.firstname).toBe(
      written.find((r) => r.property === 'firstname')!.newValue,
    );

    const explained = await call('explain_record', { crm: 'hubspot', object: 'contact', id });
    expect(explained.structured).toMatchObject({
      record: { crm: 'hubspot', object: 'contact', id },
      known: true,
      state: { status: 'enriched' },
    });
    expect(explained.text).toMatch(new RegExp(`^hubspot contact ${id}: enriched`));
    const history = explained.structured.history as Structured[];
    expect(history.some((r) => r.outcome === 'requested' && r.actor === `mcp:Research assistant (${clientId})`)).toBe(
      true,
    );
    expect((explained.structured.lastEnrichment as Structured[]).map((r) => r.property)).toEqual(
      expect.arrayContaining(written.map((r) => r.property)),
    );
  });

  it('explains a record nobody has seen, naming it, and refuses an object the CRM does not have', async () => {
    const unknown = await call('explain_record', { crm: 'hubspot', object: 'Contact', id: '999999999' });
    expect(unknown.structured).toMatchObject({
      record: { crm: 'hubspot', connection: 'hubspot', object: 'contact', id: '999999999' },
      known: false,
      state: null,
      history: [],
    });
    expect(unknown.text).toMatch(/^hubspot contact 999999999: never seen/);
    const bad = await call('enrich_record', { crm: 'hubspot', object: 'spaceship', id: '1' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('object: hubspot/spaceship is not a mapped object');
  });

  it('turns a spent credit budget into a tool result the assistant can read', async () => {
    const { counters } = stack.running.service.parts.store;
    const cap = stack.running.service.parts.config.PARTNER_DAILY_LOOKUP_HARD_CAP;
    await counters.increment(LOOKUPS_COUNTER, cap - (await credits()));
    const company = stack.sandboxes.partner.dataset.companyRecords[7]!;
    const result = await call('lookup_company', { by: 'fqdn', value: company.domain, market: company.home });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('PARTNER_DAILY_LOOKUP_HARD_CAP');
    expect(result.text).toContain('partner_budget_exhausted');
    expect((await toolAudit('lookup_company'))[0]).toMatchObject({ outcome: 'error:partner_budget_exhausted' });
    await counters.increment(LOOKUPS_COUNTER, -cap);
  });

  it('previews discovery at an enriched company for free, then adds the people with run_discovery', async () => {
    const { sandboxes } = stack;
    const byCompany = new Map<string, typeof sandboxes.partner.dataset.personRecords>();
    for (const p of sandboxes.partner.dataset.personRecords) {
      const id = p.employer.company.id as string;
      if (p.workEmail) byCompany.set(id, [...(byCompany.get(id) ?? []), p]);
    }
    const people = [...byCompany.values()].sort((a, b) => b.length - a.length)[0]!;
    const company = sandboxes.hubspot.createCompany({ domain: people[0]!.employer.domain });
    for (let i = 0; i < 100 && !sandboxes.hubspot.getCompany(company.id)?.crm_enrich_partner_id; i++)
      await new Promise((r) => setTimeout(r, 100));
    await settled(stack);
    // Someone in the company's home market: discovery searches the company's own market.
    const local = people.find((p) => p.market === p.employer.home)!;
    const department = [String(local.departmentId)];

    const before = await credits();
    const preview = await call('preview_discovery', {
      crm: 'hubspot',
      companyId: company.id,
      filters: { department },
      limit: 2,
    });
    expect(preview.isError, preview.text).toBe(false);
    const candidates = preview.structured.candidates as Structured[];
    // Listed, or counted past the limit of 2 (the preview lists what a run of that limit looks at).
    if (!candidates.some((c) => c.personId === local.id)) expect(preview.structured.beyondLimit).toBeGreaterThan(0);
    expect(candidates.filter((c) => c.action !== 'skip').length).toBeLessThanOrEqual(2);
    const creates = candidates.filter((c) => c.action === 'create').length;
    expect(creates).toBeGreaterThan(0);
    expect(preview.structured.credits).toBe(creates);
    expect(await credits()).toBe(before);

    const run = await call('run_discovery', {
      crm: 'hubspot',
      companyId: company.id,
      filters: { department },
      limit: 2,
    });
    expect(run.isError, run.text).toBe(false);
    expect(run.structured.created).toBe(creates);
    expect(run.structured.credits).toBe(creates);
    // Their creation events spend nothing: the service knows it made them.
    await settled(stack);
    expect(await credits()).toBe(before + creates);
    for (const p of (run.structured.people as Structured[]).filter((p) => p.action === 'created')) {
      expect(sandboxes.hubspot.getContact(p.recordId as string)).toMatchObject({
        crm_enrich_source: 'discovery',
        associatedcompanyid: company.id,
      });
    }
    expect((await toolAudit('run_discovery'))[0]).toMatchObject({
      outcome: 'ok',
      actor: `mcp:Research assistant (${clientId})`,
    });

    const bad = await call('preview_discovery', {
      crm: 'hubspot',
      companyId: company.id,
      filters: { department: ['99'] },
    });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('filters.department: "99"');
  });

  it('lists the job changes since a time, newest first, with what the actions did', async () => {
    const jobChanges = stack.running.service.parts.store.jobChanges;
    const move = (recordId: string, to: string) =>
      jobChanges.observe({
        key: { connection: 'hubspot', objectType: 'contact', recordId },
        role: {
          personId: `pe_${recordId}`,
          companyId: 'co_2',
          domain: to,
          companyName: 'Globex',
          title: 'VP Sales',
          started: '2025-06',
        },
        change: {
          connection: 'hubspot',
          objectType: 'contact',
          recordId,
          personId: `pe_${recordId}`,
          kind: 'employer',
          from: { companyId: 'co_1', domain: 'acme.example', name: 'Acme' },
          to: { companyId: 'co_2', domain: to, name: 'Globex' },
          oldTitle: 'Sales Manager',
          newTitle: 'VP Sales',
          started: '2025-06',
          reason: 'the current employer changed',
        },
      });
    const since = new Date(Date.now() - 1000).toISOString();
    const first = await move('jc-1', 'globex.example');
    await jobChanges.recordActions(first!, { task: 'done' });
    await move('jc-2', 'initech.example');
    const listed = await call('list_job_changes', { since });
    expect(listed.isError).toBe(false);
    const rows = listed.structured.jobChanges as Structured[];
    expect(rows.map((r) => r.recordId)).toEqual(['jc-2', 'jc-1']);
    expect(rows[1]).toMatchObject({
      connection: 'hubspot',
      object: 'contact',
      personId: 'pe_jc-1',
      kind: 'employer',
      from: { domain: 'acme.example' },
      to: { domain: 'globex.example' },
      oldTitle: 'Sales Manager',
      newTitle: 'VP Sales',
      actions: { task: 'done' },
    });
    expect(
      (await call('list_job_changes', { since: new Date(Date.now() + 60_000).toISOString() })).structured.jobChanges,
    ).toEqual([]);
    const bad = await call('list_job_changes', { since: 'last week' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/^since: /);
    expect((await toolAudit('list_job_changes'))[0]).toMatchObject({
      outcome: 'refused',
      actor: `mcp:Research assistant (${clientId})`,
    });
  });

  it('asks for the write scope before enrich_record runs with a read-only token', async () => {
    const reader = await signIn(stack.running.url, {
      client: new MemoryOAuthClient({ name: 'Reader' }),
      scope: 'read',
    });
    expect(reader.tokens()!.scope).toBe('read');
    const res = await fetch(`${stack.running.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${reader.tokens()!.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'enrich_record', arguments: { crm: 'hubspot', object: 'contact', id: '1' } },
      }),
    });
    expect(res.status).toBe(403);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="read write"');
    expect(challenge).toContain('resource_metadata=');
    const readerMcp = await connect(stack.running.url, reader);
    expect(
      (await readerMcp.callTool({ name: 'filter_options', arguments: { identifiers: ['revenue'] } })).isError,
    ).toBeFalsy();
    expect(
      (await readerMcp.callTool({ name: 'list_job_changes', arguments: { since: new Date(0).toISOString() } })).isError,
    ).toBeFalsy();
    // The SDK client takes the 403 as a request to step up; holding a refresh token it refreshes (which
    // cannot widen a grant), meets the same 403 and stops: nothing ran.
    const before = (
      await stack.running.service.parts.store.recordView(
        { connection: 'mcp', objectType: 'tool', recordId: 'enrich_record' },
        100,
      )
    ).audit.length;
    await expect(
      readerMcp.callTool({ name: 'enrich_record', arguments: { crm: 'hubspot', object: 'contact', id: '1' } }),
    ).rejects.toThrow(/403/);
    expect(
      (
        await stack.running.service.parts.store.recordView(
          { connection: 'mcp', objectType: 'tool', recordId: 'enrich_record' },
          100,
        )
      ).audit.length,
    ).toBe(before);
    await readerMcp.close();
  });
});
