/** A person record's link with its employer's company: what the lane plans, and the audit row it leaves. */
import type { AuditEntry } from '../ports.js';

export type CompanyLinkPlan =
  /** No company to link with: the reason says why (creation off, unknown to the partner, ...). */
  | { action: 'none'; property: string; current: string | null; reason: string }
  /** The record already names the company. */
  | {
      action: 'already';
      property: string;
      current: string | null;
      companyId: string;
      reason: string;
      outcome?: undefined;
    }
  /** The link is a field of the record, written in the same update as the enrichment (Salesforce AccountId). */
  | {
      action: 'write';
      property: string;
      current: string | null;
      companyId: string;
      reason: string;
      outcome?: undefined;
    }
  /** The link is made apart from the record (HubSpot association); `outcome` once done. */
  | {
      action: 'associate';
      property: string;
      current: string | null;
      companyId: string;
      reason: string;
      outcome?: 'linked_primary' | 'linked' | 'already_linked' | 'failed';
      error?: string;
    };

export function linkAudit(
  connection: string,
  objectType: string,
  recordId: string,
  link: CompanyLinkPlan | undefined,
  jobId: string | null,
): AuditEntry[] {
  if (!link) return [];
  const row = {
    connection,
    objectType,
    recordId,
    jobId,
    property: link.property,
    oldValue: link.current,
    rule: 'company_link',
  };
  switch (link.action) {
    case 'none':
      return [{ ...row, newValue: null, outcome: 'not_linked', reason: link.reason }];
    case 'already':
      return [{ ...row, newValue: link.companyId, outcome: 'already_linked', reason: link.reason }];
    case 'write':
      return [{ ...row, newValue: link.companyId, outcome: 'linked_primary', reason: link.reason }];
    case 'associate': {
      if (link.outcome === 'failed')
        return [
          {
            ...row,
            newValue: link.companyId,
            outcome: 'link_failed',
            reason: `${link.reason}; the CRM refused the link: ${link.error ?? 'no reason given'}`,
          },
        ];
      const outcome = link.outcome ?? 'linked';
      const reason =
        outcome === 'linked' ? `${link.reason}; the record keeps its primary company ${link.current}` : link.reason;
      return [{ ...row, newValue: link.companyId, outcome, reason }];
    }
  }
}
