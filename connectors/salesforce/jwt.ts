/**
 * The JWT bearer assertion Salesforce's OAuth 2.0 JWT flow expects: RS256 over
 * `{iss: client id, sub: username, aud: login URL, exp}`, signed with the connected app's private key.
 */
import { createSign, createVerify, type KeyLike } from 'node:crypto';

const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

export interface JwtClaims {
  iss: string;
  sub: string;
  aud: string;
  exp: number;
}

export function signJwtAssertion(claims: Omit<JwtClaims, 'exp'>, privateKey: KeyLike, now = Date.now()): string {
  // Salesforce refuses assertions that expire more than three minutes ahead.
  const body: JwtClaims = { ...claims, exp: Math.floor(now / 1000) + 180 };
  const signingInput = `${b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }))}.${b64url(JSON.stringify(body))}`;
  const signature = createSign('RSA-SHA256').update(signingInput).sign(privateKey);
  return `${signingInput}.${b64url(signature)}`;
}

/** The claims of a correctly signed RS256 assertion, or the reason it is refused. */
export function verifyJwtAssertion(
  token: string,
  publicKey: KeyLike,
): { ok: true; claims: JwtClaims } | { ok: false; reason: string } {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'invalid assertion' };
  const [header, payload, signature] = parts as [string, string, string];
  try {
    const head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string };
    if (head.alg !== 'RS256') return { ok: false, reason: 'invalid assertion' };
    const valid = createVerify('RSA-SHA256')
      .update(`${header}.${payload}`)
      .verify(publicKey, Buffer.from(signature, 'base64url'));
    if (!valid) return { ok: false, reason: 'invalid assertion' };
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<JwtClaims>;
    if (
      typeof claims.iss !== 'string' ||
      typeof claims.sub !== 'string' ||
      typeof claims.aud !== 'string' ||
      typeof claims.exp !== 'number'
    ) {
      return { ok: false, reason: 'invalid assertion' };
    }
    return { ok: true, claims: claims as JwtClaims };
  } catch {
    return { ok: false, reason: 'invalid assertion' };
  }
}
