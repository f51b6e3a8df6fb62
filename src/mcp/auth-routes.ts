/**
 * The authorization server's endpoints: metadata (RFC 8414 and the protected resource metadata of
 * RFC 9728 at the path derived from /mcp), /authorize (ours: see authorize-handler.ts), and the SDK's
 * own handlers for /token, /register (RFC 7591, behind a body cap) and /revoke (RFC 7009). The metadata
 * is ours rather than the SDK's default because every client here is public (the only client
 * authentication offered is `none`), and it says that answers carry `iss` (RFC 9207) and that a client
 * id may be the URL of a Client ID Metadata Document.
 */
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import { mcpAuthMetadataRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { OAuthMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpOAuthProvider } from './oauth-provider.js';
import { authorizeHandler } from './authorize-handler.js';
import { ALL_SCOPES } from './scopes.js';
import type { McpUrls } from './urls.js';

export const AUTH_PATHS = {
  authorize: '/authorize',
  token: '/token',
  register: '/register',
  revoke: '/revoke',
} as const;

/** A registration is a few hundred bytes; the cap keeps a junk one from being parsed, stored and echoed. */
const MAX_REGISTRATION_BYTES = 16 * 1024;

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
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
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
  router.use(AUTH_PATHS.authorize, authorizeHandler(provider));
  router.use(AUTH_PATHS.token, tokenHandler({ provider }));
  router.use(
    AUTH_PATHS.register,
    express.json({ limit: MAX_REGISTRATION_BYTES }),
    unreadableRegistration,
    // The hourly limit is on clients stored: a refused registration stores nothing and is not counted.
    clientRegistrationHandler({
      clientsStore: provider.clientsStore,
      clientSecretExpirySeconds: 0,
      rateLimit: { skipFailedRequests: true },
    }),
  );
  router.use(AUTH_PATHS.revoke, revocationHandler({ provider }));
  return router;
}

/** A registration over the cap, or not JSON, answered as RFC 7591 answers bad metadata. */
function unreadableRegistration(
  error: { type?: string; status?: number },
  _req: Request,
  res: Response,
  next: NextFunction,
): void {
  if (error.type !== 'entity.too.large' && error.type !== 'entity.parse.failed') return next(error);
  const tooLarge = error.type === 'entity.too.large';
  res.setHeader('Cache-Control', 'no-store');
  // Browser-based clients register too (the SDK's handler allows any origin); they must be able to read why.
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.status(tooLarge ? 413 : 400).json({
    error: 'invalid_client_metadata',
    error_description: tooLarge
      ? `the registration is larger than ${MAX_REGISTRATION_BYTES / 1024} KB; send only the client metadata (RFC 7591)`
      : 'the registration is not JSON',
  });
}
