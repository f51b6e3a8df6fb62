/**
 * Domains of free and consumer mail providers (gmail.com, outlook.com, bigpond.com, ...): an address there
 * says nothing about the person's employer, so such a domain never becomes a company's. The list is the
 * maintained `email-providers` package, plus the domains a deployment adds (CRM_ENRICH_FREE_EMAIL_DOMAINS).
 */
import { createRequire } from 'node:module';

const providers = createRequire(import.meta.url)('email-providers/all.json') as string[];

export class FreeMailDomains {
  private readonly domains: Set<string>;

  constructor(extra: readonly string[] = []) {
    this.domains = new Set([...providers, ...extra].map((d) => d.trim().toLowerCase()).filter(Boolean));
  }

  /** true for a provider's domain and its subdomains (`mail.yahoo.com`). */
  has(domain: string): boolean {
    const d = domain.toLowerCase();
    if (this.domains.has(d)) return true;
    for (let i = d.indexOf('.'); i !== -1; i = d.indexOf('.', i + 1)) if (this.domains.has(d.slice(i + 1))) return true;
    return false;
  }
}
