import { AppError, type ErrorKind } from '../core/errors.js';

export type LimiterErrorCode = 'invalid_limiter_options' | 'limiter_stopped' | 'limiter_unavailable' | 'limiter_full';

const KIND: Record<LimiterErrorCode, ErrorKind> = {
  invalid_limiter_options: 'config',
  // The work itself is fine; another instance, or this one after a restart, can run it.
  limiter_stopped: 'transient',
  limiter_unavailable: 'transient',
  // Too much already waits here; the work waits in the queue instead and comes back shortly.
  limiter_full: 'transient',
};

/**
 * Raised by the rate limiter: bad options, work refused after stop()
 * or with the waiting list full, or the shared store out of reach.
 */
export class LimiterError extends AppError {
  constructor(code: LimiterErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, KIND[code], undefined, options);
  }
}
