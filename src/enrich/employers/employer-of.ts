/**
 * Who a person's employer is, from the partner data and the record: the partner's current company of a
 * matched person first, otherwise the domain of a work e-mail; a free-mail domain never names one.
 */
import { domainOf } from '../../core/domain.js';
import type { Market } from '../../partner/schemas.js';

/** What resolving an employer came to: the company found (or created), or none and why. */
export type EmployerResolution =
  /**
   * `enrichedByCreator`: crm-enrich created the company (here or on another instance) and its creator saw
   * to its enrichment, in the creation or by a job: none is queued for it again.
   */
  { kind: 'found'; companyId: string; reason: string; enrichedByCreator?: boolean } | { kind: 'none'; reason: string };

/** A person's employer as far as the partner data and the record tell. */
export interface Employer {
  /** Normalised website domain: lower case, no scheme, `www.`, port or path. */
  domain: string;
  /** The company name the partner gave, used when the company has to be created. */
  name?: string;
  /** The partner's id of the company, found in the CRM once a company was enriched with it. */
  partnerCompanyId?: string;
  /** true when the partner named the employer (the person's current company). */
  fromPartner: boolean;
  /** The market a company lookup of the domain uses. */
  market: Market;
}

export interface EmployerSources {
  /** The domain the mapping's `company` entry read from the partner record (its current company's website). */
  partnerDomain?: string;
  /** The partner record of the person, when matched. */
  partner?: Record<string, unknown>;
  /** The record's work e-mail address, when it has one. */
  email?: string;
  market: Market;
  freeMail: { has(domain: string): boolean };
}

/**
 * The employer: the partner's current company of a matched person first (whatever address matched),
 * otherwise the domain of the record's e-mail. A free-mail domain never names an employer.
 */
export function employerOf(sources: EmployerSources): Employer | undefined {
  const { partnerDomain, partner, email, market, freeMail } = sources;
  const partnerName = nameOf(partner);
  const partnerCompanyId = idOf(partner);
  const fromPartner = partnerDomain ? domainOf(partnerDomain) : undefined;
  if (fromPartner && !freeMail.has(fromPartner)) {
    return {
      domain: fromPartner,
      fromPartner: true,
      market,
      ...(partnerName ? { name: partnerName } : {}),
      ...(partnerCompanyId ? { partnerCompanyId } : {}),
    };
  }
  const at = email?.lastIndexOf('@') ?? -1;
  const fromEmail = email && at > 0 ? domainOf(email.slice(at + 1)) : undefined;
  if (fromEmail && !freeMail.has(fromEmail)) return { domain: fromEmail, fromPartner: false, market };
  return undefined;
}

function idOf(partner: Record<string, unknown> | undefined): string | undefined {
  const company = partner?.current_company;
  if (!company || typeof company !== 'object') return undefined;
  const id = (company as Record<string, unknown>).id;
  return typeof id === 'string' && id.trim() ? id.trim() : undefined;
}

function nameOf(partner: Record<string, unknown> | undefined): string | undefined {
  const company = partner?.current_company;
  if (!company || typeof company !== 'object') return undefined;
  const name = (company as Record<string, unknown>).name;
  return typeof name === 'string' && name.trim() ? name.trim().slice(0, 255) : undefined;
}
