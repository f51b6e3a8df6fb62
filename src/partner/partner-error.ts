import { AppError, type ErrorKind } from '../core/errors.js';

export interface PartnerErrorOptions {
  /** HTTP status of the provider's answer; 0 when there was none (timeout, connection, bad input). */
  status: number;
  code: string;
  message: string;
  kind: ErrorKind;
  /** How many requests were made before giving up. */
  attempts?: number;
  /** The provider's `Retry-After`, when it gave one. */
  retryAfterMs?: number;
  cause?: unknown;
}

/**
 * Every failure of the partner client. `retryable` (from `kind`) says whether the same call may
 * succeed later; the message says what to do. Messages never carry the API key.
 */
export class PartnerError extends AppError {
  readonly status: number;
  readonly attempts: number;
  readonly retryAfterMs?: number;

  constructor(options: PartnerErrorOptions) {
    super(options.code, options.message, options.kind, undefined, { cause: options.cause });
    this.status = options.status;
    this.attempts = options.attempts ?? 0;
    this.retryAfterMs = options.retryAfterMs;
  }
}
