/**
 * Lookup keys as people type them: `HTTPS://WWW.Acme.example/`, `acme.example` and `www.acme.example`
 * name the same company. Every index key and every query value goes through the same function.
 */

/** The host of a website, URL or FQDN: no scheme, no `www.`, no port, path, query or trailing dot; lower case. */
export function normalizeHost(input: string): string {
  let value = input.trim().toLowerCase();
  value = value.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  value = value.replace(/[/?#].*$/, '');
  value = value.replace(/:\d+$/, '').replace(/\.$/, '');
  return value.replace(/^www\./, '');
}

/**
 * The slug of a professional-network profile, from a bare slug or a URL such as
 * `https://www.linkedin.com/company/acme/` or `linkedin.com/in/jane-doe?trk=x`.
 */
export function normalizeSlug(input: string): string {
  const value = input
    .trim()
    .toLowerCase()
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '');
  const segments = value.split('/').filter(Boolean);
  return segments[segments.length - 1] ?? '';
}

export function normalizeEmail(input: string): string {
  return input.trim().toLowerCase();
}

/** Business numbers are written with spaces (`51 824 753 556`); only the digits identify them. */
export function normalizeDigits(input: string): string {
  return input.replace(/\D/g, '');
}
