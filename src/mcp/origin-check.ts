/**
 * `Origin` on /mcp (the Streamable HTTP transport: servers MUST validate it; invalid answers 403).
 * Absent, the request is not a browser's and passes (assistants and developer tools send none).
 * Present, it must be the service's own origin (PUBLIC_URL's, or the listening address's; on a
 * loopback address the other loopback names with the same port too) or one of MCP_ALLOWED_ORIGINS,
 * compared whole: the SDK's check compares host names only, which would let a page served by another
 * program on another port of the same machine through. `Origin: null` (sandboxed frames, file pages)
 * is never allowed.
 *
 * An allowed origin also gets the CORS answers a browser needs to call /mcp from another origin (the
 * preflight, and the headers it may read: the bearer challenge, Retry-After); without them the
 * allow-list would let through only what a browser never sends.
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

/** How long a browser may keep a preflight's answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

export function originCheck(allowed: Set<string>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    if (origin === undefined) return next();
    if (isOriginForm(origin) && allowed.has(normaliseOrigin(origin))) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Vary', 'Origin');
      res.setHeader('Access-Control-Expose-Headers', 'WWW-Authenticate, Retry-After');
      if (req.method !== 'OPTIONS') return next();
      res.setHeader('Access-Control-Allow-Methods', 'POST');
      // The MCP headers (Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*) vary: an allowed origin may send any.
      const asked = req.headers['access-control-request-headers'];
      if (asked) res.setHeader('Access-Control-Allow-Headers', asked);
      res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
      res.status(204).end();
      return;
    }
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
