/**
 * Accounts have no domain field, only `Website`, which people type in any form (`https://www.acme.com/`,
 * `acme.com`, `HTTP://Acme.com:8080`). Both the domains the pipeline asks for and the websites Salesforce
 * answers go through this one function, so an Account matches only when its website is the domain itself.
 */
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
