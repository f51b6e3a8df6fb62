/**
 * Requests per minute per MCP client (MCP_CLIENT_REQUESTS_PER_MINUTE), counted by OAuth client id after
 * the token is checked, so one assistant in a loop cannot crowd out the others or the partner key's
 * shared rate. Counted in each instance's memory, like the authorization endpoints' limits: with N
 * instances behind a load balancer a client gets at most N times the figure. Past it the answer is
 * 429 with Retry-After and a JSON-RPC error saying when to come back.
 */
import type { Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { AuthedRequest } from './bearer-auth.js';

const MINUTE_MS = 60_000;

export function clientRate(requestsPerMinute: number) {
  return rateLimit({
    windowMs: MINUTE_MS,
    limit: requestsPerMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    keyGenerator: (req) => `mcp-client:${(req as AuthedRequest).auth!.clientId}`,
    handler: (req, res: Response) => {
      const resetTime = (req as typeof req & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const seconds = Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now() + MINUTE_MS) - Date.now()) / 1000));
      res.setHeader('Retry-After', String(seconds));
      res.status(429).json({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message:
            `this client sent more than ${requestsPerMinute} requests in a minute ` +
            `(MCP_CLIENT_REQUESTS_PER_MINUTE); try again in ${seconds} s`,
        },
        id: null,
      });
    },
  });
}
