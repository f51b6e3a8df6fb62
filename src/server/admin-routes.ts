/**
 * The admin API (bearer ADMIN_TOKEN): mappings (list, show, validate, preview on a real record,
 * save, roll back), one record's state and audit trail, enrich-now, dead letters, stats, backfills.
 * Every error is `{ error: { code, message, details } }` naming what was wrong.
 */
import { connectorFor, mappedObject, objectTypeIn } from '../service/connectors.js';
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, Router } from 'express';
import { z } from 'zod';
import { MappingError, planValues } from '../mapping/index.js';
import { planRecord } from '../enrich/record-plan.js';
import type { AdminContext } from './admin-context.js';
import { BackfillError } from '../service/backfills.js';
import { adminAuth, type AdminTokenCheck } from './admin-auth.js';
import { HttpError, sendError } from './http-error.js';
import { adminStats } from './admin-stats.js';
import { adminSeries, parseRange } from './admin-series.js';
import { discoveryRoutes } from './discovery-routes.js';
import { DiscoveryError } from '../discovery/target.js';
import { logger } from '../logger.js';

const log = logger('server.admin');

const DocumentBody = z.object({ document: z.string({ error: 'document must be the mapping file text (YAML or JSON)' }).min(1, 'document must not be empty') });
const SaveBody = DocumentBody.extend({
  author: z.string({ error: 'author is required' }).trim().min(1, 'author is required'),
  comment: z.string().max(2000, 'comment is at most 2000 characters').default(''),
});
const PreviewBody = z.object({
  document: z.string().min(1).optional(),
  crm: z.string().min(1, 'crm is required'),
  object: z.string().min(1, 'object is required'),
  recordId: z.string({ error: 'recordId is required' }).min(1, 'recordId is required'),
});
const RollbackBody = z.object({ version: z.number({ error: 'version must be a number' }).int().positive() });
const ReplayBody = z.object({ ids: z.array(z.uuid('ids must be dead-letter ids (UUIDs, as GET /dead-letters lists them)')).max(10_000, 'ids: at most 10,000 at once').optional() });
const BackfillBody = z.object({
  connection: z.string({ error: 'connection is required' }).min(1),
  object: z.string({ error: 'object is required' }).min(1),
  limit: z.number().int().positive().nullable().optional(),
});

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.join('.') || 'body';
  throw new HttpError(400, 'invalid_request', `${field}: ${issue.message}`, { field, issues: result.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })) });
}

type Handler = (req: Request, res: Response) => Promise<void>;
const route = (fn: Handler) => (req: Request, res: Response, next: NextFunction) => fn(req, res).catch(next);

export function adminRoutes(service: AdminContext, tokenCheck: AdminTokenCheck): Router {
  const router = Router();
  router.use(adminAuth(tokenCheck));
  router.use(express.json({ limit: '1mb' }));

  router.get('/mappings', route(async (_req, res) => {
    res.json({ mappings: service.mappings.list().map(({ version: v }) => ({ crm: v.crm, object: v.objectType, version: v.version, author: v.author, comment: v.comment, createdAt: v.createdAt })) });
  }));

  router.get('/mappings/:crm/:object', route(async (req, res) => {
    const crm = String(req.params.crm);
    const entry = service.mappings.entry(crm, String(req.params.object));
    if (!entry) throw new HttpError(404, 'not_found', `no active mapping for ${crm}/${String(req.params.object)}`, { field: 'object' });
    const versions = await service.store.mappings.list(entry.version.crm, entry.version.objectType);
    res.json({
      active: { ...entry.version },
      versions: versions.map((v) => ({ version: v.version, author: v.author, comment: v.comment, createdAt: v.createdAt, active: v.active })),
    });
  }));

  router.post('/mappings/validate', route(async (req, res) => {
    const { document } = parse(DocumentBody, req.body);
    const compiled = service.mappings.compile(document, 'candidate');
    res.json({ valid: true, crm: compiled.crm, object: compiled.object, problems: [] });
  }));

  router.post('/mappings/preview', route(async (req, res) => {
    const body = parse(PreviewBody, req.body);
    const connector = connectorFor(service.connectors, { kind: body.crm });
    if (!connector) throw new HttpError(404, 'not_found', `no connection to ${body.crm} is configured`, { field: 'crm' });
    const objectType = objectTypeIn(connector, body.object);
    if (!objectType) throw new HttpError(400, 'invalid_request', `object: ${body.crm} has no object "${body.object}"`, { field: 'object' });
    const mapping = body.document ? service.mappings.compile(body.document, 'candidate') : service.mappings.get(body.crm, objectType);
    if (!mapping) throw new HttpError(404, 'not_found', `no active mapping for ${body.crm}/${objectType}; send a candidate document`, { field: 'document' });
    const [record] = await connector.readRecords(objectType, [body.recordId], [...mapping.propertiesToRead], { priority: 'interactive' });
    if (!record) throw new HttpError(404, 'not_found', `${body.crm} ${objectType} ${body.recordId} does not exist`, { field: 'recordId' });
    const state = (await service.ports.state.getMany(connector.connection, objectType, [record.id])).get(record.id);
    // Planned as a run would plan it (stamp and length limit included); a record without a match shows what nothing to map means.
    const planned = await planRecord(record, mapping, service.lookups, state, 'interactive', new Date());
    const hit = planned.kind === 'planned' ? planned.hit : null;
    const result = planned.kind === 'planned' ? planned.plan : planValues(mapping, record.properties, undefined, state?.lastWritten ?? {}, new Date());
    res.json({
      record: { id: record.id },
      match: hit ? { by: hit.key.by } : null,
      rows: result.decisions.map((d) => ({ property: d.property, current: d.current, new: d.next, rule: d.rule, outcome: d.outcome, reason: d.reason })),
      wouldWrite: result.writes,
    });
  }));

  router.post('/mappings/:crm/:object/versions', route(async (req, res) => {
    const body = parse(SaveBody, req.body);
    const candidate = service.mappings.compile(body.document, 'candidate');
    if (candidate.crm !== req.params.crm || candidate.object.toLowerCase() !== String(req.params.object).toLowerCase()) {
      throw new HttpError(400, 'invalid_request', `document: it is for ${candidate.crm}/${candidate.object}, not ${String(req.params.crm)}/${String(req.params.object)}`, { field: 'document' });
    }
    const entry = await service.mappings.save(body.document, body.author, body.comment);
    res.status(201).json({ active: entry.version });
  }));

  router.post('/mappings/:crm/:object/rollback', route(async (req, res) => {
    const { version } = parse(RollbackBody, req.body);
    const entry = await service.mappings.rollback(String(req.params.crm), String(req.params.object), version);
    res.json({ active: entry.version });
  }));

  router.get('/records/:connection/:object/:id', route(async (req, res) => {
    const key = { connection: String(req.params.connection), objectType: String(req.params.object), recordId: String(req.params.id) };
    const { state, audit } = await service.store.recordView(key, Math.min(Number(req.query.limit ?? 100) || 100, 1000));
    if (!state && audit.length === 0) throw new HttpError(404, 'not_found', `nothing is known about ${key.connection} ${key.objectType} ${key.recordId}`, { field: 'id' });
    res.json({ state: state ?? null, audit });
  }));

  router.post('/records/:connection/:object/:id/enrich', route(async (req, res) => {
    const connection = String(req.params.connection);
    const target = mappedObject(service.connectors, service.mappings, { connection }, String(req.params.object));
    if (!target) {
      throw new HttpError(404, 'not_found', `${connection}/${String(req.params.object)} is not a mapped object of a configured connection`, { field: 'object' });
    }
    const result = await service.enrichNow(target.connector.connection, target.objectType, String(req.params.id));
    res.status(202).json(result);
  }));

  router.get('/dead-letters', route(async (req, res) => {
    const limit = Math.min(Number(req.query.limit ?? 100) || 100, 1000);
    res.json({ deadLetters: await service.store.queue.deadLetters({ limit }) });
  }));

  router.post('/dead-letters/replay', route(async (req, res) => {
    const { ids } = parse(ReplayBody, req.body);
    const replayed = await service.store.queue.replay(ids);
    for (const connector of service.connectors) for (const o of connector.objectTypes) service.enricher.wake(connector.connection, o, 'bulk');
    res.json({ replayed });
  }));

  router.get('/stats', route(async (_req, res) => {
    res.json(await adminStats(service));
  }));

  router.get('/stats/series', route(async (req, res) => {
    res.json(await adminSeries(service, parseRange(req.query.range)));
  }));

  router.post('/refresh', route(async (_req, res) => {
    res.json(await service.refreshNow());
  }));

  router.post('/backfills', route(async (req, res) => {
    const body = parse(BackfillBody, req.body);
    res.status(202).json(await service.backfills.start(body.connection, body.object, body.limit ?? null));
  }));

  router.post('/backfills/dry-run', route(async (req, res) => {
    const body = parse(BackfillBody, req.body);
    res.json(await service.backfills.dryRun(body.connection, body.object, body.limit ?? null));
  }));

  router.get('/backfills/:connection/:object', route(async (req, res) => {
    res.json(await service.backfills.progress(String(req.params.connection), String(req.params.object)));
  }));

  router.use(discoveryRoutes(service));
  router.use((_req: Request, res: Response) => sendError(res, 404, 'not_found', 'no such admin route'));
  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof HttpError) return sendError(res, error.status, error.code, error.message, error.details);
    if (error instanceof MappingError) {
      return sendError(res, 422, 'invalid_mapping', error.message, { problems: error.problems.map((p) => ({ ...p, field: p.path.join(' > ') })) });
    }
    if (error instanceof DiscoveryError) return sendError(res, error.status, error.code, error.message, error.field ? { field: error.field } : undefined);
    if (error instanceof BackfillError) return sendError(res, 404, error.code, error.message, { field: error.code === 'unknown_connection' ? 'connection' : 'object' });
    const status = (error as { status?: number }).status;
    if (status && status >= 400 && status < 500) return sendError(res, status, 'invalid_request', `body: ${(error as Error).message}`, { field: 'body' });
    if (error && typeof error === 'object' && 'code' in error && 'kind' in error) {
      const e = error as { code: string; kind: string; message: string };
      return sendError(res, e.kind === 'transient' ? 503 : 502, e.code, e.message);
    }
    // The log has the error; the answer has the id to find it by, and nothing of the error itself.
    const requestId = randomUUID();
    log.error({ err: error, requestId, method: req.method, path: req.path }, 'an admin request failed');
    res.setHeader('X-Request-Id', requestId);
    return sendError(res, 500, 'internal', `the admin request failed; the service log has it under request id ${requestId}`, { requestId });
  });
  return router;
}
