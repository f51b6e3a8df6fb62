/**
 * /mcp over Streamable HTTP, stateless: every POST carries a bearer token and gets a server of its own;
 * GET (a server-to-client stream) and DELETE (ending a session) have nothing to do without sessions
 * and answer 405. A tool call the token's scopes do not cover is refused before it runs with 403
 * insufficient_scope, so the client can ask the admin for the wider scope (step-up authorization).
 */
import express, { Router, type NextFunction, type Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { logger } from '../logger.js';
import type { McpContext } from './mcp-context.js';
import { bearerChallenge, mcpBearerAuth, type AuthedRequest } from './bearer-auth.js';
import { createMcpServer } from './mcp-server.js';
import type { McpOAuthProvider } from './oauth-provider.js';
import { TOOL_SCOPES, type ToolName } from './scopes.js';
import { MCP_PATH, type McpUrls } from './urls.js';

const log = logger('mcp');

export interface McpRoutesOptions {
  service: McpContext;
  provider: McpOAuthProvider;
  urls: McpUrls;
  enrichWaitMs: number;
}

export function mcpRoutes({ service, provider, urls, enrichWaitMs }: McpRoutesOptions): Router {
  const router = Router();
  // A service reached only on this machine refuses other Host names (DNS rebinding); behind a
  // proxy the Host is the proxy's business.
  if (urls.loopback) router.use(MCP_PATH, hostHeaderValidation(['127.0.0.1', 'localhost', '[::1]']));
  router.use(MCP_PATH, mcpBearerAuth(provider, urls));
  router.post(MCP_PATH, express.json({ limit: '1mb' }), (req: AuthedRequest, res: Response, next: NextFunction) => {
    const missing = missingScopes(req.body, req.auth!.scopes);
    if (missing.length) {
      const scope = [...new Set([...req.auth!.scopes, ...missing])].join(' ');
      res.setHeader(
        'WWW-Authenticate',
        bearerChallenge(
          urls,
          { code: 'insufficient_scope', description: `this tool needs the ${missing.join(' ')} scope` },
          scope,
        ),
      );
      res.status(403).json({
        error: 'insufficient_scope',
        error_description: `this tool needs the ${missing.join(' ')} scope; sign in again and allow it`,
      });
      return;
    }
    handle(req, res, { service, auth: req.auth!, enrichWaitMs }).catch(next);
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

async function handle(req: AuthedRequest, res: Response, ctx: Parameters<typeof createMcpServer>[0]): Promise<void> {
  const server = createMcpServer(ctx);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    transport.close().catch(() => undefined);
    server.close().catch(() => undefined);
  });
  transport.onerror = (error) => log.warn({ err: error }, 'an MCP message could not be handled');
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}

/** Scopes the tool calls in this body need and the token lacks. */
function missingScopes(body: unknown, granted: string[]): string[] {
  const messages = Array.isArray(body) ? body : [body];
  const needed = messages.flatMap((m) => {
    const message = m as { method?: unknown; params?: { name?: unknown } } | null;
    if (message?.method !== 'tools/call' || typeof message.params?.name !== 'string') return [];
    const scope = TOOL_SCOPES[message.params.name as ToolName];
    return scope ? [scope] : [];
  });
  return [...new Set(needed)].filter((s) => !granted.includes(s));
}
