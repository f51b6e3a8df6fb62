/**
 * The run step: one record's partner lookups and write plan, with its company link and the lookup's
 * job-change observation started. Where the CRM links apart from the record (HubSpot) the write need not
 * wait for either: employers gather to share one search and one creation, and the association follows
 * the write once the company is known. Where the link is a field of the record (Salesforce AccountId),
 * it goes in the same update, so the write waits for it.
 */
import type { CompiledMapping } from '../../mapping/compile.js';
import type { CompanyLinkPlan } from '../employers/company-link.js';
import type { ObservedLookup } from '../job-changes/observer.js';
import type { PartnerLookups } from '../partner-lookups.js';
import { planRecord, type RecordPlan } from '../record/record-plan.js';
import { planLink, type LinkContext } from './link-step.js';
import type { Following, Work } from './work.js';

export interface RunContext {
  connection: string;
  objectType: string;
  lookups: PartnerLookups;
  links: LinkContext;
  /** Told of every record's partner lookup: a move of the person is a job change (src/enrich/job-changes). */
  jobChanges?: { observe(lookup: ObservedLookup): Promise<unknown> } | undefined;
  now?: () => Date;
}

export interface Ran {
  plan: RecordPlan;
  /** The company link and the job-change observation under way; never rejects (`error` says what failed). */
  following: Promise<Following>;
  /** The write goes before `following` is done: the CRM links apart from the record, and there is a write. */
  writesFirst: boolean;
}

export async function runRecord(ctx: RunContext, work: Work, mapping: CompiledMapping): Promise<Ran> {
  const marketHint = work.jobs.find((j) => j.data.market)?.data.market;
  const now = ctx.now?.() ?? new Date();
  const plan = await planRecord(work.record, mapping, ctx.lookups, work.state, work.priority, now, marketHint);
  const { connection, objectType, jobChanges, links } = ctx;
  // Job changes ride on the lookup just made: no credit of their own.
  const observing = jobChanges?.observe({
    connection,
    objectType,
    record: work.record,
    plan,
    mapping,
    jobId: work.jobs[0]!.id,
    links,
  });
  const linking = planLink(links, work, plan, mapping);
  const following = Promise.allSettled([linking, observing]).then(([link, observed]): Following => {
    const failed = [link, observed].find((s) => s.status === 'rejected');
    return {
      link: link.status === 'fulfilled' ? link.value : undefined,
      ...(failed ? { error: failed.reason as unknown } : {}),
    };
  });
  const writesFirst =
    !links.connector.companyLinkInWrite && plan.kind === 'planned' && Object.keys(plan.plan.writes).length > 0;
  return { plan, following, writesFirst };
}

/** What a record's write carries: the plan's values, and its company link where that is a field of it. */
export function plannedProperties(plan: RecordPlan, link: CompanyLinkPlan | undefined): Record<string, string> {
  const writes = plan.kind === 'planned' ? { ...plan.plan.writes } : {};
  if (link?.action === 'write') writes[link.property] = link.companyId;
  return writes;
}
