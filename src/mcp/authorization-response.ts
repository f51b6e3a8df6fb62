/**
 * Where the browser goes back to after an authorization request: the client's redirect URI with the
 * answer in its query and, on every answer (a code, a denial, an error), `iss` = this server's issuer
 * (RFC 9207), so a client talking to several authorization servers can tell which one answered.
 */
export function authorizationResponseUrl(
  redirectUri: string,
  issuer: string,
  params: Record<string, string | null | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) url.searchParams.set(k, v);
  url.searchParams.set('iss', issuer);
  return url.href;
}
