/**
 * `Origin` on /mcp (the Streamable HTTP transport: servers MUST validate it; invalid answers 403).
 * Absent, the request is not a browser's and passes (assistants and developer tools send none).
 * Present, it must be the service's own origin (PUBLIC_URL's, or the listening address's; on a
 * loopback address the other loopback names with the same port too) or one of MCP_ALLOWED_ORIGINS,
 * compared whole: the SDK's check compares host names only, which would let a page served by another
 * program on another port of the same machine through. `Origin: null` (sandboxed frames, file pages)
 * is never allowed.
 */
import type { NextFunction, Request, Response } from 'express';
import { isLoopbackHost } from '../core/oauth-urls.js';
import { isOriginForm, normaliseOrigin } from '../core/web-origin.js';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** The origins a browser page may call /mcp from. */
export function allowedOrigins(serviceOrigin: string, configured: readonly string[]): Set<string> {
  const own = new URL(serviceOrigin);
  const aliases = isLoopbackHost(own.hostname)
    ? LOOPBACK_NAMES.map((host) => `${own.protocol}//${host}${own.port ? `:${own.port}` : ''}`)
    : [];
  return new Set([own.origin, ...aliases, ...configured].map(normaliseOrigin));
}

export function originCheck(allowed: Set<string>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    if (origin === undefined) return next();
    if (isOriginForm(origin) && allowed.has(normaliseOrigin(origin))) return next();
    res.status(403).json({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message:
          `Origin ${JSON.stringify(origin.slice(0, 200))} may not call this MCP server; ` +
          'an admin can add it to MCP_ALLOWED_ORIGINS',
      },
      id: null,
    });
  };
}
