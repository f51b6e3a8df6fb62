/**
 * Request plumbing shared by the admin API's route files: body parsing with zod into the API's error
 * shape, and async handlers whose rejections reach the admin error handler.
 */
import type { NextFunction, Request, Response } from 'express';
import { z } from 'zod';
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

/**
 * The largest whole number the store keeps in an `integer` column (Postgres int4): versions and ids above
 * it would fail in the database as a 500, so they are refused here as a 400 naming the field.
 */
export const MAX_STORED_INT = 2_147_483_647;

/** A whole number within [min, max], as zod checks it in a body (`parse` puts the field's name before the message). */
export function wholeNumber(min: number, max: number) {
  const range = wholeNumberRange(min, max);
  return z.number({ error: range }).int(range).min(min, range).max(max, range);
}

/** The same from text (a query parameter), digits only: no sign, exponent or fraction. */
export function wholeNumberText(min: number, max: number) {
  const range = wholeNumberRange(min, max);
  return z
    .string({ error: range })
    .regex(/^\d{1,16}$/, range)
    .transform(Number)
    .refine((n) => n >= min && n <= max, range);
}

const wholeNumberRange = (min: number, max: number) =>
  `expected a whole number from ${min.toLocaleString('en')} to ${max.toLocaleString('en')}`;

/**
 * A whole number from the query or the path, within [min, max]: digits only (no sign, exponent or
 * fraction), or a 400 naming the field. `fallback` stands for an absent query parameter.
 */
export function wholeNumberParam(
  value: unknown,
  field: string,
  { min, max, fallback }: { min: number; max: number; fallback?: number },
): number {
  if (value === undefined && fallback !== undefined) return fallback;
  const number = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : NaN;
  if (number >= min && number <= max) return number;
  throw new HttpError(400, 'invalid_request', `${field}: ${wholeNumberRange(min, max)}`, { field });
}
