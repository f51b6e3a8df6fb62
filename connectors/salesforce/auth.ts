/**
 * How the connector gets a session: a given access token (tests, short scripts), or a server-to-server
 * OAuth 2.0 flow (client credentials, JWT bearer) against `<loginUrl>/services/oauth2/token`, run again
 * whenever Salesforce says the session is no longer valid.
 */
import type { KeyObject } from 'node:crypto';
import { OAuth2 } from 'jsforce';
import { z } from 'zod';
import { CrmError } from '../../src/core/connector.js';
import { signJwtAssertion } from './jwt.js';

export type SalesforceAuth =
  | { kind: 'token'; instanceUrl: string; accessToken: string }
  | { kind: 'client_credentials'; loginUrl: string; clientId: string; clientSecret: string }
  | { kind: 'jwt'; loginUrl: string; clientId: string; username: string; privateKey: string | KeyObject };

export interface Session {
  accessToken: string;
  instanceUrl: string;
  /** From the identity URL in the token answer (`.../id/<orgId>/<userId>`). */
  orgId?: string;
}

const TokenAnswer = z.object({
  access_token: z.string().min(1),
  instance_url: z.url(),
  id: z.string().regex(/\/id\/[^/]+\/[^/]+$/, 'expected an identity URL ending in /id/<orgId>/<userId>'),
});

export function canRefresh(auth: SalesforceAuth): boolean {
  return auth.kind !== 'token';
}

/** Asks the token endpoint for a new session; a refusal is a CrmError 'auth' that says what to check. */
export async function requestSession(auth: SalesforceAuth): Promise<Session> {
  if (auth.kind === 'token') return { accessToken: auth.accessToken, instanceUrl: auth.instanceUrl };
  let answer: unknown;
  try {
    if (auth.kind === 'client_credentials') {
      const oauth = new OAuth2({ loginUrl: auth.loginUrl, clientId: auth.clientId, clientSecret: auth.clientSecret });
      answer = await oauth.requestToken({ grant_type: 'client_credentials' });
    } else {
      const oauth = new OAuth2({ loginUrl: auth.loginUrl, clientId: auth.clientId });
      const assertion = signJwtAssertion(
        { iss: auth.clientId, sub: auth.username, aud: auth.loginUrl },
        auth.privateKey,
      );
      answer = await oauth.requestToken({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion });
    }
  } catch (err) {
    const name = err instanceof Error ? err.name : 'error';
    const hint =
      auth.kind === 'jwt'
        ? 'Check SALESFORCE_CLIENT_ID, SALESFORCE_USERNAME, the private key and that the connected app has ' +
          'the matching certificate and is pre-authorised for the user.'
        : 'Check SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET and that the connected app enables the ' +
          'client credentials flow with a run-as user.';
    throw new CrmError(
      'salesforce',
      'auth',
      `Salesforce refused the ${auth.kind} token request (${name}: ${(err as Error).message}). ${hint}`,
    );
  }
  const parsed = TokenAnswer.safeParse(answer);
  if (!parsed.success) {
    throw new CrmError(
      'salesforce',
      'auth',
      "Salesforce's token answer is not usable: " +
        `${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  const [orgId] = parsed.data.id.split('/').slice(-2);
  return { accessToken: parsed.data.access_token, instanceUrl: parsed.data.instance_url.replace(/\/$/, ''), orgId };
}
