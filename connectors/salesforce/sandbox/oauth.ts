/**
 * The sandbox's OAuth 2.0 token endpoint and session check. Client credentials are checked against the
 * configured client; JWT bearer assertions against a public key (by default the sandbox's own test
 * key pair, whose private half tests use to sign).
 */
import { createHmac, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { verifyJwtAssertion } from '../jwt.js';

let testKeys: { privateKey: KeyObject; publicKey: KeyObject } | undefined;

/** A key pair made once per process, so no private key ever sits in the repository. */
export function sandboxJwtKeyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
  testKeys ??= generateKeyPairSync('rsa', { modulusLength: 2048 });
  return testKeys;
}

export interface OAuthOptions {
  clientId: string;
  clientSecret: string;
  jwtPublicKey?: KeyObject | string;
  orgId: string;
  userId: string;
}

export type TokenAnswer = { status: number; body: Record<string, string> };

export class SandboxOAuth {
  private readonly valid = new Set<string>();
  issued = 0;

  constructor(private readonly options: OAuthOptions) {}

  issueToken(): string {
    const token = `${this.options.orgId}!${randomBytes(24).toString('base64url')}`;
    this.valid.add(token);
    this.issued += 1;
    return token;
  }

  isValid(bearer: string | undefined): boolean {
    return bearer !== undefined && this.valid.has(bearer);
  }

  /** Every token issued so far stops working, as when a session times out or an admin revokes it. */
  expireTokens(): void {
    this.valid.clear();
  }

  /** Answers `POST /services/oauth2/token` for a form body. */
  token(form: Record<string, string | undefined>, instanceUrl: string): TokenAnswer {
    const grant = form.grant_type;
    if (grant === 'client_credentials') {
      if (form.client_id !== this.options.clientId || form.client_secret !== this.options.clientSecret) {
        return { status: 400, body: { error: 'invalid_client', error_description: 'invalid client credentials' } };
      }
    } else if (grant === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      const refusal = this.checkAssertion(form.assertion, instanceUrl);
      if (refusal) return { status: 400, body: { error: 'invalid_grant', error_description: refusal } };
    } else {
      return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'grant type not supported' } };
    }
    const issuedAt = String(Date.now());
    const id = `${instanceUrl}/id/${this.options.orgId}/${this.options.userId}`;
    return {
      status: 200,
      body: {
        access_token: this.issueToken(),
        instance_url: instanceUrl,
        id,
        token_type: 'Bearer',
        issued_at: issuedAt,
        scope: 'api',
        signature: createHmac('sha256', this.options.clientSecret)
          .update(id + issuedAt)
          .digest('base64'),
      },
    };
  }

  private checkAssertion(assertion: string | undefined, instanceUrl: string): string | undefined {
    if (!assertion) return 'assertion is required';
    const verified = verifyJwtAssertion(assertion, this.options.jwtPublicKey ?? sandboxJwtKeyPair().publicKey);
    if (!verified.ok) return verified.reason;
    if (verified.claims.iss !== this.options.clientId) return 'invalid client_id';
    // Salesforce wants its login host (or the org's own URL) as the audience.
    if (
      ![instanceUrl, 'https://login.salesforce.com', 'https://test.salesforce.com'].includes(
        verified.claims.aud.replace(/\/$/, ''),
      )
    ) {
      return 'audience is invalid';
    }
    if (verified.claims.exp * 1000 < Date.now()) return 'expired authorization code';
    if (verified.claims.exp * 1000 > Date.now() + 5 * 60_000) return 'invalid assertion';
    return undefined;
  }
}
