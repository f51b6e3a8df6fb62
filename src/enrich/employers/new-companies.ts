/**
 * A company created for an employer carries its enrichment in the creation itself: the company's partner
 * record is looked up (usually from the cache: the employer's own lookup has just fetched it), planned
 * through the company mapping as for a record holding only its domain and name, and the creation writes
 * those values. Its state is settled as enriched once the CRM gives its id, so no company job reads and
 * updates it a second time. Where the lookup fails, the company is created bare and enriched by a job.
 */
import type { CrmConnector, NewCompany } from '../../core/connector.js';
import { logger } from '../../logger.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import type { Market } from '../../partner/schemas.js';
import type { PartnerLookups } from '../partner-lookups.js';
import type { StatePort } from '../ports.js';
import { planRecord, type RecordPlan } from '../record/record-plan.js';
import { outcomeRows } from '../record/outcome-rows.js';

const log = logger('enrich.employers');

/** A company to create, with the values its creation writes and the plan they came from. */
export interface PlannedCompany {
  company: NewCompany;
  /** Absent when the company is created bare (no company mapping, or the lookup failed). */
  plan?: RecordPlan;
}

export interface NewCompanyPlannerOptions {
  connector: Pick<CrmConnector, 'connection'>;
  objectType: string;
  /** The active company mapping, read at each creation so a new version applies to the next. */
  mapping: () => CompiledMapping | undefined;
  lookups: PartnerLookups;
  state: Pick<StatePort, 'store'>;
  refreshAfterDays: number;
}

export class NewCompanyPlanner {
  constructor(private readonly options: NewCompanyPlannerOptions) {}

  /**
   * The company's lookup is bulk work whoever's employer it is: a person waits for their own record, and
   * a spent budget leaves the company to be created bare and enriched by a job once the budget allows.
   */
  async plan(company: NewCompany, market: Market): Promise<PlannedCompany> {
    const mapping = this.options.mapping();
    if (!mapping) return { company };
    const record = { id: '', properties: { domain: company.domain, name: company.name } };
    let plan: RecordPlan;
    try {
      plan = await planRecord(record, mapping, this.options.lookups, undefined, 'bulk', new Date(), market);
    } catch (error) {
      log.warn(
        { connection: this.options.connector.connection, err: error },
        'a new company is created without its enrichment, which a job adds later',
      );
      return { company };
    }
    const writes = plan.kind === 'planned' ? plan.plan.writes : {};
    // The employer's domain and name stand: the creation is matched back to its employer by the domain.
    return { company: { ...company, properties: { ...writes, ...company.properties } }, plan };
  }

  /** Stores the created companies' states and audit rows, as a company job would have after its write. */
  async store(created: { companyId: string; planned: PlannedCompany }[]): Promise<void> {
    const outcomes = created.flatMap(({ companyId, planned }) =>
      planned.plan
        ? [{ recordId: companyId, jobId: null, result: planned.plan, written: planned.company.properties ?? {} }]
        : [],
    );
    if (outcomes.length === 0) return;
    const { connector, objectType, refreshAfterDays } = this.options;
    const { states, audit } = outcomeRows({ connection: connector.connection, objectType, refreshAfterDays }, outcomes);
    await this.options.state.store(states, audit);
  }
}
