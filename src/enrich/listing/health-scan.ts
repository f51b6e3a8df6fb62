/**
 * A data-health scan: reads every record of one CRM object in its cheapest bulk form (whole-object.ts: a
 * Salesforce object over the bulk threshold through one Bulk API 2.0 query job), at bulk priority (the
 * connector's request runner keeps bulk reads inside the share of the CRM's API budget that interactive
 * work leaves), and counts page by page (health-counts.ts). After every page the cursor and
 * the counts so far are stored with the run, so a scan that is stopped resumes where it was; the finished
 * run stays, dated, for the trend.
 */
import type { CrmConnector, RecordPage } from '../../core/connector.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import type { HealthRunRow } from '../../store/health-runs.js';
import { logger } from '../../logger.js';
import { companyLinkProperty, propertiesToRead } from '../record/read-properties.js';
import { countPage, emptyCounts, HealthCounts, type PageCountDeps } from './health-counts.js';
import { ExportGoneError, readWholeObject } from './whole-object.js';

const log = logger('enrich.health');

/** Asked of every read; each connector caps it at its own page size (HubSpot 100, Salesforce REST 2,000). */
export const SCAN_PAGE = 2000;
/** Records per page of a bulk export (one Salesforce API call each): what a scan holds in memory at once. */
export const SCAN_BULK_PAGE = 10_000;

/**
 * How a scan reads an object's pages. The default (wholeObjectReader) lists through the connector, or for
 * an object bigger than the connector's bulk threshold reads its bulk export (Salesforce Bulk API 2.0
 * query jobs); tests plug in their own.
 */
export type ScanReader = (
  objectType: string,
  properties: string[],
  cursor: string | undefined,
  signal?: AbortSignal,
) => Promise<RecordPage>;

export function wholeObjectReader(connector: CrmConnector, bulkPageSize = SCAN_BULK_PAGE): ScanReader {
  return (objectType, properties, cursor, signal) =>
    readWholeObject(connector, { objectType, properties, cursor, listPageSize: SCAN_PAGE, bulkPageSize, signal });
}

export interface HealthRunsPort {
  save(id: string, cursor: string | null, counts: HealthCounts, done: boolean): Promise<void>;
  /** Starts the run over: no cursor, these (empty) counts, no domains seen. */
  restart(id: string, counts: HealthCounts): Promise<void>;
  seenDomains(id: string, domains: readonly string[]): Promise<number>;
}

export interface HealthScanDeps extends Omit<PageCountDeps, 'seenDomains' | 'linkProperty' | 'staleBefore' | 'states'> {
  runs: HealthRunsPort;
  states(connection: string, objectType: string, recordIds: string[]): ReturnType<PageCountDeps['states']>;
  refreshAfterDays: number;
  reader?: (connector: CrmConnector) => ScanReader;
  now?: () => Date;
}

const DAY_MS = 86_400_000;

/** Reads and counts until the object is read to its end or `signal` aborts; safe to call again after a crash. */
export async function driveHealthScan(
  deps: HealthScanDeps,
  connector: CrmConnector,
  objectType: string,
  mapping: CompiledMapping,
  run: HealthRunRow,
  signal?: AbortSignal,
): Promise<HealthCounts> {
  const read = propertiesToRead(connector, objectType, mapping);
  const linkProperty = companyLinkProperty(connector, objectType, mapping);
  const reader = (deps.reader ?? wholeObjectReader)(connector);
  let counts = HealthCounts.parse(run.counts);
  let cursor = run.cursor ?? undefined;
  const now = deps.now ?? (() => new Date());
  for (;;) {
    if (signal?.aborted) return counts;
    let page: RecordPage;
    try {
      page = await reader(objectType, read, cursor, signal);
    } catch (error) {
      if (signal?.aborted) return counts;
      if (!(error instanceof ExportGoneError)) throw error;
      // Counted pages cannot be told apart from the rest of a new export: count everything again.
      log.warn({ connection: connector.connection, objectType, err: error }, 'data-health scan starts over');
      counts = emptyCounts(mapping, !!linkProperty);
      cursor = undefined;
      await deps.runs.restart(run.id, counts);
      continue;
    }
    const pageDeps: PageCountDeps = {
      states: (ids) => deps.states(connector.connection, objectType, ids),
      cached: deps.cached,
      seenDomains: (domains) => deps.runs.seenDomains(run.id, domains),
      freeMail: deps.freeMail,
      staleBefore: new Date(now().getTime() - deps.refreshAfterDays * DAY_MS),
      ...(linkProperty ? { linkProperty } : {}),
    };
    counts = await countPage(pageDeps, mapping, page.records, counts);
    cursor = page.next;
    await deps.runs.save(run.id, cursor ?? null, counts, !cursor);
    if (!cursor) break;
  }
  log.info({ connection: connector.connection, objectType, records: counts.records }, 'data-health scan finished');
  return counts;
}
