/**
 * Client ID Metadata Documents: the fetch guard refuses what must never be fetched (plain http, loopback,
 * private and link-local addresses, also when a host name resolves to one), and a document served by a
 * local HTTPS server (its own CA, a resolver that maps its name to 127.0.0.1 and an exemption for that
 * address, all injected through the options object) is fetched, checked, cached and used by the SDK's
 * own client to sign in and call a tool.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ClientDocuments, type ClientDocumentsOptions } from '../../src/mcp/client-documents.js';
import { mcpApp } from '../../src/mcp/mcp-app.js';
import { AdminTokenCheck } from '../../src/auth/admin-token.js';
import { ADMIN_TOKEN } from '../e2e/stack.js';
import { useStack } from '../e2e/use-stack.js';
import { serverUnavailable } from '../support/db.js';
import { makeTestCertificates } from '../support/test-ca.js';
import { answerConsent, CALLBACK, connect, MemoryOAuthClient } from './oauth-helpers.js';

const HOST = 'client.test';
type Route = (res: import('node:http').ServerResponse) => void;

/** The client's own web server: documents by path, each request counted. */
let documentServer: Server;
let routes: Map<string, Route>;
let hits: Map<string, number>;
let base: string;
let ca: string;

beforeAll(async () => {
  const certificates = makeTestCertificates(HOST);
  ca = certificates.ca;
  routes = new Map();
  hits = new Map();
  documentServer = createServer({ key: certificates.key, cert: certificates.cert }, (req, res) => {
    hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1);
    const route = routes.get(req.url ?? '');
    if (route) route(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => documentServer.listen(0, '127.0.0.1', resolve));
  base = `https://${HOST}:${(documentServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  documentServer.closeAllConnections();
  await new Promise((resolve) => documentServer.close(resolve));
});
beforeEach(() => {
  routes.clear();
  hits.clear();
});

function serveJson(path: string, body: unknown, headers: Record<string, string> = {}): string {
  routes.set(path, (res) =>
    res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body)),
  );
  return `${base}${path}`;
}

function documentFor(url: string, extra: Record<string, unknown> = {}) {
  return {
    client_id: url,
    client_name: 'Document assistant',
    redirect_uris: [CALLBACK],
    token_endpoint_auth_method: 'none',
    ...extra,
  };
}

/** The test-only way to reach the local server: its name resolves to 127.0.0.1, which is exempt, under its own CA. */
function localOptions(
  overrides: Partial<NonNullable<ClientDocumentsOptions['fetch']>> = {},
  now?: () => number,
): ClientDocumentsOptions {
  return {
    fetch: {
      resolve: async (hostname) => (hostname === HOST ? ['127.0.0.1'] : []),
      ca,
      allowAddresses: ['127.0.0.1'],
      ...overrides,
    },
    ...(now ? { now } : {}),
  };
}

describe('the metadata document fetch guard', () => {
  it.each([
    ['http://client.example/client.json', /only https/],
    ['https://127.0.0.1/client.json', /127\.0\.0\.1, which is not a public address/],
    ['https://[::1]/client.json', /::1, which is not a public address/],
    ['https://169.254.169.254/latest/meta-data', /not a public address/],
    ['https://10.0.0.8/client.json', /not a public address/],
    ['https://localhost/client.json', /localhost resolves to .*, which is not a public address/],
    ['https://client.example/', /must have a path/],
    ['https://client.example/a/../client.json', /\. or \.\. path segments/],
  ])('refuses %s with the system resolver', async (url, reason) => {
    await expect(new ClientDocuments().client(url)).rejects.toMatchObject({
      errorCode: 'invalid_client',
      message: expect.stringMatching(reason),
    });
  });

  it('checks every address a name resolves to, after resolution, and refuses when any one is private', async () => {
    const answers: Record<string, string[]> = {
      'internal.example': ['10.1.2.3'],
      'mixed.example': ['93.184.216.34', '192.168.1.5'],
      'v6.example': ['fd00::1'],
    };
    const documents = new ClientDocuments({ fetch: { resolve: async (hostname) => answers[hostname] ?? [] } });
    await expect(documents.client('https://internal.example/c.json')).rejects.toThrow(
      /10\.1\.2\.3, which is not a public address/,
    );
    await expect(documents.client('https://mixed.example/c.json')).rejects.toThrow(
      /192\.168\.1\.5, which is not a public address/,
    );
    await expect(documents.client('https://v6.example/c.json')).rejects.toThrow(
      /fd00::1, which is not a public address/,
    );
  });

  it(
    'keeps refusing loopback when only the resolver is injected, ' +
      'and refuses a server whose certificate is not trusted',
    async () => {
      const url = serveJson('/plain.json', documentFor(`${base}/plain.json`));
      const resolverOnly = new ClientDocuments({ fetch: { resolve: async () => ['127.0.0.1'], ca } });
      await expect(resolverOnly.client(url)).rejects.toThrow(/127\.0\.0\.1, which is not a public address/);
      const noCa = new ClientDocuments({
        fetch: { resolve: async () => ['127.0.0.1'], allowAddresses: ['127.0.0.1'] },
      });
      await expect(noCa.client(url)).rejects.toThrow(/the fetch failed/);
      expect(hits.get('/plain.json') ?? 0).toBe(0);
    },
  );

  it('connects to the address it checked, resolving once', async () => {
    const url = serveJson('/once.json', documentFor(`${base}/once.json`));
    const asked: string[] = [];
    // A second answer would point elsewhere (DNS rebinding); it must never be asked for.
    const resolve = async (hostname: string) => (asked.push(hostname) === 1 ? ['127.0.0.1'] : ['10.0.0.1']);
    const client = await new ClientDocuments(localOptions({ resolve })).client(url);
    expect(client.client_name).toBe('Document assistant');
    expect(asked).toEqual([HOST]);
  });

  it("refuses a document over 5 KB, a redirect, a slow answer, one that is not its URL's or not allowed", async () => {
    const big = serveJson(
      '/big.json',
      documentFor(`${base}/big.json`, { client_uri: `https://a.example/${'x'.repeat(6000)}` }),
    );
    routes.set('/moved.json', (res) => res.writeHead(302, { location: `${base}/target.json` }).end());
    routes.set('/slow.json', (res) => res.writeHead(200, { 'content-type': 'application/json' }).write('{'));
    const other = serveJson('/other.json', documentFor(`${base}/someone-else.json`));
    const scheme = serveJson(
      '/scheme.json',
      documentFor(`${base}/scheme.json`, { redirect_uris: ['ms-msdt:/id PCWDiagnostic'] }),
    );
    const secret = serveJson(
      '/secret.json',
      documentFor(`${base}/secret.json`, { token_endpoint_auth_method: 'client_secret_basic' }),
    );
    const documents = new ClientDocuments(localOptions({ timeoutMs: 500 }));
    await expect(documents.client(big)).rejects.toThrow(/larger than 5120 bytes/);
    await expect(documents.client(`${base}/moved.json`)).rejects.toThrow(/answered 302; redirects are not followed/);
    expect(hits.get('/target.json') ?? 0).toBe(0);
    await expect(documents.client(`${base}/slow.json`)).rejects.toThrow(/no complete answer within 500 ms/);
    await expect(documents.client(other)).rejects.toThrow(/client_id must be exactly the URL/);
    await expect(documents.client(scheme)).rejects.toThrow(/ms-msdt: scheme is not allowed/);
    await expect(documents.client(secret)).rejects.toThrow(/public clients only/);
  });

  it('caches a document for its max-age within bounds, and fetches it again once stale', async () => {
    const url = serveJson('/cached.json', documentFor(`${base}/cached.json`), { 'cache-control': 'max-age=600' });
    let now = Date.now();
    const documents = new ClientDocuments(localOptions({}, () => now));
    await documents.client(url);
    await documents.client(url);
    expect(hits.get('/cached.json')).toBe(1);
    now += 599_000;
    await documents.client(url);
    expect(hits.get('/cached.json')).toBe(1);
    now += 2_000;
    await documents.client(url);
    expect(hits.get('/cached.json')).toBe(2);

    // max-age=0 still holds for the five-minute floor: every token check reads the client.
    const brief = serveJson('/brief.json', documentFor(`${base}/brief.json`), { 'cache-control': 'max-age=0' });
    await documents.client(brief);
    now += 299_000;
    await documents.client(brief);
    expect(hits.get('/brief.json')).toBe(1);
  });
});

const skip = await serverUnavailable();

describe.skipIf(skip)('signing in with a Client ID Metadata Document', () => {
  const stack = useStack({ sandboxes: { people: 100, companies: 20 } });
  let app: import('node:http').Server;
  let url: string;

  beforeAll(async () => {
    // The stack's own service fetches documents the production way; this app is the same MCP router
    // with the test-only fetch options, so the document server on loopback can be reached.
    const server = express();
    app = server.listen(0, '127.0.0.1');
    await new Promise((resolve) => app.once('listening', resolve));
    url = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    const service = stack.running.service.parts;
    server.use(
      mcpApp({
        service,
        config: service.config,
        publicUrl: url,
        tokenCheck: new AdminTokenCheck(ADMIN_TOKEN),
        clientDocuments: localOptions(),
      }),
    );
  });
  afterAll(async () => {
    app?.closeAllConnections();
    await new Promise((resolve) => app?.close(resolve));
  });

  it(
    'uses the document URL as the client id, shows the consent page with its name, ' +
      'and the SDK client calls a tool',
    async () => {
      const documentUrl = serveJson('/mcp-client.json', documentFor(`${base}/mcp-client.json`));
      const client = new MemoryOAuthClient({ clientMetadataUrl: documentUrl });
      expect(await auth(client, { serverUrl: `${url}/mcp` })).toBe('REDIRECT');
      expect(client.clientInformation()?.client_id).toBe(documentUrl);
      expect(client.authorizationUrl!.searchParams.get('client_id')).toBe(documentUrl);
      const page = await (await fetch(client.authorizationUrl!)).text();
      expect(page).toContain('<span id="client-name">Document assistant</span>');
      expect(page).toContain(documentUrl);
      const answer = await answerConsent(client.authorizationUrl!, 'allow');
      expect(answer.location!.searchParams.get('iss')).toBe(url);
      const code = answer.location!.searchParams.get('code')!;
      expect(await auth(client, { serverUrl: `${url}/mcp`, authorizationCode: code })).toBe('AUTHORIZED');
      const mcp = await connect(url, client);
      const result = await mcp.callTool({ name: 'filter_options', arguments: { identifiers: ['seniority'] } });
      expect(result.isError).toBeFalsy();
      await mcp.close();
      // Nothing was registered: the document is the registration.
      const { rows } = await stack.running.service.parts.store.db.query(
        `SELECT 1 FROM "${stack.running.schema}".mcp_oauth_client WHERE client_id = $1`,
        [documentUrl],
      );
      expect(rows).toEqual([]);
    },
  );

  // The production service refuses a loopback document.
  it('shows why a document cannot be used on an error page', async () => {
    const documentUrl = serveJson('/wrong-id.json', documentFor(`${base}/not-this.json`));
    const client = new MemoryOAuthClient({ clientMetadataUrl: documentUrl });
    expect(await auth(client, { serverUrl: `${url}/mcp` })).toBe('REDIRECT');
    const res = await fetch(client.authorizationUrl!, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('client_id must be exactly the URL it is served from');

    const plain = new URL(client.authorizationUrl!.href.replace(url, stack.running.url));
    const loopbackUrl = `https://127.0.0.1:${new URL(base).port}/prod.json`;
    serveJson('/prod.json', documentFor(loopbackUrl));
    plain.searchParams.set('client_id', loopbackUrl);
    const refused = await fetch(plain, { redirect: 'manual' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('127.0.0.1, which is not a public address');
    expect(hits.get('/prod.json') ?? 0).toBe(0);
  });
});
