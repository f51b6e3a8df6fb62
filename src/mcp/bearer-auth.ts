/**
 * Bearer tokens on /mcp. Without a usable token the answer is 401 with the WWW-Authenticate header
 * the MCP authorization specification asks for: where the protected resource metadata is, and the
 * scope that covers every tool, so a client can sign in with one consent. A token issued for
 * another resource is refused like an unknown one (RFC 8707 audience binding).
 */
import type { NextFunction, Request, Response } from 'express';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { McpOAuthProvider } from './oauth-provider.js';
import { SCOPE_FOR_ALL_TOOLS } from './scopes.js';
import { sameResource, type McpUrls } from './urls.js';

export type AuthedRequest = Request & { auth?: AuthInfo };

/** The WWW-Authenticate value of a refusal; no error code when no token was sent (RFC 6750 3.1). */
export function bearerChallenge(
  urls: McpUrls,
  error?: { code: string; description: string },
  scope = SCOPE_FOR_ALL_TOOLS,
): string {
  const parts = [
    ...(error ? [`error="${error.code}"`, `error_description="${error.description.replace(/["\\]/g, '')}"`] : []),
    `scope="${scope}"`,
    `resource_metadata="${urls.resourceMetadata}"`,
  ];
  return `Bearer ${parts.join(', ')}`;
}

export function mcpBearerAuth(provider: McpOAuthProvider, urls: McpUrls) {
  return async (req: AuthedRequest, res: Response, next: NextFunction): Promise<void> => {
    const header = req.headers.authorization;
    const match = header ? /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(header.trim()) : null;
    if (!header || !match) {
      const error = header
        ? { code: 'invalid_request', description: 'send the access token as Authorization: Bearer <token>' }
        : undefined;
      res.setHeader('WWW-Authenticate', bearerChallenge(urls, error));
      res.status(header ? 400 : 401).json({
        error: error?.code ?? 'invalid_token',
        error_description:
          error?.description ?? 'sign in: this MCP server needs an OAuth access token (see the resource metadata)',
      });
      return;
    }
    try {
      const auth = await provider.verifyAccessToken(match[1]!);
      if (!auth.resource || !sameResource(auth.resource.href, urls.resource))
        throw new InvalidTokenError('the access token was issued for another resource');
      // Where a scope challenge points the client, exactly as the 401 does.
      req.auth = { ...auth, resourceMetadataUrl: urls.resourceMetadata };
      next();
    } catch (error) {
      if (!(error instanceof InvalidTokenError)) return next(error);
      res.setHeader('WWW-Authenticate', bearerChallenge(urls, { code: 'invalid_token', description: error.message }));
      res.status(401).json(error.toResponseObject());
    }
  };
}
