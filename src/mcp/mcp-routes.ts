/**
 * /mcp over Streamable HTTP, for clients of both protocol eras: 2026-07-28 (no sessions, no
 * initialize, the version in each request's `_meta`, `Mcp-Method`/`Mcp-Name` headers) and 2025-11-25
 * back to 2025-03-26 (initialize, served statelessly). The SDK's `createMcpHandler` tells the eras
 * apart and builds a server per request; nothing is held between requests, so any instance can answer.
 *
 * In front of it, in this order: `Host` (loopback service only: DNS rebinding), `Origin`, the bearer
 * token (401), the client's request rate (429), the body (415, -32700, 413, batches) and the scopes of
 * the tool calls, resources and prompts in it (403 insufficient_scope, so the client can ask the admin
 * for the wider scope). The SDK checks the same scopes again where each tool, resource and prompt is
 * declared, and each tool once more where it runs. GET and DELETE (a stream, ending a session) have
 * nothing to do without sessions and answer 405.
 */
import { Router, type NextFunction, type Request, type Response } from 'express';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { logger } from '../logger.js';
import { mcpBearerAuth, bearerChallenge, type AuthedRequest } from './bearer-auth.js';
import { ClientBudget } from './client-budget.js';
import { clientRate } from './client-rate.js';
import { jsonRpcBody } from './json-rpc-body.js';
import type { McpContext } from './mcp-context.js';
import { createMcpServer } from './mcp-server.js';
import type { McpOAuthProvider } from './oauth-provider.js';
import { allowedOrigins, originCheck } from './origin-check.js';
import type { BudgetFigures } from './resources/budget-resource.js';
import { scopeChallenge } from './scope-challenge.js';
import { scopeOf } from './scopes.js';
import { MCP_PATH, type McpUrls } from './urls.js';

const log = logger('mcp');

export interface McpLimits extends BudgetFigures {
  /** Credits one client may spend per UTC day. */
  clientDailyCredits: number;
}

export interface McpRoutesOptions {
  service: McpContext;
  provider: McpOAuthProvider;
  urls: McpUrls;
  enrichWaitMs: number;
  /** MCP_ALLOWED_ORIGINS: browser origins besides the service's own. */
  allowedOrigins: readonly string[];
  limits: McpLimits;
}

export function mcpRoutes(options: McpRoutesOptions): Router {
  const { service, provider, urls, limits } = options;
  const budget = new ClientBudget({
    reservations: service.store.reservations,
    counters: service.store.counters,
    dailyLimit: limits.clientDailyCredits,
  });
  const onerror = (error: Error) => log.warn({ err: error }, 'an MCP message could not be handled');
  const handler = createMcpHandler(
    ({ authInfo }) =>
      createMcpServer({ service, auth: verified(authInfo), enrichWaitMs: options.enrichWaitMs, budget }, limits),
    { onerror },
  );
  const serve = toNodeHandler(handler, { onerror });

  const router = Router();
  // A service reached only on this machine refuses other Host names (DNS rebinding); behind a
  // proxy the Host is the proxy's business.
  if (urls.loopback) router.use(MCP_PATH, hostHeaderValidation(['127.0.0.1', 'localhost', '[::1]']));
  router.use(MCP_PATH, originCheck(allowedOrigins(urls.issuer, options.allowedOrigins)));
  router.use(MCP_PATH, mcpBearerAuth(provider, urls));
  router.use(MCP_PATH, clientRate(limits.requestsPerMinute));
  router.post(MCP_PATH, ...jsonRpcBody(), scopesCovered(urls), (req: Request, res: Response, next: NextFunction) => {
    serve(req, res, req.body).catch(next);
  });
  router.all(MCP_PATH, (_req, res) => {
    res.setHeader('Allow', 'POST');
    res.status(405).json({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'this MCP server is stateless: send every message as a POST' },
      id: null,
    });
  });
  return router;
}

/** The bearer check runs before every request reaches the handler; a request without it is a wiring fault. */
function verified(authInfo: AuthInfo | undefined): AuthInfo {
  if (!authInfo) throw new Error('an MCP request reached the server without a verified token');
  return authInfo;
}

/** 403 insufficient_scope for the first message whose scope the token lacks, before the SDK sees any. */
function scopesCovered(urls: McpUrls) {
  return (req: AuthedRequest, res: Response, next: NextFunction): void => {
    const messages: unknown[] = Array.isArray(req.body) ? req.body : [req.body];
    for (const message of messages) {
      const needed = scopeOf(message);
      const challenge = needed && scopeChallenge(needed, req.auth!.scopes);
      if (!challenge) continue;
      const description = challenge.errorDescription ?? `this needs the ${needed} scope`;
      res.setHeader(
        'WWW-Authenticate',
        bearerChallenge(urls, { code: 'insufficient_scope', description }, challenge.scopes.join(' ')),
      );
      res.status(403).json({ error: 'insufficient_scope', error_description: description });
      return;
    }
    next();
  };
}
