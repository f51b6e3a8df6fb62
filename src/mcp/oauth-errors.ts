/**
 * OAuth error codes the SDK has no class for. RFC 7591 3.2.2 gives a refused redirect URI its own
 * code, so a client (or its developer) sees at once that the redirect, not the rest, is the problem.
 */
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

export class InvalidRedirectUriError extends OAuthError {
  static override errorCode = 'invalid_redirect_uri';
}
