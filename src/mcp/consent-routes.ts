/**
 * The admin's answer to a consent page. Allow with the right admin token issues a one-use code and
 * sends the browser back to the client (which confirms its redirect URI); Deny sends it back with
 * error=access_denied when that redirect URI is trusted, and otherwise says so on a page: Deny needs no
 * token, so it must not turn this origin into a redirector to an address nobody vouched for (RFC 9700
 * 4.11.2). A wrong token issues nothing, counts against the address like a wrong token on the admin
 * API, and shows the page again. Past the throttle every answer waits, the right token too.
 */
import express, { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { AdminTokenCheck } from '../auth/admin-token.js';
import type { McpOAuthStore } from '../store/mcp-oauth.js';
import type { McpClients } from './clients-store.js';
import { authorizationResponseUrl } from './authorization-response.js';
import { CONSENT_PATH, renderConsent, renderMessage } from './consent-page.js';
import { hashSecret, type McpOAuthProvider } from './oauth-provider.js';

const Answer = z.object({
  request: z.string().min(1).max(200),
  decision: z.enum(['allow', 'deny']),
  admin_token: z.string().max(1000).optional(),
});

export interface ConsentRoutesOptions {
  store: McpOAuthStore;
  clients: McpClients;
  provider: McpOAuthProvider;
  tokenCheck: AdminTokenCheck;
}

export function consentRoutes(options: ConsentRoutesOptions): Router {
  const router = Router();
  router.post(CONSENT_PATH, express.urlencoded({ extended: false, limit: '8kb' }), (req, res, next) => {
    answer(options, req, res).catch(next);
  });
  return router;
}

async function answer(
  { store, clients, provider, tokenCheck }: ConsentRoutesOptions,
  req: Request,
  res: Response,
): Promise<void> {
  const parsed = Answer.safeParse(req.body ?? {});
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join('.') || 'body';
    renderMessage(
      res,
      400,
      'This answer cannot be read',
      `${field}: expected the consent form as the page sends it. Start the sign-in again from your assistant.`,
    );
    return;
  }
  const { request: requestId, decision, admin_token: token } = parsed.data;
  const requestHash = hashSecret(requestId);
  const pending = await store.request(requestHash);
  const client = pending && (await clients.getClient(pending.clientId));
  if (!pending || !client) {
    renderMessage(
      res,
      400,
      'This sign-in request has expired',
      'It was answered already or is older than ten minutes. Start the sign-in again from your assistant.',
    );
    return;
  }
  const address = req.socket.remoteAddress ?? 'unknown';
  const waitMs = tokenCheck.waitFor(address);
  if (waitMs > 0) {
    res.setHeader('Retry-After', String(Math.ceil(waitMs / 1000)));
    renderMessage(
      res,
      429,
      'Too many wrong admin tokens',
      `Too many wrong admin tokens came from this address; wait ${Math.ceil(waitMs / 1000)} seconds and try again.`,
    );
    return;
  }

  if (decision === 'deny') {
    if (!(await store.takeRequest(requestHash))) return expired(res);
    if (!(await provider.redirectTrusted(pending.clientId, pending.redirectUri))) {
      renderMessage(
        res,
        200,
        'Denied: nothing was allowed',
        'The client was not sent the answer, because no admin has allowed a sign-in to ' +
          `${pending.redirectUri.slice(0, 200)} yet. You can close this page.`,
      );
      return;
    }
    const back = { error: 'access_denied', error_description: 'the admin denied the request', state: pending.state };
    res.redirect(302, authorizationResponseUrl(pending.redirectUri, provider.issuer, back));
    return;
  }
  if (!token || !tokenCheck.matches(address, token, 'mcp consent')) {
    renderConsent(res, {
      client,
      scopes: pending.scope.split(' '),
      requestId,
      redirectUri: pending.redirectUri,
      firstTime: !(await provider.redirectTrusted(pending.clientId, pending.redirectUri)),
      status: 401,
      error: token
        ? 'That is not the admin token; nothing was allowed. Enter the admin token of this crm-enrich service.'
        : 'Enter the admin token to allow, or choose Deny.',
    });
    return;
  }
  const taken = await store.takeRequest(requestHash);
  if (!taken) return expired(res);
  const code = await provider.issueCode(taken);
  res.redirect(302, authorizationResponseUrl(taken.redirectUri, provider.issuer, { code, state: taken.state }));
}

function expired(res: Response): void {
  renderMessage(
    res,
    400,
    'This sign-in request has expired',
    'It was answered already. Start the sign-in again from your assistant.',
  );
}
