/**
 * HubSpot request signatures. v3 (HMAC over method, URI, body and a timestamp) is sent with app webhooks,
 * card fetches and, where HubSpot adds it, custom workflow actions. The older ones are weaker (no
 * timestamp, plain SHA-256) and are accepted only where the caller names them: v2 (client secret,
 * method, URI, body) is what HubSpot's custom workflow action guide says action requests carry; v1
 * (client secret, body) is what it sends with legacy webhook subscriptions.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const MAX_SIGNATURE_AGE_MS = 5 * 60_000;

/** The escapes HubSpot decodes in the URI before signing (it signs the URL as it was called, these characters raw). */
const DECODED_ESCAPES: Record<string, string> = {
  '%3A': ':',
  '%2F': '/',
  '%3F': '?',
  '%40': '@',
  '%21': '!',
  '%24': '$',
  '%27': "'",
  '%28': '(',
  '%29': ')',
  '%2A': '*',
  '%2C': ',',
  '%3B': ';',
};

export function decodeSignedUri(uri: string): string {
  return uri.replace(/%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi, (m) => DECODED_ESCAPES[m.toUpperCase()] ?? m);
}

export function signV3(
  clientSecret: string,
  method: string,
  uri: string,
  body: Buffer | string,
  timestamp: string,
): string {
  return createHmac('sha256', clientSecret)
    .update(method.toUpperCase() + decodeSignedUri(uri))
    .update(body)
    .update(timestamp)
    .digest('base64');
}

export function signV2(clientSecret: string, method: string, uri: string, body: Buffer | string): string {
  return createHash('sha256')
    .update(clientSecret + method.toUpperCase() + uri)
    .update(body)
    .digest('hex');
}

export function signV1(clientSecret: string, body: Buffer | string): string {
  return createHash('sha256').update(clientSecret).update(body).digest('hex');
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  // timingSafeEqual needs equal lengths; comparing against itself keeps the time independent of where they differ.
  return x.length === y.length ? timingSafeEqual(x, y) : (timingSafeEqual(x, x), false);
}

export interface SignedRequest {
  method: string;
  url: string;
  rawBody: Buffer;
  header(name: string): string | undefined;
}

export type SignatureCheck = { ok: true; version: 'v1' | 'v2' | 'v3' } | { ok: false; reason: string };

/** The signatures without a timestamp, in X-HubSpot-Signature as X-HubSpot-Signature-Version names it. */
export type LegacySignatureVersion = 'v1' | 'v2';

export interface SignatureOptions {
  clientSecret: string;
  /**
   * The versions accepted in X-HubSpot-Signature when no X-HubSpot-Signature-v3 is sent (none by
   * default). A v3 signature, when present, is always the one checked.
   */
  legacy?: readonly LegacySignatureVersion[];
  now?: () => number;
}

/** How a refusal of a version not accepted here reads: what HubSpot sends that would be. */
function notAccepted(version: string, legacy: readonly LegacySignatureVersion[]): string {
  const accepted = ['v3', ...legacy].join(' or ');
  return legacy.length === 0
    ? `${version} signatures are not accepted here (only X-HubSpot-Signature-v3 with its timestamp); ` +
        'subscribe the app webhook (v3) or enable legacy signatures'
    : `${version} signatures are not accepted here (${accepted} are)`;
}

/**
 * The part of the check the headers alone decide, so a request that cannot pass is refused before its
 * body is read: a signature header of an accepted version and, for v3, a timestamp within 5 minutes.
 */
export function checkSignatureHeaders(
  header: (name: string) => string | undefined,
  options: SignatureOptions,
): SignatureCheck | undefined {
  if (header('x-hubspot-signature-v3') !== undefined) {
    const timestamp = header('x-hubspot-request-timestamp');
    if (timestamp === undefined || !/^\d+$/.test(timestamp)) {
      return { ok: false, reason: 'X-HubSpot-Request-Timestamp is missing or not epoch milliseconds' };
    }
    const age = (options.now ?? Date.now)() - Number(timestamp);
    if (age > MAX_SIGNATURE_AGE_MS) return { ok: false, reason: 'the request timestamp is older than 5 minutes' };
    if (age < -MAX_SIGNATURE_AGE_MS)
      return { ok: false, reason: 'the request timestamp is more than 5 minutes in the future' };
    return undefined;
  }
  const legacy = options.legacy ?? [];
  if (header('x-hubspot-signature') === undefined) {
    const expected = legacy.length ? 'X-HubSpot-Signature-v3 or X-HubSpot-Signature' : 'X-HubSpot-Signature-v3';
    return { ok: false, reason: `the request carries no ${expected} header` };
  }
  // HubSpot's v1 requests may leave the version header out.
  const version = (header('x-hubspot-signature-version') ?? 'v1').toLowerCase();
  if (version !== 'v1' && version !== 'v2') return { ok: false, reason: `unknown signature version ${version}` };
  if (!legacy.includes(version)) return { ok: false, reason: notAccepted(version, legacy) };
  return undefined;
}

export function verifyHubspotSignature(req: SignedRequest, options: SignatureOptions): SignatureCheck {
  const refused = checkSignatureHeaders((name) => req.header(name), options);
  if (refused) return refused;
  const v3 = req.header('x-hubspot-signature-v3');
  if (v3 !== undefined) {
    const timestamp = req.header('x-hubspot-request-timestamp')!;
    const expected = signV3(options.clientSecret, req.method, req.url, req.rawBody, timestamp);
    return sameText(expected, v3)
      ? { ok: true, version: 'v3' }
      : { ok: false, reason: 'the v3 signature does not match' };
  }
  const legacy = req.header('x-hubspot-signature')!;
  if ((req.header('x-hubspot-signature-version') ?? 'v1').toLowerCase() === 'v2') {
    const expected = signV2(options.clientSecret, req.method, req.url, req.rawBody);
    return sameText(expected, legacy.toLowerCase())
      ? { ok: true, version: 'v2' }
      : { ok: false, reason: 'the v2 signature does not match' };
  }
  const expected = signV1(options.clientSecret, req.rawBody);
  return sameText(expected, legacy.toLowerCase())
    ? { ok: true, version: 'v1' }
    : { ok: false, reason: 'the v1 signature does not match' };
}
