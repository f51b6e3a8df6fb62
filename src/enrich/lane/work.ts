/** What a lane's steps pass on about one record: its claimed work, and the write its run planned. */
import type { CrmRecord } from '../../core/connector.js';
import type { Priority } from '../../core/limiter.js';
import type { CompanyLinkPlan } from '../employers/company-link.js';
import type { EnrichJob } from '../jobs.js';
import type { PipelineState } from '../ports.js';
import type { RecordPlan } from '../record/record-plan.js';

/** One record in hand: its jobs, its record as read, the state it starts from, and who waits for it. */
export interface Work {
  readonly jobs: EnrichJob[];
  readonly record: CrmRecord;
  readonly state: PipelineState | undefined;
  readonly priority: Priority;
}

/** What the write does not wait for, once done: the company link found, or why it or the observation failed. */
export interface Following {
  link?: CompanyLinkPlan | undefined;
  error?: unknown;
}

/** A record's planned write, as the write step takes it. */
export interface PlannedWrite {
  readonly work: Work;
  readonly recordId: string;
  readonly plan: RecordPlan;
  /** The values to write (with the company link where it is a field of the record). */
  readonly properties: Record<string, string>;
  /** The company link, when it was known before the write. */
  readonly link?: CompanyLinkPlan | undefined;
  /**
   * On a CRM that links apart from the record (HubSpot): the company link still being found and the
   * lookup's job-change observation. The enrichment is written meanwhile, the link made once this is done.
   */
  readonly following?: Promise<Following> | undefined;
}
