/**
 * The admin API (bearer ADMIN_TOKEN): mappings (mapping-routes.ts: list, show, the editor's pickers and
 * drafts, validate, preview on a real record, save, roll back), one record's state and audit trail, enrich-now, dead
 * letters, stats, backfills, file enrichments (file-routes.ts). Every error is `{ error: { code, message, details } }`
 * naming what was wrong.
 */
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, Router } from 'express';
import { MAX_STORED_INT, parse, route, wholeNumber, wholeNumberParam } from './admin-request.js';
import { mappingRoutes, problemView } from './mapping-routes.js';
import { z } from 'zod';
import { formatProblems, MappingError } from '../mapping/index.js';
import { UnknownMappingVersionError } from '../mapping/registry.js';
import type { AdminContext } from './admin-context.js';
import { BackfillError } from '../enrich/listing/backfills.js';
import type { ListRef } from '../enrich/listing/list-segment.js';
import type { AdminTokenCheck } from '../auth/admin-token.js';
import { adminAuth } from './admin-auth.js';
import { HttpError, sendError } from './http-error.js';
import { adminStats } from './admin-stats.js';
import { adminSeries, parseRange } from './admin-series.js';
import { discoveryRoutes } from './discovery-routes.js';
import { recordRoutes } from './record-routes.js';
import { jobChangeRoutes } from './job-change-routes.js';
import { fileRoutes } from './file-routes.js';
import { dataHealthRoutes } from './data-health-routes.js';
import { DiscoveryError } from '../discovery/target.js';
import { logger } from '../logger.js';

const log = logger('server.admin');

const ReplayBody = z.object({
  ids: z
    .array(z.uuid('ids must be dead-letter ids (UUIDs, as GET /dead-letters lists them)'))
    .max(10_000, 'ids: at most 10,000 at once')
    .optional(),
});
/**
 * A CRM list whose members are the segment (a HubSpot list, a Salesforce list view or report), by id or by
 * name (HubSpot: the list's name; Salesforce: a list view's API name or label); absent for every record.
 */
const ListFields = {
  listId: z.string().min(1, 'listId must not be empty').max(64).nullable().optional(),
  listName: z.string().min(1, 'listName must not be empty').max(255).nullable().optional(),
};
const BackfillBody = z.object({
  connection: z.string({ error: 'connection is required' }).min(1),
  object: z.string({ error: 'object is required' }).min(1),
  limit: wholeNumber(1, MAX_STORED_INT).nullable().optional(),
  ...ListFields,
  /** Only records with this mapped property empty ("fill the gaps"). */
  missing: z.string().min(1, 'missing must not be empty').max(200).nullable().optional(),
  /** Only records whose own properties meet every condition ("numberofemployees>=50", "jobtitle empty"). */
  where: z
    .array(z.string().min(1, 'a condition must not be empty').max(500), {
      error: 'expected a list of conditions such as "numberofemployees>=50"',
    })
    .max(20, 'at most 20 conditions')
    .nullable()
    .optional(),
});
const ListRefreshBody = z.object({
  connection: z.string({ error: 'connection is required' }).min(1),
  object: z.string({ error: 'object is required' }).min(1),
  ...ListFields,
});

/** The list a body names, if any; both fields at once is a request error naming listName. */
function listRef(body: { listId?: string | null; listName?: string | null }): ListRef | null {
  if (body.listId && body.listName)
    throw new HttpError(400, 'invalid_request', 'listName: give listId or listName, not both', { field: 'listName' });
  if (body.listId) return { listId: body.listId };
  if (body.listName) return { listName: body.listName };
  return null;
}

const BACKFILL_STATUS: Record<BackfillError['code'], number> = {
  unknown_connection: 404,
  unknown_object: 404,
  unknown_list: 404,
  unusable_list: 422,
  segment_not_supported: 400,
  invalid_segment: 400,
  backfill_running: 409,
};

export function adminRoutes(service: AdminContext, tokenCheck: AdminTokenCheck): Router {
  const router = Router();
  router.use(adminAuth(tokenCheck));
  // Before the JSON parser: an upload's body is a file, read as a stream.
  router.use(fileRoutes(service));
  router.use(express.json({ limit: '1mb' }));

  router.use(mappingRoutes(service));

  router.use(recordRoutes(service));

  router.use(jobChangeRoutes(service));

  router.use(dataHealthRoutes(service));

  router.get(
    '/dead-letters',
    route(async (req, res) => {
      const limit = wholeNumberParam(req.query.limit, 'limit', { min: 1, max: 1000, fallback: 100 });
      res.json({ deadLetters: await service.store.queue.deadLetters({ limit }) });
    }),
  );

  router.post(
    '/dead-letters/replay',
    route(async (req, res) => {
      const { ids } = parse(ReplayBody, req.body);
      const replayed = await service.store.queue.replay(ids);
      for (const connector of service.connectors)
        for (const o of connector.objectTypes) service.enricher.wake(connector.connection, o, 'bulk');
      res.json({ replayed });
    }),
  );

  router.get(
    '/stats',
    route(async (_req, res) => {
      res.json(await adminStats(service));
    }),
  );

  router.get(
    '/stats/series',
    route(async (req, res) => {
      res.json(await adminSeries(service, parseRange(req.query.range)));
    }),
  );

  router.post(
    '/refresh',
    route(async (req, res) => {
      // With a body naming a list, only that list's members; without one, the scheduled tick now.
      if (req.body && typeof req.body === 'object' && Object.keys(req.body as object).length > 0) {
        const body = parse(ListRefreshBody, req.body);
        const list = listRef(body);
        if (!list) throw new HttpError(400, 'invalid_request', 'listId: give listId or listName', { field: 'listId' });
        res.status(202).json(await service.backfills.refreshList(body.connection, body.object, list));
        return;
      }
      res.json(await service.refreshNow());
    }),
  );

  router.post(
    '/backfills',
    route(async (req, res) => {
      const body = parse(BackfillBody, req.body);
      res
        .status(202)
        .json(await service.backfills.start(body.connection, body.object, body.limit ?? null, listRef(body), body));
    }),
  );

  router.post(
    '/backfills/dry-run',
    route(async (req, res) => {
      const body = parse(BackfillBody, req.body);
      res.json(await service.backfills.dryRun(body.connection, body.object, body.limit ?? null, listRef(body), body));
    }),
  );

  router.get(
    '/backfills/:connection/:object',
    route(async (req, res) => {
      res.json(await service.backfills.progress(String(req.params.connection), String(req.params.object)));
    }),
  );

  router.use(discoveryRoutes(service));
  router.use((_req: Request, res: Response) => sendError(res, 404, 'not_found', 'no such admin route'));
  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof HttpError) return sendError(res, error.status, error.code, error.message, error.details);
    if (error instanceof MappingError) {
      // The error's own message is worded for start-up ("... and start again"); an API caller gets the list.
      const count = `${error.problems.length} problem${error.problems.length === 1 ? '' : 's'}`;
      const message = `the mapping has ${count}:\n${formatProblems(error.problems)}`;
      return sendError(res, 422, 'invalid_mapping', message, { problems: error.problems.map(problemView) });
    }
    if (error instanceof UnknownMappingVersionError) {
      const versions = `/admin/api/mappings/${error.crm}/${error.objectType}/versions`;
      return sendError(res, 404, error.code, `version: ${error.message}; GET ${versions} lists its versions`, {
        field: 'version',
      });
    }
    if (error instanceof DiscoveryError)
      return sendError(res, error.status, error.code, error.message, error.field ? { field: error.field } : undefined);
    if (error instanceof BackfillError)
      return sendError(res, BACKFILL_STATUS[error.code], error.code, error.message, { field: error.field });
    const status = (error as { status?: number }).status;
    if (status && status >= 400 && status < 500)
      return sendError(res, status, 'invalid_request', `body: ${(error as Error).message}`, { field: 'body' });
    if (error && typeof error === 'object' && 'code' in error && 'kind' in error) {
      const e = error as { code: string; kind: string; message: string };
      return sendError(res, e.kind === 'transient' ? 503 : 502, e.code, e.message);
    }
    // The log has the error; the answer has the id to find it by, and nothing of the error itself.
    const requestId = randomUUID();
    log.error({ err: error, requestId, method: req.method, path: req.path }, 'an admin request failed');
    res.setHeader('X-Request-Id', requestId);
    return sendError(
      res,
      500,
      'internal',
      `the admin request failed; the service log has it under request id ${requestId}`,
      { requestId },
    );
  });
  return router;
}
