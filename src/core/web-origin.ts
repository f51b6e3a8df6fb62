/**
 * Web origins (RFC 6454) as browsers send them in `Origin`: a scheme, a host and a port, nothing else.
 * Compared whole, never by host name alone: a page served by another program on another port of the
 * same machine is another origin.
 */

/** Whether `value` is an origin and only that: no path, query, fragment or credentials. */
export function isOriginForm(value: string): boolean {
  if (!URL.canParse(value) || /[?#]/.test(value)) return false;
  const url = new URL(value);
  return url.host !== '' && !url.username && !url.password && (url.pathname === '' || url.pathname === '/');
}

/**
 * The serialised form of an origin, for comparing. http and https origins are serialised as URL does
 * (lower-case host, default port dropped); other schemes (a browser extension's `chrome-extension://<id>`)
 * have an opaque origin in URL, so their scheme and host are compared as written, in lower case.
 */
export function normaliseOrigin(value: string): string {
  const url = new URL(value);
  return url.origin !== 'null' ? url.origin : `${url.protocol}//${url.host}`.toLowerCase();
}
