/**
 * The checks every client's metadata passes, whether it comes from dynamic registration (RFC 7591) or
 * from a Client ID Metadata Document: redirect URIs on the allow-list and few of them, public clients
 * only, the grant types and scopes this server has, and short text fields. Whatever else a client sends
 * is dropped, so what is stored, echoed and shown on the consent page is bounded.
 */
import { InvalidClientMetadataError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { MAX_REDIRECT_URI_LENGTH, redirectUriProblem } from '../core/oauth-urls.js';
import { InvalidRedirectUriError } from './oauth-errors.js';
import { ALL_SCOPES, isScope } from './scopes.js';

export const GRANT_TYPES = ['authorization_code', 'refresh_token'];
export const MAX_REDIRECT_URIS = 10;
const TEXT_LIMITS = { client_name: 100, software_id: 100, software_version: 50 } as const;

/** What a client asks to be, as the SDK's schema parsed it (or a metadata document gave it). */
export interface ClientMetadataInput {
  redirect_uris?: unknown;
  token_endpoint_auth_method?: string | undefined;
  grant_types?: string[] | undefined;
  response_types?: string[] | undefined;
  client_name?: string | undefined;
  client_uri?: string | undefined;
  scope?: string | undefined;
  software_id?: string | undefined;
  software_version?: string | undefined;
}

export type CheckedClientMetadata = Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>;

export function checkedClientMetadata(input: ClientMetadataInput): CheckedClientMetadata {
  if (input.response_types && input.response_types.some((t) => t !== 'code')) {
    throw new InvalidClientMetadataError(
      'response_types: only "code" is supported (authorization code flow with PKCE)',
    );
  }
  const text: Partial<Record<keyof typeof TEXT_LIMITS, string>> = {};
  for (const [field, limit] of Object.entries(TEXT_LIMITS) as [keyof typeof TEXT_LIMITS, number][]) {
    const value = input[field]?.trim();
    if (value && value.length > limit) throw new InvalidClientMetadataError(`${field}: at most ${limit} characters`);
    if (value) text[field] = value;
  }
  return {
    redirect_uris: checkedRedirectUris(input.redirect_uris),
    // Public clients only: whatever a registration asked, the answer says no secret is used.
    token_endpoint_auth_method: 'none',
    grant_types: checkedGrantTypes(input.grant_types),
    response_types: ['code'],
    scope: checkedScope(input.scope),
    ...text,
    ...(input.client_uri ? { client_uri: checkedClientUri(input.client_uri) } : {}),
  };
}

function checkedRedirectUris(uris: unknown): string[] {
  if (!Array.isArray(uris) || !uris.length)
    throw new InvalidRedirectUriError('redirect_uris: give at least one redirect URI');
  if (uris.length > MAX_REDIRECT_URIS) throw new InvalidRedirectUriError(`redirect_uris: at most ${MAX_REDIRECT_URIS}`);
  for (const uri of uris) {
    if (typeof uri !== 'string') throw new InvalidRedirectUriError('redirect_uris: expected strings');
    const problem = redirectUriProblem(uri);
    // The URI is named so a developer sees which one; a long one is cut so the answer stays small.
    if (problem) throw new InvalidRedirectUriError(`redirect_uris: ${uri.slice(0, 200)}: ${problem}`);
  }
  return [...new Set(uris as string[])];
}

function checkedClientUri(uri: string): string {
  if (uri.length > MAX_REDIRECT_URI_LENGTH || !URL.canParse(uri) || new URL(uri).protocol !== 'https:') {
    throw new InvalidClientMetadataError(
      `client_uri: expected an https URL of at most ${MAX_REDIRECT_URI_LENGTH} characters`,
    );
  }
  return uri;
}

function checkedGrantTypes(types: string[] | undefined): string[] {
  const unsupported = (types ?? []).filter((t) => !GRANT_TYPES.includes(t));
  if (unsupported.length) {
    const asked = unsupported.join(', ').slice(0, 200);
    throw new InvalidClientMetadataError(`grant_types: ${asked} not supported; use ${GRANT_TYPES.join(' and ')}`);
  }
  return GRANT_TYPES;
}

function checkedScope(scope: string | undefined): string {
  if (!scope?.trim()) return ALL_SCOPES.join(' ');
  const asked = scope.trim().split(/\s+/);
  const unknown = asked.filter((s) => !isScope(s));
  if (unknown.length) {
    const named = unknown.join(', ').slice(0, 200);
    throw new InvalidClientMetadataError(`scope: unknown scope ${named}; this server has ${ALL_SCOPES.join(', ')}`);
  }
  return [...new Set(asked)].join(' ');
}
