/** Bearer-token guard for the admin API: the shared admin token check (src/auth), answered over HTTP. */
import type { NextFunction, Request, Response } from 'express';
import type { AdminTokenCheck } from '../auth/admin-token.js';
import { sendError } from './http-error.js';

export function adminAuth(check: AdminTokenCheck) {
  return (req: Request, res: Response, next: NextFunction) => {
    const address = req.socket.remoteAddress ?? 'unknown';
    const waitMs = check.waitFor(address);
    if (waitMs > 0) {
      res.setHeader('Retry-After', String(Math.ceil(waitMs / 1000)));
      sendError(
        res,
        429,
        'too_many_attempts',
        'too many wrong admin tokens from this address; wait Retry-After seconds and send the right one',
      );
      return;
    }
    const header = req.headers.authorization ?? '';
    const match = /^Bearer (.+)$/i.exec(header);
    // A request with no token at all is a page loading, not a guess: it is not counted.
    if (!match || !check.matches(address, match[1]!, 'admin api')) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="crm-enrich admin"');
      sendError(res, 401, 'unauthorized', 'send the admin token as "Authorization: Bearer <ADMIN_TOKEN>"');
      return;
    }
    next();
  };
}
