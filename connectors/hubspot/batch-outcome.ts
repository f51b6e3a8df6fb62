/**
 * Reads a batch update answer (200 or 207) record by record: a result means written, an error naming
 * the record's id means that record failed, and a record the answer does not mention is reported as
 * retryable rather than assumed written.
 */
import type { WriteResult } from '../../src/core/connector.js';

interface BatchError {
  category?: string;
  message?: string;
  context?: Record<string, string[] | undefined>;
  errors?: { message?: string; code?: string; context?: Record<string, string[] | undefined> }[];
}

const RETRYABLE_CATEGORIES = new Set(['RATE_LIMITS', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE', 'TIMEOUT', 'LOCKED']);

function errorCode(category: string | undefined): string {
  if (category === 'OBJECT_NOT_FOUND') return 'not_found';
  if (category === 'VALIDATION_ERROR') return 'validation';
  if (category === 'CONFLICT') return 'conflict';
  return (category ?? 'error').toLowerCase();
}

/**
 * Property names an error body names, from `context.propertyName` or HubSpot's "Property values were not valid" JSON.
 */
export function propertyNamesIn(error: BatchError): string[] {
  const names = new Set<string>(error.context?.propertyName ?? []);
  for (const detail of error.errors ?? []) for (const n of detail.context?.propertyName ?? []) names.add(n);
  const json = error.message?.match(/Property values were not valid: (\[.*\])$/s)?.[1];
  if (json) {
    try {
      for (const item of JSON.parse(json) as { name?: string }[]) if (item.name) names.add(item.name);
    } catch {
      // A message that is not the JSON form names no properties.
    }
  }
  return [...names];
}

const REQUIRED = /required/i;

/**
 * The portal's required properties an error body says a write left empty (HubSpot enforces them on
 * API writes from version 2026-09, as a 400 VALIDATION_ERROR), or none when the refusal is another.
 * Read from the details' codes and messages and from the "Property values were not valid" JSON.
 */
export function requiredPropertiesIn(error: BatchError): string[] {
  if (error.category !== undefined && error.category !== 'VALIDATION_ERROR') return [];
  const names = new Set<string>();
  for (const detail of error.errors ?? []) {
    if (REQUIRED.test(detail.code ?? '') || REQUIRED.test(detail.message ?? ''))
      for (const n of detail.context?.propertyName ?? []) names.add(n);
  }
  const json = error.message?.match(/Property values were not valid: (\[.*\])$/s)?.[1];
  if (json) {
    try {
      for (const item of JSON.parse(json) as { name?: string; error?: string; message?: string }[]) {
        if (item.name && (REQUIRED.test(item.error ?? '') || REQUIRED.test(item.message ?? ''))) names.add(item.name);
      }
    } catch {
      // A message that is not the JSON form names no properties.
    }
  }
  if (names.size === 0 && REQUIRED.test(error.message ?? '')) for (const n of propertyNamesIn(error)) names.add(n);
  return [...names];
}

/** What to tell a person when a write left required properties empty: which, and what to do. */
export function requiredPropertiesMessage(names: string[], operation: string): string {
  const list = names.join(', ');
  const them = names.length === 1 ? 'it' : 'them';
  return (
    `HubSpot refused ${operation}: this portal requires ${list} on every create and update ` +
    `(enforced on API writes from API version 2026-09), and the write left ${them} empty. ` +
    `Fill ${them} through the mapping, or ask the portal's admin to stop requiring ${them}.`
  );
}

export function batchOutcome(ids: string[], results: { id: string }[], errors: BatchError[]): Map<string, WriteResult> {
  const outcome = new Map<string, WriteResult>();
  for (const r of results) outcome.set(String(r.id), { id: String(r.id), ok: true });
  for (const e of errors) {
    const fields = propertyNamesIn(e);
    const required = requiredPropertiesIn(e);
    for (const id of e.context?.ids ?? []) {
      outcome.set(id, {
        id,
        ok: false,
        error: {
          code: errorCode(e.category),
          message:
            required.length > 0
              ? requiredPropertiesMessage(required, 'the write')
              : (e.message ?? 'HubSpot refused this record'),
          retryable: RETRYABLE_CATEGORIES.has(e.category ?? ''),
          ...(fields.length > 0 ? { fields } : {}),
        },
      });
    }
  }
  for (const id of ids) {
    if (!outcome.has(id)) {
      outcome.set(id, {
        id,
        ok: false,
        error: {
          code: 'no_result',
          message: 'HubSpot did not report this record in its batch answer; write it again.',
          retryable: true,
        },
      });
    }
  }
  return outcome;
}
