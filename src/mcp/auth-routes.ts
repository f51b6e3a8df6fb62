/**
 * The authorization server's endpoints, from the SDK's own handlers: metadata (RFC 8414 and the
 * protected resource metadata of RFC 9728 at the path derived from /mcp), /authorize (consent page),
 * /token, /register (RFC 7591) and /revoke (RFC 7009). The metadata is ours rather than the SDK's
 * default because every client here is public: the only client authentication offered is `none`.
 */
import { Router } from 'express';
import { authorizationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import { mcpAuthMetadataRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { OAuthMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpOAuthProvider } from './oauth-provider.js';
import { ALL_SCOPES } from './scopes.js';
import type { McpUrls } from './urls.js';

export const AUTH_PATHS = { authorize: '/authorize', token: '/token', register: '/register', revoke: '/revoke' } as const;

export function authorizationServerMetadata(urls: McpUrls): OAuthMetadata {
  const at = (path: string) => `${urls.issuer}${path}`;
  return {
    issuer: urls.issuer,
    authorization_endpoint: at(AUTH_PATHS.authorize),
    token_endpoint: at(AUTH_PATHS.token),
    registration_endpoint: at(AUTH_PATHS.register),
    revocation_endpoint: at(AUTH_PATHS.revoke),
    scopes_supported: ALL_SCOPES,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
  };
}

export function authRoutes(provider: McpOAuthProvider, urls: McpUrls): Router {
  const router = Router();
  const oauthMetadata = authorizationServerMetadata(urls);
  router.use(
    mcpAuthMetadataRouter({
      oauthMetadata,
      resourceServerUrl: new URL(urls.resource),
      scopesSupported: ALL_SCOPES,
      resourceName: 'crm-enrich',
    }),
  );
  router.use(AUTH_PATHS.authorize, authorizationHandler({ provider }));
  router.use(AUTH_PATHS.token, tokenHandler({ provider }));
  router.use(AUTH_PATHS.register, clientRegistrationHandler({ clientsStore: provider.clientsStore, clientSecretExpirySeconds: 0 }));
  router.use(AUTH_PATHS.revoke, revocationHandler({ provider }));
  return router;
}
