/**
 * The MCP server beyond tools, with the SDK's clients of both protocol eras against the whole stack:
 * resources addressed by URI templates (an enriched record, a company's partner profile, mapping
 * versions, today's budget), the revenue-operations prompts, and progress notifications from
 * enrich_record and run_discovery when, and only when, the client sends a progress token.
 */
import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { eventually, partnerPeople } from '../e2e/stack.js';
import { settled } from '../e2e/probes.js';
import { useStack } from '../e2e/use-stack.js';
import { connectModern } from './modern-client.js';
import { connect, MemoryOAuthClient, signIn } from './oauth-helpers.js';

const skip = await serverUnavailable();

type Structured = Record<string, unknown>;
const jsonOf = (contents: unknown[]) => JSON.parse((contents[0] as { text: string }).text) as Structured;

describe.skipIf(skip)('MCP resources, prompts and progress', () => {
  const stack = useStack({ sandboxes: { people: 400, companies: 60 } });
  let legacy: LegacyClient;
  let modern: Client;
  let enrichedContact: string;

  beforeAll(async () => {
    const signedIn = await signIn(stack.running.url, { client: new MemoryOAuthClient({ name: 'Analyst' }) });
    legacy = await connect(stack.running.url, signedIn);
    modern = await connectModern(stack.running.url, signedIn.tokens()!.access_token);
    const [person] = partnerPeople(stack.sandboxes, 1, 12);
    enrichedContact = stack.sandboxes.hubspot.createContact({ email: person!.workEmail! }).id;
    await settled(stack);
  });
  afterAll(async () => {
    await legacy?.close();
    await modern?.close();
  });

  it('lists its resource templates and the resources it can list, in both eras', async () => {
    for (const client of [legacy, modern]) {
      const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort();
      expect(templates).toEqual([
        'crm-enrich://companies/{market}/{domain}',
        'crm-enrich://mappings/{crm}/{objectType}/versions/{version}',
        'crm-enrich://records/{connection}/{objectType}/{recordId}',
      ]);
      const uris = (await client.listResources()).resources.map((r) => r.uri);
      expect(uris).toContain('crm-enrich://budget/today');
      expect(uris).toContain('crm-enrich://mappings/hubspot/contact/versions/1');
    }
  });

  it('reads an enriched record, named, with its state and the run that wrote it', async () => {
    const uri = `crm-enrich://records/hubspot/contact/${enrichedContact}`;
    for (const client of [legacy, modern]) {
      const read = await client.readResource({ uri });
      expect(read.contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
      const record = jsonOf(read.contents);
      expect(record).toMatchObject({
        record: { crm: 'hubspot', connection: 'hubspot', object: 'contact', id: enrichedContact },
        known: true,
        state: { status: 'enriched', matchedBy: 'work_email' },
      });
      expect((record.lastEnrichment as Structured[]).some((r) => r.outcome === 'write')).toBe(true);
    }
    await expect(legacy.readResource({ uri: 'crm-enrich://records/pipedrive/person/1' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('connection: no connection is called "pipedrive"'),
    });
  });

  it("reads a company's partner profile by domain and market, from the cache the second time", async () => {
    const company = stack.sandboxes.partner.dataset.companyRecords[5]!;
    const uri = `crm-enrich://companies/${company.home}/${company.domain}`;
    const first = jsonOf((await legacy.readResource({ uri })).contents);
    expect(first).toMatchObject({ found: true, domain: company.domain, market: company.home });
    expect((first.record as Structured).name).toBe(company.company.name);
    expect(jsonOf((await modern.readResource({ uri })).contents)).toMatchObject({ found: true, fromCache: true });
    await expect(legacy.readResource({ uri: `crm-enrich://companies/XX/${company.domain}` })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('market:'),
    });
  });

  it('reads a mapping version as saved, and refuses a version that cannot exist without asking the store', async () => {
    const read = await legacy.readResource({ uri: 'crm-enrich://mappings/hubspot/contact/versions/1' });
    expect(read.contents[0]).toMatchObject({ mimeType: 'application/yaml' });
    const text = (read.contents[0] as { text: string }).text;
    expect(text).toContain('crm: hubspot');
    expect(text).toContain('object: contact');
    for (const version of ['2147483648', '99999999999', '0', 'abc']) {
      await expect(
        modern.readResource({ uri: `crm-enrich://mappings/hubspot/contact/versions/${version}` }),
      ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('version: expected a whole number') });
    }
    await expect(
      legacy.readResource({ uri: 'crm-enrich://mappings/hubspot/contact/versions/999' }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/not found/i) });
  });

  it("reads today's budget: the service's credits and this client's share", async () => {
    const budget = jsonOf((await modern.readResource({ uri: 'crm-enrich://budget/today' })).contents);
    const config = stack.running.service.parts.config;
    expect(budget).toMatchObject({
      day: new Date().toISOString().slice(0, 10),
      service: { dailyBudget: config.PARTNER_DAILY_LOOKUP_BUDGET, hardCap: config.PARTNER_DAILY_LOOKUP_HARD_CAP },
      client: { dailyShare: Math.floor(config.PARTNER_DAILY_LOOKUP_BUDGET / 10), creditsSpent: 1 },
    });
  });

  it('offers the three revenue-operations prompts, and fills the record one with what enrichment did', async () => {
    const names = (await modern.listPrompts()).prompts.map((p) => p.name).sort();
    expect(names).toEqual(['job_changes_this_week', 'research_account', 'what_enrichment_changed']);

    const week = await legacy.getPrompt({ name: 'job_changes_this_week', arguments: {} });
    const weekText = (week.messages[0]!.content as { text: string }).text;
    expect(weekText).toMatch(/list_job_changes with since=\d{4}-\d\d-\d\dT/);
    const since = new Date(/since=(\S+?)\./.exec(weekText)![1]!);
    expect(Date.now() - since.getTime()).toBeGreaterThan(6.9 * 86_400_000);

    const research = await modern.getPrompt({
      name: 'research_account',
      arguments: { domain: 'acme.com.au', crm: 'hubspot', companyId: '42' },
    });
    const researchText = (research.messages[0]!.content as { text: string }).text;
    expect(researchText).toContain('crm-enrich://companies/AU/acme.com.au');
    expect(researchText).toContain('preview_discovery for hubspot company 42');

    const changed = await legacy.getPrompt({
      name: 'what_enrichment_changed',
      arguments: { crm: 'hubspot', object: 'contact', id: enrichedContact },
    });
    expect((changed.messages[0]!.content as { text: string }).text).toContain(`hubspot contact ${enrichedContact}`);
    const embedded = changed.messages[1]!.content as { type: string; resource: { uri: string; text: string } };
    expect(embedded.type).toBe('resource');
    expect(embedded.resource.uri).toBe(`crm-enrich://records/hubspot/contact/${enrichedContact}`);
    expect(JSON.parse(embedded.resource.text)).toMatchObject({ state: { status: 'enriched' } });
  });

  it('sends progress for enrich_record when asked, in both eras, and none when not', async () => {
    const people = partnerPeople(stack.sandboxes, 2, 60);
    stack.sandboxes.hubspot.setWebhookUrl(undefined);
    const ids = people.map((p) => stack.sandboxes.hubspot.createContact({ email: p.workEmail! }).id);
    stack.sandboxes.hubspot.setWebhookUrl(`${stack.running.url}/webhooks/hubspot`);

    const legacyProgress: { progress: number; total?: number; message?: string }[] = [];
    const fromLegacy = await legacy.callTool(
      { name: 'enrich_record', arguments: { crm: 'hubspot', object: 'contact', id: ids[0] } },
      undefined,
      { onprogress: (p) => legacyProgress.push(p) },
    );
    expect(fromLegacy.isError).toBeFalsy();
    expect(legacyProgress.map((p) => [p.progress, p.total])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(legacyProgress[0]!.message).toContain(`hubspot contact ${ids[0]}: queued`);

    const modernProgress: number[] = [];
    const fromModern = await modern.callTool(
      { name: 'enrich_record', arguments: { crm: 'hubspot', object: 'contact', id: ids[1] } },
      { onprogress: (p) => modernProgress.push(p.progress) },
    );
    expect(fromModern.structuredContent).toMatchObject({ finished: true, record: { id: ids[1] } });
    expect(modernProgress).toEqual([1, 2]);

    // Without a token nothing but the result comes back: the answer is plain JSON, not a stream.
    const res = await fetch(`${stack.running.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${(await signIn(stack.running.url)).tokens()!.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'enrich_record', arguments: { crm: 'hubspot', object: 'contact', id: ids[0] } },
      }),
    });
    expect(await res.text()).not.toContain('notifications/progress');
  });

  it('sends progress for run_discovery, person by person', async () => {
    const { sandboxes } = stack;
    const byCompany = new Map<string, typeof sandboxes.partner.dataset.personRecords>();
    for (const p of sandboxes.partner.dataset.personRecords) {
      const id = p.employer.company.id as string;
      if (p.workEmail && p.market === p.employer.home) byCompany.set(id, [...(byCompany.get(id) ?? []), p]);
    }
    const people = [...byCompany.values()].sort((a, b) => b.length - a.length)[0]!;
    const company = sandboxes.hubspot.createCompany({ domain: people[0]!.employer.domain });
    await eventually(
      () => (sandboxes.hubspot.getCompany(company.id)?.crm_enrich_partner_id ? true : undefined),
      10_000,
      'the company to be enriched',
    );
    await settled(stack);
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const run = await modern.callTool(
      {
        name: 'run_discovery',
        arguments: {
          crm: 'hubspot',
          companyId: company.id,
          filters: { department: [String(people[0]!.departmentId)] },
        },
      },
      { onprogress: (p) => progress.push(p) },
    );
    expect(run.isError, JSON.stringify(run.content)).toBeFalsy();
    expect((run.structuredContent as { created: number }).created).toBeGreaterThan(0);
    // One notification when the run starts, then one per person it acted on, the last at the total.
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
    expect(progress.at(-1)!.progress).toBe(progress.at(-1)!.total);
    expect(progress.at(-1)!.message).toMatch(/^(\d+) of \1 people: /);
  });
});
