/**
 * How the Salesforce flow action proves it comes from the org: a timestamped HMAC-SHA256 keyed with
 * SALESFORCE_ACTION_SECRET, a secret of its own that only the External Credential CrmEnrich holds
 * (never the outbound messages' URL secret). The Apex action sends
 *
 * - `X-Crm-Enrich-Timestamp`: the Unix time in seconds when it sent the request, and
 * - `X-Crm-Enrich-Signature`: lower-case hex of HMAC-SHA256(secret, `<timestamp>.<sha256 hex of the body>`).
 *
 * The body is signed through its digest because the signature is computed by the Named Credential's
 * header formula (HMAC over a string literal; Apex itself can never read the secret), and a formula
 * holds at most 3,900 characters while a body of 200 records is about 9 KB. A timestamp more than five
 * minutes away is refused from the head, and a signature already accepted is refused for as long as its
 * timestamp is fresh (ReplayGuard), so a request seen once cannot be sent again.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { EntryPointError, type EntryPointHead, type EntryPointRequest } from '../../../src/core/entry-point.js';
import type { ReplayGuard } from './replay-guard.js';

export const ACTION_TIMESTAMP_HEADER = 'x-crm-enrich-timestamp';
export const ACTION_SIGNATURE_HEADER = 'x-crm-enrich-signature';
/** How far a request's timestamp may be from this server's clock, either way. */
export const ACTION_WINDOW_SECONDS = 300;

/** The signature the action sends for `body` at `timestamp` (Unix seconds). */
export function signAction(secret: string, timestamp: number | string, body: Buffer | string): string {
  const digest = createHash('sha256').update(body).digest('hex');
  return createHmac('sha256', secret).update(`${timestamp}.${digest}`).digest('hex');
}

const notConfigured = () =>
  new EntryPointError(
    503,
    'not_configured',
    'SALESFORCE_ACTION_SECRET is not set; set it, and give the same value to the External Credential CrmEnrich.',
  );

const rejected = (field: string, reason: string) =>
  new EntryPointError(
    401,
    'invalid_signature',
    `${field}: ${reason}; the flow action signs with SALESFORCE_ACTION_SECRET through the Named Credential CrmEnrich.`,
    { field },
  );

/** The refusal the headers alone decide: no secret configured, a signature or timestamp missing or stale. */
export function actionHeadRefusal(
  head: EntryPointHead,
  secret: string | undefined,
  nowMs = Date.now(),
): EntryPointError | undefined {
  if (!secret) return notConfigured();
  const timestamp = head.headers[ACTION_TIMESTAMP_HEADER];
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp))
    return rejected('X-Crm-Enrich-Timestamp', 'missing, or not a Unix time in seconds');
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > ACTION_WINDOW_SECONDS)
    return rejected('X-Crm-Enrich-Timestamp', `more than ${ACTION_WINDOW_SECONDS / 60} minutes from now`);
  if (!/^[0-9a-fA-F]{64}$/.test(head.headers[ACTION_SIGNATURE_HEADER] ?? ''))
    return rejected('X-Crm-Enrich-Signature', 'missing, or not 64 hexadecimal digits');
  return undefined;
}

/**
 * Throws the refusal (401) of a request not signed with the secret over its timestamp and body, or one
 * whose signature was already accepted; otherwise remembers the signature for the window.
 */
export function checkActionSignature(
  request: EntryPointRequest,
  secret: string | undefined,
  seen: ReplayGuard,
  nowMs = Date.now(),
): void {
  const refusal = actionHeadRefusal(request, secret, nowMs);
  if (refusal) throw refusal;
  const timestamp = request.headers[ACTION_TIMESTAMP_HEADER]!;
  const given = Buffer.from(request.headers[ACTION_SIGNATURE_HEADER]!.toLowerCase(), 'hex');
  const expected = Buffer.from(signAction(secret!, timestamp, request.rawBody), 'hex');
  if (!timingSafeEqual(given, expected))
    throw rejected('X-Crm-Enrich-Signature', 'does not match the body and timestamp');
  const expiresAtMs = (Number(timestamp) + ACTION_WINDOW_SECONDS) * 1000;
  if (!seen.firstUse(expected.toString('hex'), expiresAtMs, nowMs))
    throw rejected('X-Crm-Enrich-Signature', 'already used: each request is signed anew');
}
