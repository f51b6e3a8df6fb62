/**
 * The answer of a batch endpoint as HubSpot describes it: `status`, `results`, the errors of the inputs
 * that failed (each a full standard error: `status`, `category`, `message`, `context`, `errors`, `links`)
 * with `numErrors`, and the times. The legacy versions answer a partial batch 207 (multi-status); the
 * date-based descriptions list no 207, only the success status with the errors in the body.
 */
import { isDateBased, type HubspotApiVersion } from '../api-version.js';
import type { ErrorDetail } from './wire-errors.js';

export interface StandardError {
  status: 'error';
  category: string;
  message: string;
  context: Record<string, string[]>;
  errors: ErrorDetail[];
  links: Record<string, string>;
}

export function standardError(category: string, message: string, context: Record<string, string[]>): StandardError {
  return { status: 'error', category, message, context, errors: [], links: {} };
}

export function batchBody(results: unknown[], errors: StandardError[], startedAt = new Date().toISOString()) {
  return {
    status: 'COMPLETE',
    results,
    ...(errors.length > 0 ? { numErrors: errors.length, errors } : {}),
    startedAt,
    completedAt: new Date().toISOString(),
  };
}

/** The status of a batch answer: `ok` when every input went through, else 207 where the version has it. */
export function batchStatus(version: HubspotApiVersion, ok: number, errors: readonly unknown[]): number {
  return errors.length > 0 && !isDateBased(version) ? 207 : ok;
}
