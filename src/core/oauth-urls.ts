/**
 * The URL rules of OAuth for the MCP server: where tokens may travel (HTTPS, or plain HTTP only to this
 * machine) and which redirect URIs a client may register (RFC 8252 for native apps, OAuth 2.1 3.1.2).
 */

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname);
}

/** HTTPS anywhere, or HTTP on a loopback address. */
export function isSecureOrigin(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol, hostname } = new URL(url);
  return protocol === 'https:' || (protocol === 'http:' && isLoopbackHost(hostname));
}

/** Schemes that run or read something in the browser itself: never a place to send a code. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'blob:', 'about:', 'vbscript:', 'ftp:', 'ws:', 'wss:']);

/**
 * Why a redirect URI cannot be registered, or undefined when it can: HTTPS, HTTP on a loopback
 * address (any port is accepted at sign-in), or a private-use scheme of a native app (`vscode:`,
 * `cursor:`). No fragment, as OAuth requires.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (!URL.canParse(uri)) return 'expected an absolute URI';
  const url = new URL(uri);
  if (url.hash) return 'a redirect URI must not have a fragment';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return isLoopbackHost(url.hostname) ? undefined : 'plain http is allowed only on a loopback address (127.0.0.1, localhost, [::1]); use https';
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `the ${url.protocol} scheme cannot receive a sign-in`;
  return undefined;
}
