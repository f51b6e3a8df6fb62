/** The error shape of every JSON endpoint: `{ error: { code, message, details } }`. */
import { AppError } from '../core/errors.js';
import type { Response } from 'express';

export class HttpError extends AppError {
  constructor(
    readonly status: number,
    code: string,
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(code, message, 'permanent', details);
  }
}

export function sendError(
  res: Response,
  status: number,
  code: string,
  message: string,
  details?: Record<string, unknown>,
): void {
  res.status(status).json({ error: { code, message, ...(details ? { details } : {}) } });
}
