/**
 * The clients the authorization server knows: one pre-registered public client (MCP_CLIENT_ID) for
 * tools that cannot register, clients whose id is the HTTPS URL of their Client ID Metadata Document
 * (fetched and cached by ClientDocuments), and those registered through RFC 7591, kept in Postgres.
 * Every client is public: assistants and developer tools run on people's machines and cannot keep a
 * secret, so none is issued and PKCE is what binds a code to the client that asked for it.
 */
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidClientMetadataError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpOAuthStore } from '../store/mcp-oauth.js';
import { checkedClientMetadata, GRANT_TYPES } from './client-metadata.js';
import { isClientDocumentUrl, type ClientDocuments } from './client-documents.js';
import { ALL_SCOPES } from './scopes.js';

export interface PreRegisteredClient {
  clientId: string;
  redirectUris: string[];
}

export class McpClients implements OAuthRegisteredClientsStore {
  private readonly preRegistered: OAuthClientInformationFull;

  constructor(
    private readonly store: McpOAuthStore,
    preRegistered: PreRegisteredClient,
    private readonly documents: ClientDocuments,
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

  /** The pre-registered client's redirect URIs come from the operator's configuration, so they are trusted. */
  isPreRegistered(clientId: string): boolean {
    return clientId === this.preRegistered.client_id;
  }

  /** The client, or undefined; a metadata document that cannot be used throws InvalidClientError saying why. */
  async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    if (this.isPreRegistered(clientId)) return this.preRegistered;
    if (isClientDocumentUrl(clientId)) return this.documents.client(clientId);
    if (clientId.length > 200) return undefined;
    const metadata = await this.store.client(clientId);
    return metadata ? ({ ...metadata, client_id: clientId } as OAuthClientInformationFull) : undefined;
  }

  async registerClient(
    client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>,
  ): Promise<OAuthClientInformationFull> {
    const clientId = (client as Partial<OAuthClientInformationFull>).client_id;
    if (!clientId) throw new InvalidClientMetadataError('the server could not issue a client id');
    const metadata = { ...checkedClientMetadata(client), client_id_issued_at: Math.floor(Date.now() / 1000) };
    await this.store.saveClient(clientId, metadata);
    return { client_id: clientId, ...metadata };
  }
}
