/**
 * HubSpot's v3 signature on the requests of the entry points (workflow action, record card): over the
 * method, the URL as HubSpot called it (PUBLIC_URL and the path with its query), the body and the
 * timestamp, keyed with the app's client secret. The webhooks' own check (../signature.ts); v1 and v2
 * signatures are not accepted here.
 */
import { EntryPointError, type EntryPointHead, type EntryPointRequest } from '../../../src/core/entry-point.js';
import { checkSignatureHeaders, verifyHubspotSignature } from '../signature.js';

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

/** The refusal (401) the headers alone decide: no client secret, no v3 signature, a stale timestamp. */
export function signatureHeadRefusal(
  head: EntryPointHead,
  clientSecret: string | undefined,
): EntryPointError | undefined {
  if (!clientSecret) return notConfigured();
  const check = checkSignatureHeaders((name) => head.headers[name], { clientSecret });
  return check && !check.ok ? rejected(check.reason) : undefined;
}

/** Throws the refusal (401) of a request HubSpot did not sign with the app's client secret. */
export function checkSignature(request: EntryPointRequest, clientSecret: string | undefined): void {
  if (!clientSecret) throw notConfigured();
  const check = verifyHubspotSignature(
    {
      method: request.method,
      url: request.url,
      rawBody: request.rawBody,
      header: (name) => request.headers[name.toLowerCase()],
    },
    { clientSecret },
  );
  if (!check.ok) throw rejected(check.reason);
}
