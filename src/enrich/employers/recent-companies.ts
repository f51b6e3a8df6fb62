/**
 * Domains resolved lately, in this process: the colleagues of one employer cost one search, not one each.
 */

/** How long a resolved domain answers from memory before the claim table and the CRM are asked again. */
const RECENT_MS = 10 * 60_000;

export class RecentCompanies {
  private readonly recent = new Map<string, { companyId: string; reason: string; at: number }>();

  /** The company a domain resolved to within the last ten minutes. */
  get(domain: string): { companyId: string; reason: string } | undefined {
    const cached = this.recent.get(domain);
    return cached && Date.now() - cached.at < RECENT_MS ? cached : undefined;
  }

  remember(domain: string, companyId: string, reason: string): void {
    if (this.recent.size > 50_000) this.recent.clear();
    this.recent.set(domain, { companyId, reason, at: Date.now() });
  }
}
