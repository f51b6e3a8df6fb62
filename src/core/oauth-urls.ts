/**
 * The URL rules of OAuth for the MCP server: where tokens may travel (HTTPS, or plain HTTP only to this
 * machine) and which redirect URIs a client may register (RFC 8252 for native apps, OAuth 2.1 3.1.2).
 * Redirect URIs are an allow-list, not a deny-list: every scheme a browser or an operating system might
 * hand to something else (`ms-msdt:`, `search-ms:`, `view-source:`, `chrome:`) is refused by default.
 */

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Long enough for any real callback; a longer one is an attempt to store or echo junk. */
export const MAX_REDIRECT_URI_LENGTH = 2000;

/**
 * RFC 8252 7.1: a native app's private-use scheme is a domain it controls, reversed
 * (`com.example.app:/callback`), so it has at least one period; a bare word (`search-ms`) does not.
 */
const REVERSE_DOMAIN_SCHEME = /^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+:$/;

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname);
}

/** HTTPS anywhere, or HTTP on a loopback address. */
export function isSecureOrigin(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol, hostname } = new URL(url);
  return protocol === 'https:' || (protocol === 'http:' && isLoopbackHost(hostname));
}

/**
 * Why a redirect URI cannot be registered, or undefined when it can: HTTPS, HTTP on a loopback
 * address (any port is accepted at sign-in), or a private-use scheme in reverse-domain form. No
 * fragment (not even an empty `#`), no user name or password, at most MAX_REDIRECT_URI_LENGTH characters.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `at most ${MAX_REDIRECT_URI_LENGTH} characters`;
  if (!URL.canParse(uri)) return 'expected an absolute URI';
  if (uri.includes('#')) return 'a redirect URI must not have a fragment';
  const url = new URL(uri);
  if (url.username || url.password) return 'a redirect URI must not carry a user name or password';
  if (url.protocol === 'https:') return url.hostname ? undefined : 'expected a host after https://';
  if (url.protocol === 'http:') {
    if (isLoopbackHost(url.hostname)) return undefined;
    return 'plain http is allowed only on a loopback address (127.0.0.1, localhost, [::1]); use https';
  }
  if (REVERSE_DOMAIN_SCHEME.test(url.protocol)) return undefined;
  return (
    `the ${url.protocol} scheme is not allowed: use https, http on a loopback address, ` +
    "or a native app's own scheme in reverse-domain form (com.example.app:/callback)"
  );
}

/**
 * The form in which a redirect URI is remembered as confirmed: a loopback URI without its port,
 * because a native client may listen on any port (RFC 8252 7.3), the rest as they are.
 */
export function redirectUriKey(uri: string): string {
  if (!URL.canParse(uri)) return uri;
  const url = new URL(uri);
  if (url.protocol !== 'http:' || !isLoopbackHost(url.hostname)) return uri;
  return `${url.protocol}//${url.hostname}${url.pathname}${url.search}`;
}
