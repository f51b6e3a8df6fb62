/**
 * The link step: a person record's link with its employer's company, as the lane plans and makes it: the employer
 * found or created by the resolver, then either written with the record (Salesforce AccountId) or
 * linked apart from it after the write (HubSpot associations).
 */
import type { CrmConnector, CrmRecord } from '../../core/connector.js';
import type { Priority } from '../../core/limiter.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import type { Market } from '../../partner/schemas.js';
import type { CompanyLinkPlan } from '../employers/company-link.js';
import { employerOf, type Employer, type EmployerResolution } from '../employers/employer-of.js';
import type { ResolveOptions } from '../employers/employers.js';
import type { PipelineState } from '../ports.js';
import { companyLinkProperty } from '../record/read-properties.js';
import type { RecordPlan } from '../record/record-plan.js';

export interface LinkContext {
  connector: CrmConnector;
  objectType: string;
  employers?: {
    resolve(employer: Employer, priority: Priority, options?: ResolveOptions): Promise<EmployerResolution>;
  };
  freeMail?: { has(domain: string): boolean };
}

/**
 * The company this record belongs with, found or created by the employer resolver; undefined when
 * the record is not linked at all (no company entry, a linked Salesforce Contact keeps its Account,
 * linked by us before: a person's later change of link stands).
 */
export async function planLink(
  ctx: LinkContext,
  work: { record: CrmRecord; state: PipelineState | undefined; priority: Priority },
  result: RecordPlan,
  mapping: CompiledMapping,
): Promise<CompanyLinkPlan | undefined> {
  const { employers, connector, objectType } = ctx;
  const property = companyLinkProperty(connector, objectType, mapping);
  if (!employers || !property || result.kind === 'no_key' || work.state?.companyId) return undefined;
  const raw = work.record.properties[property];
  const current = typeof raw === 'string' && raw.trim() ? raw.trim() : null;
  if (connector.companyLinkInWrite && current) return undefined;
  const email = mapping
    .matchKeys(work.record.properties)
    .find((k) => k.by === 'work_email' || k.by === 'personal_email')?.value;
  const employer = employerOf({
    ...(result.kind === 'planned'
      ? { partner: result.hit.data, partnerDomain: mapping.companyKey(result.hit.data)?.value }
      : {}),
    ...(email ? { email } : {}),
    market: result.market as Market,
    freeMail: ctx.freeMail ?? { has: () => false },
  });
  if (!employer) return undefined;
  const resolution = await employers.resolve(employer, work.priority);
  if (resolution.kind === 'none') return { action: 'none', property, current, reason: resolution.reason };
  if (current === resolution.companyId)
    return { action: 'already', property, current, companyId: resolution.companyId, reason: resolution.reason };
  return {
    action: connector.companyLinkInWrite ? 'write' : 'associate',
    property,
    current,
    companyId: resolution.companyId,
    reason: resolution.reason,
  };
}

/** What the link step made of a batch: each record's link with its outcome, and why a call failed. */
export interface LinkReport {
  links: Map<string, CompanyLinkPlan>;
  failed: number;
  error?: unknown;
}

/**
 * Links written records with their companies where the CRM keeps links apart from the record (HubSpot
 * associations), in one call, and returns each link with its outcome. A failure leaves the enrichment
 * standing: the link is said to have failed and is tried again on the next enrichment.
 */
export async function linkRecords(
  ctx: LinkContext,
  items: { recordId: string; link?: CompanyLinkPlan | undefined }[],
  priority: Priority,
): Promise<LinkReport> {
  const todo = items.filter(
    (w): w is { recordId: string; link: CompanyLinkPlan & { action: 'associate' } } => w.link?.action === 'associate',
  );
  const { connector, objectType } = ctx;
  const links = new Map<string, CompanyLinkPlan>();
  if (todo.length === 0 || !connector.linkToCompanies) return { links, failed: 0 };
  try {
    const results = await connector.linkToCompanies(
      objectType,
      todo.map((w) => ({
        recordId: w.recordId,
        companyId: w.link.companyId,
        currentPrimary: w.link.current ?? undefined,
      })),
      { priority },
    );
    todo.forEach((w, i) => {
      const r = results[i];
      links.set(
        w.recordId,
        r && r.outcome !== 'failed'
          ? { ...w.link, outcome: r.outcome }
          : { ...w.link, outcome: 'failed', error: r?.error ?? 'no result' },
      );
    });
    const failed = todo.filter((w) => {
      const made = links.get(w.recordId);
      return made?.action === 'associate' && made.outcome === 'failed';
    });
    return { links, failed: failed.length };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    for (const w of todo) links.set(w.recordId, { ...w.link, outcome: 'failed', error: message });
    return { links, failed: todo.length, error };
  }
}
