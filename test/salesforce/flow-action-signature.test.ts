/**
 * The flow action's signature (connectors/salesforce/entry-points/action-signature.ts): what the head
 * alone refuses, what the body's signature refuses, and a request refused the second time it is sent.
 * The expected signatures are computed here step by step, as the Named Credential's formula does:
 * HEX(HMAC('SHA-256', BLOB('<timestamp>.<hex SHA-256 of the body>'), BLOB(secret))).
 */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  actionHeadRefusal,
  checkActionSignature,
  signAction,
} from '../../connectors/salesforce/entry-points/action-signature.js';
import { ReplayGuard } from '../../connectors/salesforce/entry-points/replay-guard.js';
import { EntryPointError, type EntryPointRequest } from '../../src/core/entry-point.js';

const SECRET = 'a'.repeat(16) + 'b'.repeat(16);
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const BODY = '{"organizationId":"00D5g000004SANDBOX","records":[{"type":"Contact","id":"0035g00000XyZ12AAB"}]}';

function formula(timestamp: string, body: string, secret: string): string {
  const digest = createHash('sha256').update(body, 'utf8').digest('hex');
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.from(`${timestamp}.${digest}`))
    .digest('hex');
}

function request(headers: Record<string, string | undefined>, body = BODY): EntryPointRequest {
  return {
    method: 'POST',
    url: 'https://x/salesforce/actions/enrich',
    headers,
    params: {},
    query: {},
    rawBody: Buffer.from(body),
  };
}

const signedHeaders = (timestamp: number, body = BODY, secret = SECRET) => ({
  'x-crm-enrich-timestamp': String(timestamp),
  'x-crm-enrich-signature': formula(String(timestamp), body, secret),
});

function refusalOf(fn: () => void): EntryPointError | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    if (error instanceof EntryPointError) return error;
    throw error;
  }
}

describe('the flow action signature', () => {
  const now = NOW / 1000;

  it('is the HMAC of the timestamp and the body digest, as the named credential computes it', () => {
    expect(signAction(SECRET, now, BODY)).toBe(formula(String(now), BODY, SECRET));
    expect(signAction(SECRET, now, BODY)).not.toBe(signAction(SECRET, now + 1, BODY));
  });

  it('accepts a fresh signed request once, and refuses the same request sent again', () => {
    const guard = new ReplayGuard();
    const req = request(signedHeaders(now));
    expect(refusalOf(() => checkActionSignature(req, SECRET, guard, NOW))).toBeUndefined();
    const again = refusalOf(() => checkActionSignature(req, SECRET, guard, NOW + 60_000));
    expect(again).toMatchObject({
      status: 401,
      code: 'invalid_signature',
      details: { field: 'X-Crm-Enrich-Signature' },
    });
    expect(again!.message).toMatch(/already used/);
  });

  it('accepts a signature in upper-case hex, as some formula engines write it', () => {
    const headers = signedHeaders(now);
    headers['x-crm-enrich-signature'] = headers['x-crm-enrich-signature'].toUpperCase();
    expect(refusalOf(() => checkActionSignature(request(headers), SECRET, new ReplayGuard(), NOW))).toBeUndefined();
  });

  it('refuses another secret, another body, another timestamp', () => {
    const guard = new ReplayGuard();
    const wrongSecret = request(signedHeaders(now, BODY, 'c'.repeat(32)));
    expect(refusalOf(() => checkActionSignature(wrongSecret, SECRET, guard, NOW))?.message).toMatch(/does not match/);
    const tampered = request(signedHeaders(now), BODY.replace('Contact', 'Lead'));
    expect(refusalOf(() => checkActionSignature(tampered, SECRET, guard, NOW))?.status).toBe(401);
    const moved = { ...signedHeaders(now), 'x-crm-enrich-timestamp': String(now + 1) };
    expect(refusalOf(() => checkActionSignature(request(moved), SECRET, guard, NOW))?.status).toBe(401);
  });

  it('refuses from the head a missing, malformed or stale timestamp and a missing signature', () => {
    const head = (headers: Record<string, string | undefined>) => actionHeadRefusal(request(headers), SECRET, NOW);
    const fresh = signedHeaders(now);
    expect(head(fresh)).toBeUndefined();
    expect(head({ ...fresh, 'x-crm-enrich-timestamp': undefined })).toMatchObject({
      status: 401,
      details: { field: 'X-Crm-Enrich-Timestamp' },
    });
    expect(head({ ...fresh, 'x-crm-enrich-timestamp': `${now}.5` })?.status).toBe(401);
    expect(head(signedHeaders(now - 301))?.message).toMatch(/more than 5 minutes/);
    expect(head(signedHeaders(now + 301))?.message).toMatch(/more than 5 minutes/);
    expect(head(signedHeaders(now - 299))).toBeUndefined();
    expect(head({ ...fresh, 'x-crm-enrich-signature': undefined })).toMatchObject({
      details: { field: 'X-Crm-Enrich-Signature' },
    });
    expect(head({ ...fresh, 'x-crm-enrich-signature': 'zz'.repeat(32) })?.status).toBe(401);
  });

  it('refuses everything, naming the variable, while SALESFORCE_ACTION_SECRET is unset', () => {
    const refusal = actionHeadRefusal(request(signedHeaders(now)), undefined, NOW);
    expect(refusal).toMatchObject({ status: 503, code: 'not_configured' });
    expect(refusal!.message).toContain('SALESFORCE_ACTION_SECRET');
  });

  it('forgets a signature once its window has passed', () => {
    const guard = new ReplayGuard();
    expect(guard.firstUse('k', NOW + 1000, NOW)).toBe(true);
    expect(guard.firstUse('k', NOW + 1000, NOW + 999)).toBe(false);
    expect(guard.firstUse('k', NOW + 5000, NOW + 1000)).toBe(true);
  });
});
