/**
 * The consent page of the authorization endpoint: which client asks, for what, and where the answer
 * goes; the admin signs in with the admin token and answers Allow or Deny. No script at all; the one
 * inline stylesheet is allowed by its hash. The form may post to this service and, because Chromium
 * checks form-action against the redirect that answers the post, to the client's redirect origin
 * (`form-action 'self'` alone would block the way back to a loopback client).
 */
import { createHash } from 'node:crypto';
import type { Response } from 'express';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { SCOPES, isScope } from './scopes.js';

export const CONSENT_PATH = '/oauth/consent';

const FIRST_TIME =
  '<p id="first-time" class="alert">No admin has allowed this client to use this address before. ' +
  'Allow only if you started this sign-in yourself, from the client named above.</p>';

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2330; }
main { max-width: 34rem; margin: 3rem auto; background: #fff; padding: 2rem;
  border-radius: 8px; box-shadow: 0 1px 4px #0002; }
h1 { font-size: 1.35rem; margin-top: 0; }
dl { margin: 0 0 1rem; } dt { font-weight: 600; } dd { margin: 0 0 .5rem; overflow-wrap: anywhere; }
ul { padding-left: 1.2rem; }
label { display: block; font-weight: 600; margin-top: 1rem; }
input[type=password] { width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; }
.buttons { display: flex; gap: .75rem; margin-top: 1.25rem; }
button { font: inherit; padding: .5rem 1.25rem; border-radius: 4px; border: 1px solid #1d2330; cursor: pointer; }
button[value=allow] { background: #1d4ed8; border-color: #1d4ed8; color: #fff; }
button[value=deny] { background: #fff; }
.alert { background: #fdecea; border: 1px solid #c62828; padding: .5rem .75rem; border-radius: 4px; }
`;
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

export interface ConsentView {
  client: OAuthClientInformationFull;
  scopes: string[];
  requestId: string;
  redirectUri: string;
  /** No admin has allowed this client to this redirect URI before: the page says so. */
  firstTime?: boolean;
  /** Shown above the form: why the last answer was refused. */
  error?: string;
  status?: number;
}

/** The CSP of the page: nothing but its own style, a form posting here or to the redirect's origin. */
export function consentCsp(redirectUri: string): string {
  const url = new URL(redirectUri);
  const back = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
  return [
    "default-src 'none'",
    `style-src 'sha256-${STYLE_HASH}'`,
    `form-action 'self' ${back}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export function renderConsent(res: Response, view: ConsentView): void {
  res.status(view.status ?? 200);
  res.setHeader('Content-Security-Policy', consentCsp(view.redirectUri));
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  res.type('html').send(consentHtml(view));
}

export function consentHtml(view: ConsentView): string {
  const name = view.client.client_name?.trim() || 'An unnamed client';
  const scopes = view.scopes.filter(isScope);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Allow ${esc(name)} to use crm-enrich?</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>Allow <span id="client-name">${esc(name)}</span> to use crm-enrich?</h1>
<dl>
<dt>Client id</dt><dd>${esc(view.client.client_id)}</dd>
<dt>Sends you back to</dt><dd>${esc(view.redirectUri)}</dd>
</dl>
${view.firstTime ? FIRST_TIME : ''}
<p>It asks to:</p>
<ul id="scopes">
${scopes.map((s) => `<li><strong>${s}</strong>: ${esc(SCOPES[s])}</li>`).join('\n')}
</ul>
<p>Every call is counted against the partner credit budget and written to the audit log under this client's name.</p>
${view.error ? `<p class="alert" role="alert">${esc(view.error)}</p>` : ''}
<form method="post" action="${CONSENT_PATH}">
<input type="hidden" name="request" value="${esc(view.requestId)}">
<label for="admin-token">Admin token</label>
<input id="admin-token" name="admin_token" type="password" autocomplete="off" required>
<div class="buttons">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</div>
</form>
</main>
</body>
</html>
`;
}

/** A page with only a message: an expired request, a throttled address. */
export function renderMessage(res: Response, status: number, title: string, message: string): void {
  res.status(status);
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
  );
  res.setHeader('Cache-Control', 'no-store');
  res.type('html').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>${STYLE}</style></head>
<body><main><h1>${esc(title)}</h1><p class="alert" role="alert">${esc(message)}</p></main></body></html>
`);
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
