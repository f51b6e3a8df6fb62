/**
 * What a backfill would do, without doing it: lists the records (or a CRM list's members) as the backfill
 * would and counts those
 * it would enqueue and skip, and for person objects linked with companies, how many would be linked
 * and how many companies would be created. It spends no partner credit, so employers are read from
 * e-mail domains (the partner may name others once it is asked); finding companies costs the CRM
 * searches a backfill would make too, one per 100 domains. With a segment it counts what the fill of that
 * segment would enqueue (fill-selection.ts, the function the backfill itself uses).
 */
import type { CrmConnector } from '../../core/connector.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import { employerOf } from '../employers/employer-of.js';
import type { PartnerLookups } from '../partner-lookups.js';
import { companyLinkProperty, propertiesToRead } from '../record/read-properties.js';
import { BACKFILL_BULK_PAGE, readForSegment } from './backfill.js';
import { selectForBackfill, type SelectionDeps } from './fill-selection.js';
import { listMembers, memberPage } from './list-segment.js';
import { listingConditions, type Segment } from './segment.js';
import { readWholeObject } from './whole-object.js';

export interface DryRunReport {
  connection: string;
  object: string;
  /** The CRM list whose members were counted; null for every record of the object. */
  listId: string | null;
  /** Records listed (up to the limit). */
  listed: number;
  /**
   * Records the backfill would enqueue: with a match key, not enriched before; with `missing`, those the
   * data-health report counts as fillable for it whose lookup could fill it (and in the segment).
   */
  wouldEnrich: number;
  /** Records it would skip: no match key, already enriched, or outside the segment. */
  skipped: number;
  /**
   * At most this many partner credits. With a segment, the records the lookup cache does not answer (with
   * `missing` alone, the data-health report's `credits` for that property on the same records); without
   * one, each match key the cache cannot answer, as the run would ask them.
   */
  credits: number;
  /** The segment previewed; null for every record. */
  segment: Segment | null;
  /** Absent when this object is not linked with companies. */
  companies?: {
    /** Records to enrich that have no company yet and whose e-mail names an employer. */
    wouldLink: number;
    /** Of their employers' domains: those with a company in the CRM already (or created by crm-enrich). */
    existing: number;
    /**
     * Those without one: at most this many companies would be created
     * (only employers the partner knows; 0 with creation off).
     */
    wouldCreateAtMost: number;
    /** Records whose address is at a free-mail provider or absent: linked only if the partner names their employer. */
    unknownEmployer: number;
    note: string;
  };
}

export interface DryRunDeps extends SelectionDeps {
  freeMail: { has(domain: string): boolean };
  /** Whether missing companies are created on this connection. */
  creates: (connector: CrmConnector) => boolean;
  /** Domains of companies crm-enrich created already. */
  created: (connection: string, domains: string[]) => Promise<Map<string, string>>;
  /** The partner lookups' own cost preview, spending nothing. */
  lookups?: Pick<PartnerLookups, 'creditsFor'>;
}

export async function backfillDryRun(
  deps: DryRunDeps,
  connector: CrmConnector,
  objectType: string,
  mapping: CompiledMapping,
  limit: number | null,
  listId: string | null = null,
  segment: Segment | null = null,
): Promise<DryRunReport> {
  const read = readForSegment(propertiesToRead(connector, objectType, mapping), segment);
  const linkProperty = companyLinkProperty(connector, objectType, mapping);
  const linking = !!linkProperty && !!connector.findCompaniesByDomain;
  const report: DryRunReport = {
    connection: connector.connection,
    object: objectType,
    listId,
    listed: 0,
    wouldEnrich: 0,
    skipped: 0,
    credits: 0,
    segment,
  };
  const domains = new Map<string, number>();
  let unknownEmployer = 0;
  const members = listId === null ? undefined : await listMembers(connector, objectType, listId);
  let cursor: string | undefined;
  do {
    const left = limit === null ? Number.POSITIVE_INFINITY : limit - report.listed;
    if (left <= 0) break;
    // As the backfill would read them: a list's members by id; more records than the connector's bulk
    // threshold through its bulk export.
    const page = members
      ? await memberPage(connector, objectType, members, cursor, Math.min(connector.batchSize, left), read)
      : await readWholeObject(connector, {
          objectType,
          properties: read,
          cursor,
          listPageSize: Math.min(connector.batchSize, left),
          bulkPageSize: Math.min(BACKFILL_BULK_PAGE, left),
          limit,
          ...(segment ? { where: listingConditions(segment) } : {}),
        });
    const records = page.records.slice(0, left);
    report.listed += records.length;
    const target = { connection: connector.connection, objectType, mapping };
    const { todo, credits } = await selectForBackfill(deps, target, segment, records, true);
    report.wouldEnrich += todo.length;
    if (segment || !deps.lookups) report.credits += credits;
    else
      for (const r of todo)
        report.credits += await deps.lookups.creditsFor(
          mapping.source,
          mapping.matchKeys(r.properties),
          mapping.market(r.properties),
        );
    report.skipped += records.length - todo.length;
    if (linking) {
      for (const r of todo) {
        const current = r.properties[linkProperty];
        if (typeof current === 'string' && current.trim()) continue;
        const email = mapping
          .matchKeys(r.properties)
          .find((k) => k.by === 'work_email' || k.by === 'personal_email')?.value;
        const employer = employerOf({
          ...(email ? { email } : {}),
          market: mapping.market(r.properties),
          freeMail: deps.freeMail,
        });
        if (employer) domains.set(employer.domain, (domains.get(employer.domain) ?? 0) + 1);
        else unknownEmployer++;
      }
    }
    cursor = page.next;
  } while (cursor);

  if (linking) {
    const all = [...domains.keys()];
    const created = await deps.created(connector.connection, all);
    const rest = all.filter((d) => !created.has(d));
    const found = rest.length ? await connector.findCompaniesByDomain!(rest, { priority: 'bulk' }) : new Map();
    const existing = created.size + found.size;
    report.companies = {
      wouldLink: [...domains.values()].reduce((a, b) => a + b, 0),
      existing,
      wouldCreateAtMost: deps.creates(connector) && connector.createCompanies ? all.length - existing : 0,
      unknownEmployer,
      note:
        'employers are read from e-mail domains here, without spending partner credits; the partner may ' +
        'name other employers when asked',
    };
  }
  return report;
}
