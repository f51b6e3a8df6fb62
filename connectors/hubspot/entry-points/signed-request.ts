/**
 * HubSpot's signature on the requests of the entry points (workflow action, record card), keyed with
 * the app's client secret over the URL as HubSpot called it (PUBLIC_URL and the path with its query).
 * v3 (method, URL, body, timestamp within 5 minutes) is checked whenever it is sent; an entry point may
 * also accept v2 (no timestamp), which HubSpot's custom workflow action guide says action requests
 * carry. The webhooks' own check (../signature.ts).
 */
import { EntryPointError, type EntryPointHead, type EntryPointRequest } from '../../../src/core/entry-point.js';
import { checkSignatureHeaders, verifyHubspotSignature, type LegacySignatureVersion } from '../signature.js';

const notConfigured = () =>
  new EntryPointError(
    401,
    'not_configured',
    "HubSpot requests cannot be verified: set HUBSPOT_CLIENT_SECRET to the app's client secret.",
  );

const rejected = (reason: string) =>
  new EntryPointError(
    401,
    'invalid_signature',
    `HubSpot signature rejected: ${reason}. Check HUBSPOT_CLIENT_SECRET and PUBLIC_URL.`,
  );

/**
 * The refusal (401) the headers alone decide: no client secret, no signature of an accepted version,
 * a stale v3 timestamp. `legacy`: the versions without a timestamp accepted when no v3 is sent.
 */
export function signatureHeadRefusal(
  head: EntryPointHead,
  clientSecret: string | undefined,
  legacy: readonly LegacySignatureVersion[] = [],
): EntryPointError | undefined {
  if (!clientSecret) return notConfigured();
  const check = checkSignatureHeaders((name) => head.headers[name], { clientSecret, legacy });
  return check && !check.ok ? rejected(check.reason) : undefined;
}

/** Throws the refusal (401) of a request HubSpot did not sign with the app's client secret. */
export function checkSignature(
  request: EntryPointRequest,
  clientSecret: string | undefined,
  legacy: readonly LegacySignatureVersion[] = [],
): void {
  if (!clientSecret) throw notConfigured();
  const check = verifyHubspotSignature(
    {
      method: request.method,
      url: request.url,
      rawBody: request.rawBody,
      header: (name) => request.headers[name.toLowerCase()],
    },
    { clientSecret, legacy },
  );
  if (!check.ok) throw rejected(check.reason);
}
