/** Bearer-token guard for the admin API; the comparison takes the same time whatever the token. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { sendError } from './http-error.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

export function adminAuth(adminToken: string) {
  const expected = digest(adminToken);
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer (.+)$/i.exec(header);
    // Hashing both sides gives equal lengths, so timingSafeEqual never short-circuits on length.
    if (!match || !timingSafeEqual(digest(match[1]!.trim()), expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="crm-enrich admin"');
      sendError(res, 401, 'unauthorized', 'send the admin token as "Authorization: Bearer <ADMIN_TOKEN>"');
      return;
    }
    next();
  };
}
