/** How an error settles a job: its code and message, and whether another attempt can succeed. */
import { AppError } from '../../core/errors.js';
import { scrubValues } from '../../core/scrub.js';
import type { JobFailure } from '../ports.js';

/** The stored failure: its message with the values a CRM or the partner quoted taken out (see scrubValues). */
export function failureOf(error: unknown): JobFailure {
  if (isFailure(error)) return { ...error, message: scrubValues(error.message) };
  if (error instanceof AppError)
    return { code: error.code, message: scrubValues(error.message), retryable: error.kind !== 'permanent' };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'unexpected', message: scrubValues(message), retryable: true };
}

function isFailure(value: unknown): value is JobFailure {
  return (
    typeof value === 'object' && value !== null && 'retryable' in value && 'code' in value && !(value instanceof Error)
  );
}
