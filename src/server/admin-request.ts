/**
 * Request plumbing shared by the admin API's route files: body parsing with zod into the API's error
 * shape, and async handlers whose rejections reach the admin error handler.
 */
import type { NextFunction, Request, Response } from 'express';
import type { z } from 'zod';
import { HttpError } from './http-error.js';

export function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.join('.') || 'body';
  throw new HttpError(400, 'invalid_request', `${field}: ${issue.message}`, {
    field,
    issues: result.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })),
  });
}

type Handler = (req: Request, res: Response) => Promise<void>;
export const route = (fn: Handler) => (req: Request, res: Response, next: NextFunction) => fn(req, res).catch(next);
