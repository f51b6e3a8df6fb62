/**
 * What one MCP client may spend: its share of the day's partner credits (here 10 % of a budget of 30,
 * so 3), reserved before each lookup and given back when the cache answered, with no client able to
 * take another's; `fromCache` true whenever the cache answered, a cached "no match" included; and its
 * requests per minute, past which it gets 429 while other clients go on.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOKUPS_COUNTER } from '../../src/enrich/partner-lookups.js';
import { serverUnavailable } from '../support/db.js';
import { useStack } from '../e2e/use-stack.js';
import { connect, MemoryOAuthClient, signIn } from './oauth-helpers.js';

const skip = await serverUnavailable();

const RATE = 25;

type Structured = Record<string, unknown>;

describe.skipIf(skip)('MCP client limits', () => {
  const stack = useStack({
    sandboxes: { people: 100, companies: 30 },
    service: {
      env: {
        PARTNER_DAILY_LOOKUP_BUDGET: '30',
        MCP_CLIENT_DAILY_LOOKUP_SHARE: '10',
        MCP_CLIENT_REQUESTS_PER_MINUTE: String(RATE),
      },
    },
  });
  const open: Client[] = [];
  afterAll(async () => {
    for (const c of open) await c.close();
  });

  const client = async (name: string) => {
    const signedIn = await signIn(stack.running.url, { client: new MemoryOAuthClient({ name }) });
    const mcp = await connect(stack.running.url, signedIn);
    open.push(mcp);
    return { mcp, token: signedIn.tokens()!.access_token };
  };
  const credits = () => stack.running.service.parts.store.counters.get(LOOKUPS_COUNTER);
  const companies = () => stack.sandboxes.partner.dataset.companyRecords;
  const lookupCompany = async (mcp: Client, i: number) => {
    const c = companies()[i]!;
    const result = await mcp.callTool({
      name: 'lookup_company',
      arguments: { by: 'fqdn', value: c.domain, market: c.home },
    });
    return {
      isError: result.isError === true,
      structured: result.structuredContent as Structured,
      text: (result.content as { text: string }[])[0]?.text ?? '',
    };
  };

  let first: Awaited<ReturnType<typeof client>>;
  beforeAll(async () => {
    first = await client('First assistant');
  });

  it('spends its share and no more; cached answers, a cached miss too, say fromCache and cost nothing', async () => {
    const { mcp } = first;
    const before = await credits();
    expect(await lookupCompany(mcp, 0)).toMatchObject({ structured: { found: true, fromCache: false } });
    expect(await lookupCompany(mcp, 0)).toMatchObject({ structured: { found: true, fromCache: true } });
    const nobody = { by: 'work_email', value: 'nobody@unknown-company.example' };
    expect((await mcp.callTool({ name: 'lookup_person', arguments: nobody })).structuredContent).toMatchObject({
      found: false,
      fromCache: false,
    });
    expect((await mcp.callTool({ name: 'lookup_person', arguments: nobody })).structuredContent).toMatchObject({
      found: false,
      fromCache: true,
    });
    expect(await lookupCompany(mcp, 1)).toMatchObject({ structured: { fromCache: false } });
    expect(await credits()).toBe(before + 3);

    const refused = await lookupCompany(mcp, 2);
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('mcp_client_budget_exhausted');
    expect(refused.text).toContain('MCP_CLIENT_DAILY_LOOKUP_SHARE');
    expect(await credits()).toBe(before + 3);

    const budget = await mcp.readResource({ uri: 'crm-enrich://budget/today' });
    const figures = JSON.parse((budget.contents[0] as { text: string }).text) as Structured;
    expect(figures).toMatchObject({
      client: { creditsSpent: 3, dailyShare: 3, requestsPerMinute: RATE },
      service: { dailyBudget: 30, creditsSpent: before + 3 },
    });

    // Another client has a share of its own.
    const second = await client('Second assistant');
    expect(await lookupCompany(second.mcp, 2)).toMatchObject({ isError: false, structured: { found: true } });
    expect(await credits()).toBe(before + 4);
  });

  it('reserves before it spends: lookups sent at once never take a client past its share', async () => {
    const { mcp } = await client('Eager assistant');
    const before = await credits();
    const answers = await Promise.all([10, 11, 12, 13, 14, 15].map((i) => lookupCompany(mcp, i)));
    expect(answers.filter((a) => !a.isError)).toHaveLength(3);
    expect(answers.filter((a) => a.isError && a.text.includes('mcp_client_budget_exhausted'))).toHaveLength(3);
    expect(await credits()).toBe(before + 3);
  });

  it('answers 429 with Retry-After past its requests per minute, and only to that client', async () => {
    const busy = await signIn(stack.running.url, { client: new MemoryOAuthClient({ name: 'Busy assistant' }) });
    const token = busy.tokens()!.access_token;
    const ping = (token: string) =>
      fetch(`${stack.running.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < RATE; i++) statuses.push((await ping(token)).status);
    expect(statuses).toEqual(Array.from({ length: RATE }, () => 200));
    const refused = await ping(token);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'MCP_CLIENT_REQUESTS_PER_MINUTE',
    );
    expect((await ping(first.token)).status).toBe(200);
  });
});
