/**
 * The one place domains are normalised. People type websites in any form (`https://www.acme.com/`,
 * `acme.com`, `HTTP://Acme.com:8080/about`, `acme.com.`); partner records, CRM properties, e-mail
 * addresses and Salesforce's free-text `Website` all go through these, so equal domains compare equal.
 */

/** The bare host: lower case, no scheme, credentials, `www.`, port, path, query or trailing dot ('' for none). */
export function websiteDomain(value: string): string {
  return value
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/^\/\//, '')
    .replace(/^[^/?#@]*@/, '')
    .replace(/^www\./, '')
    .replace(/[/?#:\\].*$/s, '')
    .replace(/\.$/, '');
}

/**
 * websiteDomain, when it is a plausible domain name: two or more labels of letters, digits and hyphens
 * (an international name in its ASCII form, as DNS and most CRMs keep it); undefined otherwise.
 */
export function domainOf(value: string): string | undefined {
  const host = websiteDomain(value);
  if (host === '' || host.length > 253) return undefined;
  let ascii: string;
  try {
    ascii = new URL(`https://${host}`).hostname;
  } catch {
    return undefined;
  }
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(ascii) ? ascii : undefined;
}
