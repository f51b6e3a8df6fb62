/**
 * The authorization endpoint. It follows the SDK's handler (which it replaces) in what it checks, and
 * differs in where the answer goes:
 * - until the client and its redirect URI are verified (unknown client, a metadata document that cannot
 *   be used, a redirect URI it did not register), the answer is an error page of this service, never a
 *   redirect (RFC 6749 4.1.2.1, RFC 9700 4.11.2);
 * - after that, an error (no PKCE, `plain`, an unknown scope or resource) goes back to the client by
 *   redirect only when its redirect URI is trusted (see McpOAuthProvider.redirectTrusted); otherwise it
 *   is shown on the page too, so nobody can register a client and use this origin to bounce a browser
 *   anywhere without an admin ever having looked at it;
 * - every redirect carries `iss` (RFC 9207).
 */
import express, { Router, type Request, type Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import { redirectUriMatches } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import {
  InvalidClientError,
  InvalidRequestError,
  OAuthError,
  ServerError,
  TooManyRequestsError,
  UnsupportedResponseTypeError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { logger } from '../logger.js';
import { authorizationResponseUrl } from './authorization-response.js';
import { renderMessage } from './consent-page.js';
import type { McpOAuthProvider } from './oauth-provider.js';

const log = logger('mcp.authorize');

/** Generous for any client's state (often a signed value); a longer one is not echoed anywhere. */
const MAX_STATE_LENGTH = 1000;
/** BASE64URL(SHA-256(verifier)) is always 43 characters (RFC 7636 4.2). */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function authorizeHandler(provider: McpOAuthProvider): Router {
  const router = Router();
  router.use(express.urlencoded({ extended: false, limit: '16kb' }));
  router.use(
    rateLimit({
      windowMs: 15 * 60_000,
      limit: 100,
      standardHeaders: true,
      legacyHeaders: false,
      message: new TooManyRequestsError(
        'You have exceeded the rate limit for authorization requests',
      ).toResponseObject(),
    }),
  );
  router.all('/', (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'POST') {
      res.setHeader('Allow', 'GET, POST');
      renderMessage(res, 405, 'Method not allowed', 'The authorization endpoint takes GET (or a POSTed form).');
      return;
    }
    authorize(provider, req, res).catch(next);
  });
  return router;
}

type Params = Record<string, unknown>;
const text = (params: Params, name: string): string | undefined =>
  typeof params[name] === 'string' ? params[name] : undefined;

async function authorize(provider: McpOAuthProvider, req: Request, res: Response): Promise<void> {
  res.setHeader('Cache-Control', 'no-store');
  const params = ((req.method === 'POST' ? req.body : req.query) ?? {}) as Params;

  let client: OAuthClientInformationFull;
  let redirectUri: string;
  try {
    ({ client, redirectUri } = await verifiedClient(provider, params));
  } catch (error) {
    const oauth = asOAuthError(error);
    refusalPage(
      res,
      oauth,
      'Start the sign-in again from your assistant; if this keeps happening, tell its developer what this page says.',
    );
    return;
  }

  const state = text(params, 'state');
  const trusted = await provider.redirectTrusted(client.client_id, redirectUri);
  try {
    if (state !== undefined && state.length > MAX_STATE_LENGTH)
      throw new InvalidRequestError(`state: at most ${MAX_STATE_LENGTH} characters`);
    const responseType = text(params, 'response_type');
    if (!responseType) throw new InvalidRequestError('response_type: required; use "code"');
    if (responseType !== 'code') throw new UnsupportedResponseTypeError('response_type: only "code" is supported');
    const challenge = text(params, 'code_challenge');
    if (!challenge) throw new InvalidRequestError('code_challenge: required (PKCE with S256)');
    if (text(params, 'code_challenge_method') !== 'S256')
      throw new InvalidRequestError('code_challenge_method: only S256 is supported');
    if (!S256_CHALLENGE.test(challenge))
      throw new InvalidRequestError('code_challenge: expected 43 base64url characters (S256)');
    const scope = text(params, 'scope');
    const resource = text(params, 'resource');
    if (resource !== undefined && !URL.canParse(resource))
      throw new InvalidRequestError('resource: expected an absolute URL');
    await provider.authorize(
      client,
      {
        ...(state !== undefined ? { state } : {}),
        scopes: scope ? scope.split(' ') : [],
        redirectUri,
        codeChallenge: challenge,
        ...(resource ? { resource: new URL(resource) } : {}),
      },
      res,
    );
  } catch (error) {
    const oauth = asOAuthError(error);
    if (trusted) {
      const echoed = state && state.length <= MAX_STATE_LENGTH ? state : undefined;
      const back = { error: oauth.errorCode, error_description: oauth.message, state: echoed };
      res.redirect(302, authorizationResponseUrl(redirectUri, provider.issuer, back));
      return;
    }
    refusalPage(
      res,
      oauth,
      `The browser is not sent back to ${redirectUri.slice(0, 200)}: ` +
        'no admin has allowed a sign-in to that address yet, ' +
        "so this service does not redirect there on its own. Tell the client's developer what this page says.",
    );
  }
}

/** The client and the redirect URI the answer may go to; every failure here is shown, never redirected. */
async function verifiedClient(
  provider: McpOAuthProvider,
  params: Params,
): Promise<{ client: OAuthClientInformationFull; redirectUri: string }> {
  const clientId = text(params, 'client_id');
  if (!clientId) throw new InvalidRequestError('client_id: required');
  const client = await provider.clientsStore.getClient(clientId);
  if (!client) {
    throw new InvalidClientError(
      'client_id: no client has this id. Registered clients that go unused are removed; the client should ' +
        'register again.',
    );
  }
  const asked = params.redirect_uri;
  if (asked !== undefined) {
    if (
      typeof asked !== 'string' ||
      !client.redirect_uris.some((registered) => redirectUriMatches(asked, registered))
    ) {
      throw new InvalidRequestError('redirect_uri: not one this client registered');
    }
    return { client, redirectUri: asked };
  }
  if (client.redirect_uris.length === 1) return { client, redirectUri: client.redirect_uris[0]! };
  throw new InvalidRequestError('redirect_uri: required when the client has several');
}

function asOAuthError(error: unknown): OAuthError {
  if (error instanceof OAuthError) return error;
  log.error({ err: error }, 'the authorization request failed');
  return new ServerError('the request could not be handled; try again');
}

function refusalPage(res: Response, error: OAuthError, advice: string): void {
  const status = error instanceof ServerError ? 500 : 400;
  renderMessage(res, status, 'This sign-in request cannot be used', `${error.errorCode}: ${error.message}. ${advice}`);
}
