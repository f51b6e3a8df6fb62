/**
 * The client side of the MCP tests, on the SDK's own client: an OAuthClientProvider that keeps its
 * registration, PKCE verifier and tokens in memory as a developer tool would keep them on disk, the
 * admin's answer on the consent page given over HTTP (the browser test gives it in Chromium), and an
 * MCP client connected with the resulting token.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { ADMIN_TOKEN } from '../e2e/stack.js';

export const CALLBACK = 'http://127.0.0.1:53612/callback';

export class MemoryOAuthClient implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private info: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier: string | undefined;
  private lastState: string | undefined;

  readonly redirectUrl: string;
  readonly name: string;
  /** Set, the SDK uses it as the client id when the server supports Client ID Metadata Documents. */
  readonly clientMetadataUrl: string | undefined;
  private readonly registeredRedirects: string[];

  constructor(
    options: {
      redirectUrl?: string;
      name?: string;
      preRegistered?: OAuthClientInformationMixed;
      registeredRedirects?: string[];
      clientMetadataUrl?: string;
    } = {},
  ) {
    this.clientMetadataUrl = options.clientMetadataUrl;
    this.redirectUrl = options.redirectUrl ?? CALLBACK;
    this.name = options.name ?? 'Test assistant';
    this.info = options.preRegistered;
    this.registeredRedirects = options.registeredRedirects ?? [this.redirectUrl];
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: this.registeredRedirects,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    this.lastState = randomBytes(8).toString('hex');
    return this.lastState;
  }
  get expectedState(): string | undefined {
    return this.lastState;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no PKCE verifier was saved');
    return this.verifier;
  }
}

/** What the browser is sent back to after the consent page: the redirect's query, read from Location. */
export interface ConsentAnswer {
  status: number;
  location: URL | undefined;
  html: string;
}

/** Opens the consent page and answers it the way the form posts. */
export async function answerConsent(
  authorizationUrl: URL,
  decision: 'allow' | 'deny',
  adminToken: string | undefined = ADMIN_TOKEN,
): Promise<ConsentAnswer> {
  const page = await fetch(authorizationUrl, { redirect: 'manual' });
  const html = await page.text();
  if (page.status !== 200) throw new Error(`the consent page answered ${page.status}: ${html.slice(0, 300)}`);
  const request = /name="request" value="([^"]+)"/.exec(html)?.[1];
  if (!request) throw new Error('the consent page has no request field');
  return postConsent(authorizationUrl.origin, {
    request,
    decision,
    ...(adminToken === undefined ? {} : { admin_token: adminToken }),
  });
}

export async function postConsent(origin: string, form: Record<string, string>): Promise<ConsentAnswer> {
  const res = await fetch(`${origin}/oauth/consent`, {
    method: 'POST',
    body: new URLSearchParams(form),
    redirect: 'manual',
  });
  const location = res.headers.get('location');
  return { status: res.status, location: location ? new URL(location) : undefined, html: await res.text() };
}

/** The whole dance with the SDK's `auth()`: discovery, registration, PKCE, consent (over HTTP), token. */
export async function signIn(
  serviceUrl: string,
  options: { client?: MemoryOAuthClient; scope?: string; adminToken?: string } = {},
): Promise<MemoryOAuthClient> {
  const client = options.client ?? new MemoryOAuthClient();
  const serverUrl = `${serviceUrl}/mcp`;
  if ((await auth(client, { serverUrl, ...(options.scope ? { scope: options.scope } : {}) })) !== 'REDIRECT')
    throw new Error('expected the client to be sent to the consent page');
  const answer = await answerConsent(client.authorizationUrl!, 'allow', options.adminToken ?? ADMIN_TOKEN);
  const code = answer.location?.searchParams.get('code');
  if (!code) throw new Error(`the consent answered ${answer.status} without a code: ${answer.html.slice(0, 300)}`);
  if ((await auth(client, { serverUrl, authorizationCode: code })) !== 'AUTHORIZED')
    throw new Error('the code was not exchanged');
  return client;
}

/** An MCP client on the SDK's Streamable HTTP transport, signed in through `provider`. */
export async function connect(serviceUrl: string, provider: OAuthClientProvider): Promise<Client> {
  const client = new Client({ name: 'crm-enrich-tests', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${serviceUrl}/mcp`), { authProvider: provider }));
  return client;
}
