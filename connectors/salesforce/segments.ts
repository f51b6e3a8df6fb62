/**
 * Salesforce's lists, as a backfill's or refresh's segment: a list view (id 00B...) or a report (00O...).
 * A list view's records are its own SOQL query, as `GET /sobjects/{object}/listviews/{id}/describe` gives
 * it, run through the query API and its locators, so every member is read (the view's `results` resource
 * stops at 2,000). A report is run synchronously with its detail rows (`GET /analytics/reports/{id}
 * ?includeDetails=true`); Salesforce answers at most 2,000 of them and says so with `allData: false`, so
 * a larger report is refused with what to do rather than half-read. A list view is found by its API name
 * or label among the object's list views (`GET /sobjects/{object}/listviews`); a report, by id only.
 */
import type { Connection } from 'jsforce';
import { z } from 'zod';
import { CrmError, type CallOptions } from '../../src/core/connector.js';
import { parseCrmAnswer } from '../../src/core/crm-answer.js';
import type { Priority } from '../../src/core/limiter.js';
import { toId18 } from './ids.js';

/** The key prefix of each object's record ids. */
const KEY_PREFIX: Record<string, string> = { Contact: '003', Lead: '00Q', Account: '001' };
const LIST_VIEW = '00B';
const REPORT = '00O';
/** Detail rows a synchronous report run answers at most. */
export const REPORT_ROWS_MAX = 2_000;

const ListViewDescribe = z.looseObject({ query: z.string(), sobjectType: z.string() });
const ListViews = z.looseObject({
  listviews: z.array(z.looseObject({ id: z.string(), developerName: z.string(), label: z.string() })),
  nextRecordsUrl: z.string().nullish(),
});
const Cell = z.looseObject({ value: z.unknown() });
const ReportRun = z.looseObject({
  allData: z.boolean(),
  factMap: z.record(
    z.string(),
    z.looseObject({ rows: z.array(z.looseObject({ dataCells: z.array(Cell) })).optional() }),
  ),
  reportMetadata: z.looseObject({ name: z.string().optional(), detailColumns: z.array(z.string()) }),
});

export interface SegmentCalls {
  call: <T>(operation: string, priority: Priority, send: (c: Connection) => Promise<T>) => Promise<T>;
  queryAll: (soql: string, priority: Priority) => Promise<Record<string, unknown>[]>;
}

/** A value's 18-character record id, when it is one. */
const idOf = (value: unknown) => (typeof value === 'string' ? toId18(value) : undefined);

const refuse = (message: string) => new CrmError('salesforce', 'validation', message);

export function salesforceSegments({ call, queryAll }: SegmentCalls) {
  async function listViewMembers(objectType: string, id: string, priority: Priority): Promise<string[]> {
    const view = parseCrmAnswer(
      'salesforce',
      ListViewDescribe,
      await call('listview.describe', priority, (c) => c.sobject(objectType).listview(id).describe()),
      'listview.describe',
    );
    if (view.sobjectType !== objectType)
      throw refuse(`list view ${id} lists ${view.sobjectType} records, not ${objectType}`);
    const rows = await queryAll(view.query, priority);
    return rows.map((r) => idOf(r.Id)).filter((v): v is string => v !== undefined);
  }

  async function reportMembers(objectType: string, id: string, priority: Priority): Promise<string[]> {
    const run = parseCrmAnswer(
      'salesforce',
      ReportRun,
      await call('report.run', priority, (c) => c.analytics.report(id).execute({ details: true })),
      'report.run',
    );
    const name = run.reportMetadata.name ? `report "${run.reportMetadata.name}" (${id})` : `report ${id}`;
    if (!run.allData)
      throw refuse(
        `${name} has more rows than the ${REPORT_ROWS_MAX} Salesforce answers through its API; filter the report ` +
          `down, or use a list view of the same records (a list view is read whole)`,
      );
    // Detail rows sit under "T!T" in a tabular report and under each grouping's "<key>!T" in a summary one.
    const rows = Object.entries(run.factMap)
      .filter(([key]) => key.endsWith('!T'))
      .flatMap(([, cell]) => cell.rows ?? []);
    const prefix = KEY_PREFIX[objectType] ?? '';
    const ids = (column: number) => rows.map((r) => idOf(r.dataCells[column]?.value));
    // The record's own id column is the one whose every value is an id of this object.
    const column = run.reportMetadata.detailColumns.findIndex(
      (_, i) => rows.length > 0 && ids(i).every((v) => v?.startsWith(prefix)),
    );
    if (rows.length === 0) return [];
    if (column < 0)
      throw refuse(`${name} has no column of ${objectType} ids; add the ${objectType} ID column to the report`);
    return [...new Set(ids(column) as string[])];
  }

  return {
    async listMembers(objectType: string, listId: string, options?: CallOptions): Promise<string[]> {
      const id = toId18(listId);
      const priority = options?.priority ?? 'bulk';
      if (id?.startsWith(LIST_VIEW)) return listViewMembers(objectType, id, priority);
      if (id?.startsWith(REPORT)) return reportMembers(objectType, id, priority);
      throw refuse(`${listId} is neither a list view id (00B...) nor a report id (00O...)`);
    },

    async findList(objectType: string, name: string, options?: CallOptions): Promise<string | undefined> {
      const priority = options?.priority ?? 'bulk';
      const wanted = name.toLowerCase();
      let page = parseCrmAnswer(
        'salesforce',
        ListViews,
        await call('listviews', priority, (c) => c.sobject(objectType).listviews()),
        'listviews',
      );
      for (;;) {
        const found =
          page.listviews.find((v) => v.developerName === name) ??
          page.listviews.find((v) => v.label.toLowerCase() === wanted);
        if (found) return toId18(found.id) ?? found.id;
        const next = page.nextRecordsUrl;
        if (!next) return undefined;
        page = parseCrmAnswer(
          'salesforce',
          ListViews,
          await call('listviews', priority, (c) => c.request(next)),
          'listviews',
        );
      }
    },
  };
}
