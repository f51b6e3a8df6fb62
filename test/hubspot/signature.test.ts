import { describe, expect, it } from 'vitest';
import { createHubspotWebhookHandler } from '../../connectors/hubspot/webhook.js';
import { signV3, verifyHubspotSignature } from '../../connectors/hubspot/signature.js';

/*
 * Known vectors computed outside the code under test, with OpenSSL:
 *   printf '%s' 'POST<url><body><timestamp>' | openssl dgst -sha256 -hmac 'test-client-secret' -binary | base64
 * and for v2:  printf '%s' 'test-client-secretPOST<url><body>' | openssl dgst -sha256
 */
const SECRET = 'test-client-secret';
const URL_CALLED = 'https://enrich.example.com/webhooks/hubspot?portal=62515';
const TIMESTAMP = '1564113600000';
const BODY =
  '[{"eventId":1,"subscriptionId":12345,"portalId":62515,"occurredAt":1564113600000,' +
  '"subscriptionType":"contact.creation","attemptNumber":0,"objectId":123,' +
  '"changeSource":"CRM","changeFlag":"NEW","appId":54321}]';
const OPENSSL_V3 = 'ykC9QNGI+tBSMgQbG/CZRb03yW8my/B4R3pFqn/pC7w=';
const OPENSSL_V3_ESCAPED_URL = 'p7tzAxZ48mYdTC90IpMEb3wuahbW5QDqswH7QI9k6Is=';
const OPENSSL_V2 = 'ccd1dfa0c0d2b3680c9674b29fad6543fca43a64e1ddea361c3454e0e438001e';

const atSigningTime = () => Number(TIMESTAMP) + 1_000;

function request(overrides: { body?: string; url?: string; signature?: string; timestamp?: string } = {}) {
  return {
    method: 'POST',
    url: overrides.url ?? URL_CALLED,
    rawBody: Buffer.from(overrides.body ?? BODY),
    headers: {
      'content-type': 'application/json',
      'x-hubspot-signature-v3': overrides.signature ?? OPENSSL_V3,
      'x-hubspot-request-timestamp': overrides.timestamp ?? TIMESTAMP,
    },
  };
}

const handler = createHubspotWebhookHandler({ clientSecret: SECRET, now: atSigningTime });

describe('HubSpot v3 signatures', () => {
  it('matches the OpenSSL vector', () => {
    expect(signV3(SECRET, 'POST', URL_CALLED, BODY, TIMESTAMP)).toBe(OPENSSL_V3);
  });

  it('accepts a validly signed delivery and parses it', () => {
    const result = handler.parse(request());
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.events.map((e) => [e.kind, e.recordId])).toEqual([['created', '123']]);
  });

  it('decodes the listed escapes in the URL before checking', () => {
    const check = verifyHubspotSignature(
      {
        method: 'POST',
        url: 'https://enrich.example.com/hooks/a%3Ab%40c',
        rawBody: Buffer.from('[]'),
        header: (n) =>
          ({ 'x-hubspot-signature-v3': OPENSSL_V3_ESCAPED_URL, 'x-hubspot-request-timestamp': TIMESTAMP })[n],
      },
      { clientSecret: SECRET, now: atSigningTime },
    );
    expect(check).toEqual({ ok: true, version: 'v3' });
  });

  it.each([
    ['a tampered body', request({ body: BODY.replace('"objectId":123', '"objectId":124') })],
    ['a URL that is not the one signed', request({ url: 'https://enrich.example.com/webhooks/hubspot?portal=1' })],
    [
      'a signature from another secret',
      request({ signature: signV3('other-secret', 'POST', URL_CALLED, BODY, TIMESTAMP) }),
    ],
    ['a truncated signature', request({ signature: OPENSSL_V3.slice(0, 20) })],
  ])('rejects %s with 401 and no events', (_what, req) => {
    const result = handler.parse(req);
    expect(result.ok).toBe(false);
    if (!result.ok) expect([result.error.status, result.error.code]).toEqual([401, 'invalid_signature']);
  });

  it('rejects a timestamp older than 5 minutes even with a correct signature', () => {
    const late = createHubspotWebhookHandler({ clientSecret: SECRET, now: () => Number(TIMESTAMP) + 5 * 60_000 + 1 });
    const result = late.parse(request());
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toMatch(/older than 5 minutes/);
  });

  it('rejects a timestamp far in the future and a missing timestamp', () => {
    const early = createHubspotWebhookHandler({ clientSecret: SECRET, now: () => Number(TIMESTAMP) - 10 * 60_000 });
    expect(early.parse(request()).ok).toBe(false);
    const req = request();
    delete (req.headers as Record<string, string | undefined>)['x-hubspot-request-timestamp'];
    expect(handler.parse(req).ok).toBe(false);
  });

  it('takes the scheme and host from the configured public URL', () => {
    const proxied = createHubspotWebhookHandler({
      clientSecret: SECRET,
      now: atSigningTime,
      publicUrl: 'https://enrich.example.com',
    });
    expect(proxied.parse(request({ url: 'http://10.0.0.7:3000/webhooks/hubspot?portal=62515' })).ok).toBe(true);
  });
});

describe('HubSpot v1/v2 signatures (workflow webhook actions)', () => {
  const v2Request = {
    method: 'POST',
    url: 'https://enrich.example.com/workflow',
    rawBody: Buffer.from('[{"a":1}]'),
    headers: { 'x-hubspot-signature': OPENSSL_V2, 'x-hubspot-signature-version': 'v2' },
  };

  it('are refused unless configured', () => {
    const result = handler.parse(v2Request);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.status).toBe(401);
  });

  it('v2 matches the OpenSSL vector when configured, and a wrong one is refused', () => {
    const check = (headers: Record<string, string>) =>
      verifyHubspotSignature(
        { ...v2Request, header: (n) => headers[n] },
        { clientSecret: SECRET, legacy: ['v1', 'v2'] },
      );
    expect(check(v2Request.headers)).toEqual({ ok: true, version: 'v2' });
    expect(check({ ...v2Request.headers, 'x-hubspot-signature': OPENSSL_V2.replace('c', 'd') }).ok).toBe(false);
  });
});

describe('HubSpot signatures where only v2 is accepted besides v3 (custom workflow actions)', () => {
  const v2Only = { clientSecret: SECRET, legacy: ['v2'] as const, now: atSigningTime };
  const verify = (headers: Record<string, string>) =>
    verifyHubspotSignature(
      {
        method: 'POST',
        url: 'https://enrich.example.com/workflow',
        rawBody: Buffer.from('[{"a":1}]'),
        header: (n) => headers[n],
      },
      v2Only,
    );

  it('accepts the v2 vector alone', () => {
    expect(verify({ 'x-hubspot-signature': OPENSSL_V2, 'x-hubspot-signature-version': 'v2' })).toEqual({
      ok: true,
      version: 'v2',
    });
  });

  it('refuses v1, naming the versions that are accepted', () => {
    const check = verify({ 'x-hubspot-signature': OPENSSL_V2 });
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toBe('v1 signatures are not accepted here (v3 or v2 are)');
  });

  it('checks v3 when it is sent beside v2: a stale v3 is refused even with a valid v2', () => {
    const check = verify({
      'x-hubspot-signature': OPENSSL_V2,
      'x-hubspot-signature-version': 'v2',
      'x-hubspot-signature-v3': OPENSSL_V3,
      'x-hubspot-request-timestamp': String(atSigningTime() - 6 * 60_000),
    });
    expect(check).toEqual({ ok: false, reason: 'the request timestamp is older than 5 minutes' });
  });

  it('says which headers are missing when there is no signature at all', () => {
    const check = verify({});
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toContain('X-HubSpot-Signature-v3 or X-HubSpot-Signature');
  });
});
