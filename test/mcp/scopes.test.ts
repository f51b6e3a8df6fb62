/**
 * Scopes where each tool, resource and prompt is declared, not only at the /mcp route: the MCP server
 * itself, served by the SDK's handler with no route in front, answers a call its token's scopes do not
 * cover with 403 insufficient_scope (both protocol eras), for every tool in the scope table; and a tool
 * reached with no HTTP layer at all (an in-memory transport) still refuses to run, as a tool error.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, InMemoryTransport, type AuthInfo } from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it } from 'vitest';
import { ClientBudget } from '../../src/mcp/client-budget.js';
import { createMcpServer } from '../../src/mcp/mcp-server.js';
import { TOOL_SCOPES, type Scope, type ToolName } from '../../src/mcp/scopes.js';
import { serverUnavailable } from '../support/db.js';
import { useStack } from '../e2e/use-stack.js';
import { MODERN } from './modern-client.js';

const skip = await serverUnavailable();

/** The JSON-RPC messages of an answer, whether plain JSON or an SSE stream. */
function messagesOf(text: string): unknown[] {
  if (text.trimStart().startsWith('{')) return [JSON.parse(text)];
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)));
}

/** Arguments each tool accepts, so a refusal can only come from the scope. */
const ARGS: Record<ToolName, Record<string, unknown>> = {
  lookup_company: { by: 'fqdn', value: 'acme.example' },
  lookup_person: { by: 'work_email', value: 'jane@acme.example' },
  search_people: { pageSize: 1 },
  filter_options: {},
  explain_record: { crm: 'hubspot', object: 'contact', id: '1' },
  preview_discovery: { crm: 'hubspot', companyId: '1', filters: { seniority: ['1'] } },
  list_job_changes: { since: '2026-01-01T00:00:00Z' },
  data_health: { crm: 'hubspot', object: 'contact' },
  enrich_record: { crm: 'hubspot', object: 'contact', id: '1' },
  run_discovery: { crm: 'hubspot', companyId: '1', filters: { seniority: ['1'] } },
};

describe.skipIf(skip)('MCP scopes where the tools are declared', () => {
  const stack = useStack({ sandboxes: { people: 50, companies: 10 } });
  const handlers: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const h of handlers) await h.close();
  });

  const auth = (scopes: Scope[]): AuthInfo => ({
    token: 'test-token',
    clientId: 'scope-test-client',
    scopes,
    expiresAt: Math.floor(Date.now() / 1000) + 600,
    resource: new URL(`${stack.running.url}/mcp`),
  });
  const serverFor = (authInfo: AuthInfo) => {
    const service = stack.running.service.parts;
    const budget = new ClientBudget({
      reservations: service.store.reservations,
      counters: service.store.counters,
      dailyLimit: 100,
    });
    return createMcpServer(
      { service, auth: authInfo, enrichWaitMs: 0, budget },
      { dailyBudget: 1000, hardCap: 1200, requestsPerMinute: 100 },
    );
  };
  /** The SDK's handler with no route in front: whatever refuses here, the server itself refused. */
  const bareHandler = () => {
    const handler = createMcpHandler(({ authInfo }) => serverFor(authInfo!));
    handlers.push(handler);
    return handler;
  };
  const legacyCall = (handler: ReturnType<typeof bareHandler>, scopes: Scope[], method: string, params: object) =>
    handler.fetch(
      new Request('http://mcp.test/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      }),
      { authInfo: auth(scopes) },
    );

  it('declares a scope on every tool it lists, and the table names no tool it lacks', async () => {
    const handler = bareHandler();
    const res = await legacyCall(handler, ['read', 'write'], 'tools/list', {});
    const [answer] = messagesOf(await res.text()) as { result: { tools: { name: string }[] } }[];
    expect(answer!.result.tools.map((t) => t.name).sort()).toEqual(Object.keys(TOOL_SCOPES).sort());
  });

  it('answers a 2025-era call without the tool scope with 403 insufficient_scope, tool by tool', async () => {
    const handler = bareHandler();
    for (const [tool, needed] of Object.entries(TOOL_SCOPES) as [ToolName, Scope][]) {
      const other: Scope = needed === 'read' ? 'write' : 'read';
      const res = await legacyCall(handler, [other], 'tools/call', { name: tool, arguments: ARGS[tool] });
      expect(res.status, tool).toBe(403);
      const challenge = res.headers.get('www-authenticate') ?? '';
      expect(challenge, tool).toContain('error="insufficient_scope"');
      expect(challenge, tool).toContain(`scope="${other} ${needed}"`);
      expect(challenge, tool).toContain(
        `resource_metadata="${stack.running.url}/.well-known/oauth-protected-resource/mcp"`,
      );
    }
    for (const [method, params] of [
      ['resources/read', { uri: 'crm-enrich://budget/today' }],
      ['prompts/get', { name: 'job_changes_this_week', arguments: {} }],
    ] as const) {
      const res = await legacyCall(handler, ['write'], method, params);
      expect(res.status, method).toBe(403);
      expect(res.headers.get('www-authenticate'), method).toContain('scope="write read"');
    }
    expect((await legacyCall(handler, ['read'], 'tools/call', { name: 'filter_options', arguments: {} })).status).toBe(
      200,
    );
  });

  it('refuses a 2026-07-28 call the same way, before the tool runs', async () => {
    const handler = bareHandler();
    const client = new Client(
      { name: 'scope-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://mcp.test/mcp'), {
        fetch: (url, init) => handler.fetch(new Request(url, init), { authInfo: auth(['read']) }),
      }),
    );
    const before = (
      await stack.running.service.parts.store.recordView(
        { connection: 'mcp', objectType: 'tool', recordId: 'enrich_record' },
        50,
      )
    ).audit.length;
    await expect(client.callTool({ name: 'enrich_record', arguments: ARGS.enrich_record })).rejects.toMatchObject({
      name: 'InsufficientScopeError',
      requiredScope: 'read write',
    });
    expect(
      (
        await stack.running.service.parts.store.recordView(
          { connection: 'mcp', objectType: 'tool', recordId: 'enrich_record' },
          50,
        )
      ).audit.length,
    ).toBe(before);
    expect((await client.callTool({ name: 'filter_options', arguments: {} })).isError).toBeFalsy();
    await client.close();
  });

  it('still refuses inside the tool when nothing in front checked it: a tool error, insufficient_scope', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = serverFor(auth(['read']));
    await server.connect(serverSide);
    const client = new Client({ name: 'in-memory', version: '1.0.0' });
    await client.connect(clientSide);
    const [person] = stack.sandboxes.partner.dataset.personRecords.filter((p) => p.workEmail);
    stack.sandboxes.hubspot.setWebhookUrl(undefined);
    const { id } = stack.sandboxes.hubspot.createContact({ email: person!.workEmail! });
    stack.sandboxes.hubspot.setWebhookUrl(`${stack.running.url}/webhooks/hubspot`);

    const result = await client.callTool({
      name: 'enrich_record',
      arguments: { crm: 'hubspot', object: 'contact', id },
    });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toMatch(
      /^insufficient_scope: enrich_record needs the write/,
    );
    const [row] = (
      await stack.running.service.parts.store.recordView(
        { connection: 'mcp', objectType: 'tool', recordId: 'enrich_record' },
        1,
      )
    ).audit;
    expect(row).toMatchObject({ outcome: 'refused', actor: 'mcp:scope-test-client' });
    const record = await stack.running.service.parts.store.recordView(
      { connection: 'hubspot', objectType: 'contact', recordId: id },
      10,
    );
    expect(record.audit).toEqual([]);
    expect(stack.sandboxes.hubspot.getContact(id)!.crm_enrich_partner_id).toBeFalsy();
    await client.close();
    await server.close();
  });
});
