/**
 * Salesforce's error codes, sorted by what a caller should do about them. Kept in one table so the
 * retry behaviour of the whole connector can be read in one place.
 */
import { CrmError, type CrmErrorCode } from '../../src/core/connector.js';

/** Per-record codes where writing the same record again later may succeed. */
const RETRYABLE_RECORD_CODES = new Set([
  'UNABLE_TO_LOCK_ROW',
  'SERVER_UNAVAILABLE',
  'REQUEST_RUNNING_TOO_LONG',
  'QUERY_TIMEOUT',
]);

const REQUEST_CODES: Record<string, CrmErrorCode> = {
  INVALID_SESSION_ID: 'auth',
  INVALID_AUTH_HEADER: 'auth',
  INSUFFICIENT_ACCESS: 'auth',
  API_DISABLED_FOR_ORG: 'auth',
  REQUEST_LIMIT_EXCEEDED: 'daily_limit',
  NOT_FOUND: 'not_found',
  SERVER_UNAVAILABLE: 'unavailable',
  UNKNOWN_EXCEPTION: 'unavailable',
  REQUEST_RUNNING_TOO_LONG: 'unavailable',
  QUERY_TIMEOUT: 'unavailable',
  UNABLE_TO_LOCK_ROW: 'unavailable',
};

const NETWORK = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|socket hang up|fetch failed|network/i;

/** How long work waits after the concurrent-request limit (requests over 20 s, 25 at once per org). */
export const CONCURRENT_LIMIT_BACKOFF_MS = 5_000;

/** "ConcurrentPerOrgLongTxn Limit exceeded." or "ConcurrentRequests (Concurrent API Requests) Limit exceeded." */
export function isConcurrentLimit(message: string): boolean {
  return /Concurrent(PerOrgLongTxn|Requests)/i.test(message.slice(0, 500));
}

export function salesforceErrorCode(err: unknown): string | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as { errorCode?: unknown; name?: unknown };
  // SOAP faults (the Metadata API) name the code with its namespace: `sf:INVALID_SESSION_ID`.
  if (typeof e.errorCode === 'string') return e.errorCode.replace(/^[a-z]+:/i, '');
  return undefined;
}

export function isRetryableRecordError(code: string): boolean {
  return RETRYABLE_RECORD_CODES.has(code);
}

/** Wraps anything jsforce or the network threw into a CrmError whose code says what to do next. */
export function toCrmError(err: unknown, operation: string): CrmError {
  if (err instanceof CrmError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const sfCode = salesforceErrorCode(err);
  let code: CrmErrorCode;
  // One code, two limits: the message tells the concurrent long-running request limit (wait a moment)
  // from the 24-hour allocation (stop until it recovers).
  if (sfCode === 'REQUEST_LIMIT_EXCEEDED' && isConcurrentLimit(message)) code = 'rate_limited';
  else if (sfCode && REQUEST_CODES[sfCode]) code = REQUEST_CODES[sfCode];
  else if (sfCode && /^ERROR_HTTP_5\d\d$/.test(sfCode)) code = 'unavailable';
  else if (sfCode && /^ERROR_HTTP_429$/.test(sfCode)) code = 'rate_limited';
  else if (!sfCode && NETWORK.test(`${message} ${(err as { code?: string })?.code ?? ''}`)) code = 'unavailable';
  else code = sfCode ? 'validation' : 'unavailable';
  const hint =
    code === 'rate_limited' && sfCode === 'REQUEST_LIMIT_EXCEEDED'
      ? ' Too many long-running requests are open in the org at once; the work is tried again shortly.'
      : code === 'daily_limit'
        ? ' The org has spent its 24-hour API allocation; work resumes as the window frees calls.'
        : code === 'auth'
          ? " Check the Salesforce credentials and the integration user's permissions."
          : '';
  const fields = (err as { data?: { fields?: unknown } })?.data?.fields;
  const details = sfCode
    ? { errorCode: sfCode, ...(Array.isArray(fields) ? { fields: fields.map(String) } : {}) }
    : undefined;
  const retryAfterMs =
    code === 'rate_limited' && sfCode === 'REQUEST_LIMIT_EXCEEDED' ? CONCURRENT_LIMIT_BACKOFF_MS : undefined;
  return new CrmError(
    'salesforce',
    code,
    `Salesforce ${operation} failed: ${sfCode ? `${sfCode}: ` : ''}${message}.${hint}`,
    retryAfterMs,
    undefined,
    details,
  );
}
