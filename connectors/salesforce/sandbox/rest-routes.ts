/**
 * The REST data API under `/services/data/vXX.X/`: sObject rows, collections, describe, SOQL with
 * query locators, and limits. Each request is one API call against the org's daily allocation, as
 * Salesforce counts them; bodies and errors follow Salesforce's wire format.
 */
import { randomBytes } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { RequestError, type Fields, type OrgData, type SaveResult } from './org-data.js';
import type { LongRunningRequests } from './long-running.js';
import type { BulkQueryJobs } from './bulk-query.js';
import type { BulkIngest } from './bulk-ingest.js';
import { SoqlError } from './soql.js';
import type { SandboxSegments } from './segments.js';
import { OBJECT_LABELS, type SandboxObjectType } from '../standard-fields.js';

export interface ApiUsage {
  dailyLimit: number;
  used: number;
  byOperation: Record<string, number>;
  /** SOQL queries by object and the fields their WHERE clause tests, e.g. `Account.Website` (first pages only). */
  queriesByFilter: Record<string, number>;
  /**
   * Requests still to refuse as over the org's concurrent long-running request limit: the same
   * REQUEST_LIMIT_EXCEEDED code as the daily limit, told apart only by its message.
   */
  concurrentRefusals: number;
}

export interface RestContext {
  org: OrgData;
  usage: ApiUsage;
  isValidToken: (bearer: string | undefined) => boolean;
  queryPageSize: number;
  /** false: the integration user lacks "View Setup and Configuration", which the Limits resource needs. */
  viewSetup?: boolean;
  /** The org's concurrent long-running request limit, and how long its answers take. */
  longRunning: LongRunningRequests;
  /** Bulk API 2.0 query jobs (bulk-query.ts). */
  bulkQuery: BulkQueryJobs;
  /** Bulk API 2.0 ingest jobs (bulk-ingest.ts). */
  ingest: BulkIngest;
  /** The org's list views and reports. */
  segments: SandboxSegments;
}

const MAX_COLLECTION = 200;
const MAX_URI = 16_384;

const fail = (res: Response, status: number, errorCode: string, message: string, fields?: string[]) =>
  res.status(status).json([{ message, errorCode, ...(fields ? { fields } : {}) }]);

const notFound = (res: Response) => fail(res, 404, 'NOT_FOUND', 'The requested resource does not exist');

function withAttributes(version: string, type: string, id: string, fields: Fields) {
  return { attributes: { type, url: `/services/data/${version}/sobjects/${type}/${id}` }, ...fields };
}

function saveResultJson(result: SaveResult) {
  return { ...(result.id ? { id: result.id } : {}), success: result.success, errors: result.errors };
}

export function restRoutes(ctx: RestContext): Router {
  const router = express.Router({ mergeParams: true });
  const cursors = new Map<string, { type: SandboxObjectType; rows: { id: string; fields: Fields }[] }>();
  /** The object the path names, when this org has it (else 404, as for an object the org lacks). */
  const sobjectType = (req: Request, res: Response): SandboxObjectType | undefined => {
    const type = String(req.params.type);
    if (ctx.org.serves(type)) return type;
    notFound(res);
    return undefined;
  };

  const count = (operation: string) => (req: Request, res: Response, next: NextFunction) => {
    if (req.originalUrl.length > MAX_URI)
      return fail(
        res,
        414,
        'URI_TOO_LONG',
        `The request URI is longer than ${MAX_URI} bytes; send fewer ids per query.`,
      );
    // Salesforce's limit covers the request line and the headers together (help article 000386264).
    const headerBytes = req.rawHeaders.reduce((n, part, i) => n + Buffer.byteLength(part) + (i % 2 === 0 ? 2 : 2), 0);
    const requestLine = Buffer.byteLength(`${req.method} ${req.originalUrl} HTTP/1.1`) + 2;
    if (requestLine + headerBytes > MAX_URI) {
      return fail(
        res,
        431,
        'REQUEST_HEADER_FIELDS_TOO_LARGE',
        `The request line and headers are larger than ${MAX_URI} bytes.`,
      );
    }
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!ctx.isValidToken(bearer)) return fail(res, 401, 'INVALID_SESSION_ID', 'Session expired or invalid');
    if (ctx.usage.used >= ctx.usage.dailyLimit) {
      return fail(res, 403, 'REQUEST_LIMIT_EXCEEDED', `TotalRequests Limit exceeded.`);
    }
    if (ctx.usage.concurrentRefusals > 0) {
      ctx.usage.concurrentRefusals--;
      return fail(res, 403, 'REQUEST_LIMIT_EXCEEDED', 'ConcurrentRequests (Concurrent API Requests) Limit exceeded.');
    }
    if (ctx.longRunning.refuses())
      return fail(res, 403, 'REQUEST_LIMIT_EXCEEDED', 'ConcurrentPerOrgLongTxn Limit exceeded.');
    res.once('close', ctx.longRunning.begin());
    ctx.usage.used += 1;
    ctx.usage.byOperation[operation] = (ctx.usage.byOperation[operation] ?? 0) + 1;
    res.setHeader('Sforce-Limit-Info', `api-usage=${ctx.usage.used}/${ctx.usage.dailyLimit}`);
    if (ctx.longRunning.answerDelayMs > 0) setTimeout(next, ctx.longRunning.answerDelayMs);
    else next();
  };

  const version = (req: Request) => String(req.params.version);

  const queryPage = (req: Request, res: Response, cursorId: string, offset: number) => {
    const cursor = cursors.get(cursorId);
    if (!cursor || offset > cursor.rows.length) return fail(res, 400, 'INVALID_QUERY_LOCATOR', 'invalid query locator');
    const page = cursor.rows.slice(offset, offset + ctx.queryPageSize);
    const nextOffset = offset + page.length;
    const done = nextOffset >= cursor.rows.length;
    if (done) cursors.delete(cursorId);
    res.json({
      totalSize: cursor.rows.length,
      done,
      ...(done ? {} : { nextRecordsUrl: `/services/data/${version(req)}/query/${cursorId}-${nextOffset}` }),
      records: page.map((r) => withAttributes(version(req), cursor.type, r.id, r.fields)),
    });
  };

  router.use(ctx.segments.routes(count));

  router.get('/limits', count('limits'), (_req, res) => {
    if (ctx.viewSetup === false) {
      return fail(
        res,
        403,
        'INSUFFICIENT_ACCESS',
        'The Limits resource requires the View Setup and Configuration permission.',
      );
    }
    res.json({
      DailyApiRequests: { Max: ctx.usage.dailyLimit, Remaining: Math.max(0, ctx.usage.dailyLimit - ctx.usage.used) },
    });
  });

  router.get('/query', count('query'), (req, res) => {
    const q = typeof req.query.q === 'string' ? req.query.q : '';
    if (!q) return fail(res, 400, 'MALFORMED_QUERY', 'A query string has to be specified');
    const { type, rows, filteredOn, count } = ctx.org.query(q);
    const filter = `${type}.${filteredOn.join(',') || '*'}`;
    ctx.usage.queriesByFilter[filter] = (ctx.usage.queriesByFilter[filter] ?? 0) + 1;
    if (count) return res.json({ totalSize: rows.length, done: true, records: [] });
    const cursorId = `01g8d0000${randomBytes(6).toString('hex')}`;
    cursors.set(cursorId, { type, rows });
    queryPage(req, res, cursorId, 0);
  });

  router.get('/query/:locator', count('queryMore'), (req, res) => {
    const m = /^(.+)-(\d+)$/.exec(String(req.params.locator));
    if (!m) return fail(res, 400, 'INVALID_QUERY_LOCATOR', 'invalid query locator');
    queryPage(req, res, m[1] ?? '', Number(m[2]));
  });

  router.get('/sobjects/:type/describe', count('describe'), (req, res) => {
    const type = sobjectType(req, res);
    if (!type) return;
    const meta = OBJECT_LABELS[type];
    res.json({
      name: type,
      label: meta.label,
      labelPlural: meta.labelPlural,
      keyPrefix: meta.keyPrefix,
      custom: false,
      createable: true,
      updateable: true,
      queryable: true,
      retrieveable: true,
      fields: ctx.org.describeFields(type),
      urls: {
        sobject: `/services/data/${version(req)}/sobjects/${type}`,
        describe: `/services/data/${version(req)}/sobjects/${type}/describe`,
      },
    });
  });

  router.post('/sobjects/:type', count('sobject.create'), (req, res) => {
    const type = sobjectType(req, res);
    if (!type) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    ctx.org.checkKnownFields(type, body);
    const result = ctx.org.create(type, body);
    if (!result.success)
      return res
        .status(400)
        .json(result.errors.map((e) => ({ message: e.message, errorCode: e.statusCode, fields: e.fields })));
    res.status(201).json(saveResultJson(result));
  });

  router.get('/sobjects/:type/:id', count('sobject.get'), (req, res) => {
    const type = sobjectType(req, res);
    if (!type) return;
    const record = ctx.org.get(type, String(req.params.id));
    if (!record) return notFound(res);
    const wanted = typeof req.query.fields === 'string' ? req.query.fields.split(',').filter(Boolean) : undefined;
    const fields: Fields = {};
    for (const name of wanted ?? ctx.org.describeFields(type).map((f) => f.name)) {
      const field = ctx.org.field(type, name);
      if (!field) return fail(res, 400, 'INVALID_FIELD', `No such column '${name}' on entity '${type}'.`, [name]);
      fields[field.name] = record.fields[field.name] ?? null;
    }
    res.json(withAttributes(version(req), type, record.id, fields));
  });

  router.patch('/sobjects/:type/:id', count('sobject.update'), (req, res) => {
    const type = sobjectType(req, res);
    if (!type) return;
    if (!ctx.org.get(type, String(req.params.id))) return notFound(res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    ctx.org.checkKnownFields(type, body);
    const result = ctx.org.update(type, String(req.params.id), body);
    if (!result.success)
      return res
        .status(400)
        .json(result.errors.map((e) => ({ message: e.message, errorCode: e.statusCode, fields: e.fields })));
    res.status(204).end();
  });

  const collection = (mode: 'create' | 'update') => (req: Request, res: Response) => {
    const records = (req.body as { records?: unknown } | undefined)?.records;
    if (!Array.isArray(records)) return fail(res, 400, 'JSON_PARSER_ERROR', 'records: expected an array of sObjects');
    if (records.length > MAX_COLLECTION) {
      return fail(
        res,
        400,
        'EXCEEDED_ID_LIMIT',
        `record limit reached. cannot submit more than ${MAX_COLLECTION} records into this call`,
      );
    }
    const typed = records.map((r: Record<string, unknown>) => {
      const type = String((r.attributes as { type?: unknown } | undefined)?.type ?? '');
      if (!ctx.org.serves(type))
        throw new RequestError(
          400,
          'INVALID_TYPE',
          `sObject type '${type}' is not supported. Every record needs attributes.type.`,
        );
      ctx.org.checkKnownFields(type, r);
      return { type, record: r };
    });
    const results = typed.map(({ type, record }) =>
      mode === 'create'
        ? ctx.org.create(type, record)
        : ctx.org.update(type, String(record.id ?? record.Id ?? ''), record),
    );
    res.status(200).json(results.map(saveResultJson));
  };
  router.post('/composite/sobjects', count('collections.create'), collection('create'));
  router.patch('/composite/sobjects', count('collections.update'), collection('update'));
  router.use('/jobs/query', ctx.bulkQuery.routes(count));
  router.use('/jobs/ingest', ctx.ingest.routes(count));

  router.use((_req: Request, res: Response) => notFound(res));
  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof RequestError) return fail(res, err.status, err.errorCode, err.message, err.fields);
    if (err instanceof SoqlError) return fail(res, 400, err.errorCode, err.message);
    if (err instanceof SyntaxError || (err as { type?: string }).type === 'entity.parse.failed') {
      return fail(res, 400, 'JSON_PARSER_ERROR', 'The request body is not valid JSON.');
    }
    return fail(res, 500, 'UNKNOWN_EXCEPTION', 'An unexpected error occurred.');
  });
  return router;
}
