/**
 * One record's run through a lane, as one explicit sequence: its partner lookups and write plan, its
 * company link, then either a write (handed to the write buffer, whose batch writer writes, links and
 * settles) or, with nothing to write, its outcome settled at once. The record's phase is kept in the
 * lane's ledger at each step; every outcome is built by runOutcome.
 */
import { logger } from '../../logger.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import { planLink, type LinkContext } from './lane-links.js';
import type { Work } from './lane-options.js';
import type { LaneSettler } from './lane-settler.js';
import type { Ledger } from './ledger.js';
import type { ObservedLookup } from '../job-changes/observer.js';
import type { PartnerLookups } from '../partner-lookups.js';
import { planRecord, type RecordPlan } from '../record/record-plan.js';
import { reportedOutcome, runOutcome } from '../record/run-outcome.js';
import type { WriteBuffer } from './write-buffer.js';

const log = logger('enrich.lane');

export interface RecordRunnerOptions {
  connection: string;
  objectType: string;
  queue: string;
  lookups: PartnerLookups;
  links: LinkContext;
  ledger: Ledger;
  settler: LaneSettler;
  buffer: WriteBuffer<Work>;
  /** Told of every record's partner lookup: a move of the person is a job change (src/enrich/job-changes). */
  jobChanges?: { observe(lookup: ObservedLookup): Promise<unknown> };
}

export class RecordRunner {
  constructor(private readonly options: RecordRunnerOptions) {}

  async run(work: Work, mapping: CompiledMapping): Promise<void> {
    const { ledger, settler, buffer } = this.options;
    const id = work.record.id;
    try {
      const result = await this.plan(work, mapping);
      work.planned = result;
      const writes = result.kind === 'planned' ? { ...result.plan.writes } : {};
      // Where the link is a field of the record (Salesforce AccountId), it goes in the same update.
      if (work.link?.action === 'write') writes[work.link.property] = work.link.companyId;
      if (Object.keys(writes).length > 0 || work.link?.action === 'associate') {
        ledger.move(id, 'waiting');
        buffer.add(id, writes, work, work.priority === 'interactive');
        return;
      }
      const outcome = runOutcome({ recordId: id, jobs: work.jobs, state: work.state }, result, { link: work.link });
      await settler.settle([outcome]);
      log.info(
        {
          queue: this.options.queue,
          recordId: id,
          reason: work.jobs[0]!.data.reason,
          outcome: reportedOutcome(outcome),
        },
        result.kind === 'no_match' ? 'no partner match; nothing written' : 'nothing to write',
      );
      ledger.release([id]);
    } catch (error) {
      await settler.fail(work.jobs, error);
      ledger.release([id]);
    } finally {
      buffer.consider();
    }
  }

  /**
   * The lookups and the write plan, then the company link and the job-change observation. Where the CRM
   * links apart from the record (HubSpot), the write waits for neither: employers gather to share one
   * search and one creation, and the association follows the write once the company is known.
   */
  private async plan(work: Work, mapping: CompiledMapping): Promise<RecordPlan> {
    const { ledger, links } = this.options;
    const id = work.record.id;
    ledger.move(id, 'planning', work.priority === 'interactive');
    const marketHint = work.jobs.find((j) => j.data.market)?.data.market;
    const result = await planRecord(
      work.record,
      mapping,
      this.options.lookups,
      work.state,
      work.priority,
      new Date(),
      marketHint,
    );
    ledger.move(id, 'linking');
    const { connection, objectType, jobChanges } = this.options;
    // Job changes ride on the lookup just made: no credit of their own.
    const observing = jobChanges?.observe({
      connection,
      objectType,
      record: work.record,
      plan: result,
      mapping,
      jobId: work.jobs[0]!.id,
      links,
    });
    const linking = planLink(links, work, result, mapping).then((link) => void (work.link = link));
    const writesFirst =
      !links.connector.companyLinkInWrite && result.kind === 'planned' && Object.keys(result.plan.writes).length > 0;
    if (writesFirst) {
      work.following = Promise.allSettled([linking, observing]).then((settled) => {
        const failed = settled.find((s) => s.status === 'rejected');
        if (failed) work.followingError = failed.reason;
      });
    } else {
      const failed = (await Promise.allSettled([linking, observing])).find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
    }
    return result;
  }
}
