/**
 * The MCP server of `crm-enrich serve` with nothing configured (PGlite, sandboxes), as a developer
 * tool meets it on a laptop: the SDK's client discovers the sign-in, registers, gets the admin's
 * consent (the admin token the data directory keeps), calls tools, refreshes, and signs in again
 * after a restart, since clients and tokens live in the database, not in the process.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterAll, describe, expect, it } from 'vitest';
import { exitWithin, freePort, killAll, startServiceProcess } from '../e2e/process.js';
import { eventually } from '../e2e/stack.js';
import { connect, signIn } from './oauth-helpers.js';

const dataDir = mkdtempSync(join(tmpdir(), 'crm-enrich-mcp-'));
const env = { PATH: process.env.PATH ?? '', HOME: dataDir, CRM_ENRICH_DATA_DIR: dataDir, LOG_LEVEL: 'info' };

describe('MCP on the embedded default', () => {
  afterAll(async () => {
    await killAll();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs the SDK client in, answers its tools, and keeps its tokens across a restart', async () => {
    // The same port after the restart: the issuer and the resource tokens are bound to follow it.
    const port = String(await freePort());
    let service = await startServiceProcess({ ...env, PORT: port }, 120_000);
    const banner = await eventually(
      () => (service.output().includes('MCP server:') ? service.output() : undefined),
      10_000,
      'the banner',
    );
    expect(banner).toContain(`MCP server:         ${service.url}/mcp`);
    const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const partnerUrl = /partner sandbox: +(http:\/\/127\.0\.0\.1:\d+)/.exec(banner)![1]!;
    const sample = (await (await fetch(`${partnerUrl}/__sandbox/sample?n=1`)).json()) as {
      companies: { fqdn: string; market: string; name: string }[];
    };
    const company = sample.companies[0]!;

    const client = await signIn(service.url, { adminToken });
    let mcp = await connect(service.url, client);
    const found = await mcp.callTool({
      name: 'lookup_company',
      arguments: { by: 'fqdn', value: company.fqdn, market: company.market },
    });
    expect(found.isError).toBeFalsy();
    expect(found.structuredContent).toMatchObject({ found: true, record: { name: company.name } });
    await mcp.close();

    service.kill('SIGTERM');
    expect(await exitWithin(service, 20_000)).toEqual({ code: 0, signal: null });
    service = await startServiceProcess({ ...env, PORT: port }, 120_000);

    // The access token issued before the restart still works, then the refresh token rotates.
    mcp = await connect(service.url, client);
    const cached = await mcp.callTool({
      name: 'lookup_company',
      arguments: { by: 'fqdn', value: company.fqdn, market: company.market },
    });
    expect(cached.structuredContent).toMatchObject({ found: true, fromCache: true });
    await mcp.close();
    const before = client.tokens()!.refresh_token;
    expect(await auth(client, { serverUrl: `${service.url}/mcp` })).toBe('AUTHORIZED');
    expect(client.tokens()!.refresh_token).not.toBe(before);

    service.kill('SIGTERM');
    expect(await exitWithin(service, 20_000)).toEqual({ code: 0, signal: null });
    // Nothing of the sign-in is in the log: no token, code or admin token.
    const log = service.output();
    for (const secret of [adminToken, client.tokens()!.access_token, client.tokens()!.refresh_token!])
      expect(log).not.toContain(secret);
  }, 300_000);
});
