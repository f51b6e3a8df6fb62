/**
 * The clients the authorization server knows: one pre-registered public client (MCP_CLIENT_ID) for
 * tools that cannot register, and those registered through RFC 7591, kept in Postgres. Every client is
 * public: assistants and developer tools run on people's machines and cannot keep a secret, so none
 * is issued and PKCE is what binds a code to the client that asked for it.
 */
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidClientMetadataError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { redirectUriProblem } from '../core/oauth-urls.js';
import type { McpOAuthStore } from '../store/mcp-oauth.js';
import { ALL_SCOPES, isScope } from './scopes.js';

const GRANT_TYPES = ['authorization_code', 'refresh_token'];
const MAX_REDIRECT_URIS = 10;
const MAX_NAME_LENGTH = 100;

export interface PreRegisteredClient {
  clientId: string;
  redirectUris: string[];
}

export class McpClients implements OAuthRegisteredClientsStore {
  private readonly preRegistered: OAuthClientInformationFull;

  constructor(
    private readonly store: McpOAuthStore,
    preRegistered: PreRegisteredClient,
  ) {
    this.preRegistered = {
      client_id: preRegistered.clientId,
      client_name: 'MCP client (pre-registered)',
      redirect_uris: preRegistered.redirectUris,
      token_endpoint_auth_method: 'none',
      grant_types: GRANT_TYPES,
      response_types: ['code'],
      scope: ALL_SCOPES.join(' '),
    };
  }

  async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    if (clientId === this.preRegistered.client_id) return this.preRegistered;
    if (clientId.length > 200) return undefined;
    const metadata = await this.store.client(clientId);
    return metadata ? ({ ...metadata, client_id: clientId } as OAuthClientInformationFull) : undefined;
  }

  async registerClient(client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>): Promise<OAuthClientInformationFull> {
    const clientId = (client as Partial<OAuthClientInformationFull>).client_id;
    if (!clientId) throw new InvalidClientMetadataError('the server could not issue a client id');
    const registered: OAuthClientInformationFull = {
      client_id: clientId,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      redirect_uris: checkedRedirectUris(client.redirect_uris),
      // Public clients only (see above): whatever was asked, the answer says no secret is used.
      token_endpoint_auth_method: 'none',
      grant_types: checkedGrantTypes(client.grant_types),
      response_types: ['code'],
      scope: checkedScope(client.scope),
      ...(client.client_name ? { client_name: client.client_name.trim().slice(0, MAX_NAME_LENGTH) } : {}),
      ...(client.client_uri ? { client_uri: client.client_uri } : {}),
      ...(client.software_id ? { software_id: client.software_id.slice(0, MAX_NAME_LENGTH) } : {}),
      ...(client.software_version ? { software_version: client.software_version.slice(0, 50) } : {}),
    };
    if (client.response_types && client.response_types.some((t) => t !== 'code')) {
      throw new InvalidClientMetadataError('response_types: only "code" is supported (authorization code flow with PKCE)');
    }
    const { client_id: _id, ...metadata } = registered;
    await this.store.saveClient(clientId, metadata);
    return registered;
  }
}

function checkedRedirectUris(uris: string[]): string[] {
  if (!uris.length) throw new InvalidClientMetadataError('redirect_uris: give at least one redirect URI');
  if (uris.length > MAX_REDIRECT_URIS) throw new InvalidClientMetadataError(`redirect_uris: at most ${MAX_REDIRECT_URIS}`);
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new InvalidClientMetadataError(`redirect_uris: ${uri}: ${problem}`);
  }
  return uris;
}

function checkedGrantTypes(types: string[] | undefined): string[] {
  const unsupported = (types ?? []).filter((t) => !GRANT_TYPES.includes(t));
  if (unsupported.length) throw new InvalidClientMetadataError(`grant_types: ${unsupported.join(', ')} not supported; use ${GRANT_TYPES.join(' and ')}`);
  return GRANT_TYPES;
}

function checkedScope(scope: string | undefined): string {
  if (!scope?.trim()) return ALL_SCOPES.join(' ');
  const asked = scope.trim().split(/\s+/);
  const unknown = asked.filter((s) => !isScope(s));
  if (unknown.length) throw new InvalidClientMetadataError(`scope: unknown scope ${unknown.join(', ')}; this server has ${ALL_SCOPES.join(', ')}`);
  return [...new Set(asked)].join(' ');
}
