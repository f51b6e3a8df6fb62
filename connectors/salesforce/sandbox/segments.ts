/**
 * The org's list views and reports, as a backfill or refresh reads them: an object's list views (`GET
 * /sobjects/{object}/listviews`), one view's describe with its SOQL `query` and its `results` (at most
 * 2,000 rows a request, `limit` and `offset`), and a report run synchronously with its detail rows (`GET
 * /analytics/reports/{id}?includeDetails=true`, tabular, at most 2,000 rows, `allData: false` past them),
 * in the shapes of Salesforce's REST API and Reports and Dashboards REST API guides. Each is one API call.
 * Views and reports are defined in process (`createListView`, `createReport`) or over HTTP (`POST
 * /__sandbox/list-views`, `POST /__sandbox/reports`): an object and a SOQL condition over its records.
 * They live in memory, not in the org file.
 */
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { z } from 'zod';
import type { OrgData } from './org-data.js';
import type { SandboxObjectType } from '../standard-fields.js';

/** Rows a report run answers at most, and a list view's `results` at most a request. */
const ROWS_MAX = 2_000;

export const ListViewSpec = z.object({
  objectType: z.enum(['Contact', 'Lead', 'Account']),
  developerName: z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'developerName: letters, digits and underscores'),
  label: z.string().min(1),
  /** A SOQL condition over the object's records; every record without one. */
  where: z.string().optional(),
});
export type ListViewSpec = z.input<typeof ListViewSpec>;

export const ReportSpec = z.object({
  objectType: z.enum(['Contact', 'Lead', 'Account']),
  name: z.string().min(1),
  where: z.string().optional(),
});
export type ReportSpec = z.input<typeof ReportSpec>;

/** A report type's columns: the record's name, its id (as `<OBJECT>_ID`, as standard report types name it). */
const REPORT_COLUMNS: Record<ReportSpec['objectType'], { column: string; field: string; dataType: string }[]> = {
  Contact: [
    { column: 'LAST_NAME', field: 'LastName', dataType: 'string' },
    { column: 'EMAIL', field: 'Email', dataType: 'email' },
    { column: 'CONTACT_ID', field: 'Id', dataType: 'id' },
  ],
  Lead: [
    { column: 'LAST_NAME', field: 'LastName', dataType: 'string' },
    { column: 'EMAIL', field: 'Email', dataType: 'email' },
    { column: 'LEAD_ID', field: 'Id', dataType: 'id' },
  ],
  Account: [
    { column: 'ACCOUNT.NAME', field: 'Name', dataType: 'string' },
    { column: 'ACCOUNT_ID', field: 'Id', dataType: 'id' },
  ],
};
/** A list view's columns (the first is its sort). */
const VIEW_COLUMNS: Record<ReportSpec['objectType'], string[]> = {
  Contact: ['Id', 'LastName', 'Email'],
  Lead: ['Id', 'LastName', 'Email'],
  Account: ['Id', 'Name'],
};

interface ListView extends z.output<typeof ListViewSpec> {
  id: string;
}
interface Report extends z.output<typeof ReportSpec> {
  id: string;
}

const notFound = (res: Response) =>
  res.status(404).json([{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]);

export class SandboxSegments {
  private readonly views = new Map<string, ListView>();
  private readonly reports = new Map<string, Report>();

  constructor(private readonly org: OrgData) {}

  /** A list view; its id (00B...). A bad condition is refused now, as Salesforce refuses a bad filter. */
  createListView(spec: ListViewSpec): string {
    const view = { ...ListViewSpec.parse(spec), id: this.org.newId('00B') };
    this.run(view.objectType, VIEW_COLUMNS[view.objectType], view.where);
    this.views.set(view.id, view);
    return view.id;
  }

  /** A tabular report; its id (00O...). */
  createReport(spec: ReportSpec): string {
    const report = { ...ReportSpec.parse(spec), id: this.org.newId('00O') };
    this.run(report.objectType, ['Id'], report.where);
    this.reports.set(report.id, report);
    return report.id;
  }

  private query(objectType: string, fields: string[], where: string | undefined): string {
    return `SELECT ${fields.join(', ')} FROM ${objectType}${where ? ` WHERE ${where}` : ''} ORDER BY Id ASC`;
  }

  private run(objectType: SandboxObjectType, fields: string[], where: string | undefined) {
    return this.org.query(this.query(objectType, fields, where)).rows;
  }

  /** The seeding routes, outside the API (no token, no API call counted). */
  seedRoutes(): Router {
    const router = express.Router();
    const seed = (create: (body: unknown) => string) => (req: Request, res: Response) => {
      try {
        res.status(201).json({ id: create(req.body) });
      } catch (error) {
        res.status(400).json({ error: (error as Error).message });
      }
    };
    router.post(
      '/__sandbox/list-views',
      express.json(),
      seed((b) => this.createListView(b as ListViewSpec)),
    );
    router.post(
      '/__sandbox/reports',
      express.json(),
      seed((b) => this.createReport(b as ReportSpec)),
    );
    return router;
  }

  /** The API routes, under `/services/data/vXX.X`; `count(operation)` admits and counts each call. */
  routes(count: (operation: string) => RequestHandler): Router {
    const router = express.Router({ mergeParams: true });
    const base = (req: Request) => `/services/data/${String(req.params.version)}`;
    const viewOf = (req: Request): ListView | undefined => {
      const view = this.views.get(String(req.params.id));
      return view && view.objectType === req.params.type ? view : undefined;
    };
    const viewJson = (req: Request, v: ListView) => {
      const url = `${base(req)}/sobjects/${v.objectType}/listviews/${v.id}`;
      return {
        describeUrl: `${url}/describe`,
        developerName: v.developerName,
        id: v.id,
        label: v.label,
        resultsUrl: `${url}/results`,
        soqlCompatible: true,
        url,
      };
    };

    router.get('/sobjects/:type/listviews', count('listviews'), (req, res) => {
      if (!this.org.serves(String(req.params.type))) return notFound(res);
      const views = [...this.views.values()].filter((v) => v.objectType === req.params.type);
      res.json({
        done: true,
        listviews: views.map((v) => viewJson(req, v)),
        nextRecordsUrl: null,
        size: views.length,
        sobjectType: req.params.type,
      });
    });

    router.get('/sobjects/:type/listviews/:id/describe', count('listview.describe'), (req, res) => {
      const view = viewOf(req);
      if (!view) return notFound(res);
      const fields = VIEW_COLUMNS[view.objectType];
      res.json({
        columns: fields.map((f) => ({ fieldNameOrPath: f, hidden: f === 'Id', label: f, selectListItem: f })),
        id: view.id,
        orderBy: [{ fieldNameOrPath: 'Id', nullsPosition: 'first', sortDirection: 'ascending' }],
        query: this.query(view.objectType, fields, view.where),
        relatedEntityId: null,
        scope: 'everything',
        scopeEntityId: null,
        sobjectType: view.objectType,
        whereCondition: view.where ? { conditions: [], conjunction: 'and' } : null,
      });
    });

    router.get('/sobjects/:type/listviews/:id/results', count('listview.results'), (req, res) => {
      const view = viewOf(req);
      if (!view) return notFound(res);
      const limit = Math.min(Math.max(Number(req.query.limit ?? 25) || 25, 1), ROWS_MAX);
      const offset = Math.max(Number(req.query.offset ?? 0) || 0, 0);
      const fields = VIEW_COLUMNS[view.objectType];
      const rows = this.run(view.objectType, fields, view.where);
      const page = rows.slice(offset, offset + limit);
      res.json({
        columns: fields.map((f) => ({ fieldNameOrPath: f, hidden: f === 'Id', label: f, selectListItem: f })),
        developerName: view.developerName,
        done: offset + page.length >= rows.length,
        id: view.id,
        label: view.label,
        records: page.map((r) => ({
          columns: fields.map((f) => ({ fieldNameOrPath: f, value: f === 'Id' ? r.id : (r.fields[f] ?? null) })),
        })),
        size: rows.length,
      });
    });

    router.get('/analytics/reports/:id', count('report.run'), (req, res) => {
      const report = this.reports.get(String(req.params.id));
      if (!report) return notFound(res);
      const columns = REPORT_COLUMNS[report.objectType];
      const rows = this.run(
        report.objectType,
        columns.map((c) => c.field),
        report.where,
      );
      const details = req.query.includeDetails === 'true';
      const value = (row: (typeof rows)[number], field: string) =>
        field === 'Id' ? row.id : (row.fields[field] ?? null);
      res.json({
        attributes: {
          describeUrl: `${base(req)}/analytics/reports/${report.id}/describe`,
          instancesUrl: `${base(req)}/analytics/reports/${report.id}/instances`,
          reportId: report.id,
          reportName: report.name,
          type: 'Report',
        },
        allData: !details || rows.length <= ROWS_MAX,
        factMap: {
          'T!T': {
            aggregates: [{ label: String(rows.length), value: rows.length }],
            ...(details
              ? {
                  rows: rows.slice(0, ROWS_MAX).map((r) => ({
                    dataCells: columns.map((c) => ({
                      label: String(value(r, c.field) ?? '-'),
                      value: value(r, c.field),
                    })),
                  })),
                }
              : {}),
          },
        },
        groupingsAcross: { groupings: [] },
        groupingsDown: { groupings: [] },
        hasDetailRows: details,
        reportExtendedMetadata: {
          aggregateColumnInfo: { RowCount: { acrossGroupingContext: null, dataType: 'int', label: 'Record Count' } },
          detailColumnInfo: Object.fromEntries(
            columns.map((c) => [c.column, { dataType: c.dataType, label: c.field }]),
          ),
          groupingColumnInfo: {},
        },
        reportMetadata: {
          aggregates: ['RowCount'],
          detailColumns: columns.map((c) => c.column),
          developerName: report.name.replace(/\W+/g, '_'),
          id: report.id,
          name: report.name,
          reportFormat: 'TABULAR',
          reportType: { label: `${report.objectType}s`, type: `${report.objectType}List` },
        },
      });
    });
    return router;
  }
}
