/**
 * The admin API of discovery: the partner's filter catalogue (for pickers), saved personas, and the
 * preview and run of discovery at one company. Mounted inside the admin router, behind its token.
 */
import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { CRM_KINDS } from '../core/connector.js';
import type { DiscoveryProgress } from '../discovery/discovery.js';
import { PartnerError } from '../partner/partner-error.js';
import type { AdminContext } from './admin-context.js';
import { MAX_STORED_INT, route, wholeNumber, wholeNumberText } from './admin-request.js';
import { HttpError } from './http-error.js';

const PersonaName = z
  .string()
  .trim()
  .min(1, 'name must not be empty')
  .max(80, 'name is at most 80 characters')
  .regex(/^[\p{L}\p{N} ._-]+$/u, 'name takes letters, digits, spaces, dots, dashes and underscores');

const DiscoveryBody = z.strictObject({
  crm: z.enum(CRM_KINDS, { error: `crm must be ${CRM_KINDS.join(' or ')}` }),
  companyId: z
    .string({ error: 'companyId is required' })
    .trim()
    .min(1, 'companyId is required')
    .max(64, 'companyId is at most 64 characters'),
  filters: z.unknown().optional(),
  persona: PersonaName.optional(),
  limit: wholeNumber(1, MAX_STORED_INT).optional(),
  skipDoNotDisturb: z.boolean({ error: 'skipDoNotDisturb must be true or false' }).optional(),
});
const RunBody = DiscoveryBody.extend({
  runId: z.uuid('runId must be a UUID the caller made up, to follow the run by').optional(),
});
const PersonaBody = z.strictObject({
  filters: z.unknown(),
  description: z.string().max(500, 'description is at most 500 characters').nullable().optional(),
});
const FilterOptionsQuery = z.strictObject({
  identifiers: z.string().max(500).optional(),
  search: z.string().min(1).max(100).optional(),
  offset: wholeNumberText(0, MAX_STORED_INT).optional(),
  levelOne: z.string().max(50).optional(),
});

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : issue.path.join('.') || 'body';
  const message =
    issue.code === 'unrecognized_keys' ? `${field}: not a field of this request` : `${field}: ${issue.message}`;
  throw new HttpError(400, 'invalid_request', message, {
    field,
    issues: result.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })),
  });
}

/** Runs under way in this process, for progress bars; kept a while after they end. */
const RUN_MEMORY_MS = 10 * 60_000;

export function discoveryRoutes(service: AdminContext): Router {
  const router = Router();
  const runs = new Map<string, DiscoveryProgress & { finished: boolean }>();

  router.get(
    '/filter-options',
    route(async (req, res) => {
      const q = parse(FilterOptionsQuery, req.query);
      try {
        res.json(
          await service.partner.filterOptions(
            {
              ...(q.identifiers
                ? {
                    identifiers: q.identifiers
                      .split(',')
                      .map((s) => s.trim())
                      .filter(Boolean),
                  }
                : {}),
              ...(q.search !== undefined ? { search: q.search } : {}),
              ...(q.offset !== undefined ? { offset: q.offset } : {}),
              ...(q.levelOne !== undefined ? { levelOne: q.levelOne } : {}),
            },
            { priority: 'interactive' },
          ),
        );
      } catch (error) {
        // The partner's 400 names the bad identifier or parameter; it is the caller's to fix.
        if (error instanceof PartnerError && (error.status === 0 || error.status === 400 || error.status === 422))
          throw new HttpError(400, 'invalid_request', error.message, { field: 'query' });
        throw error;
      }
    }),
  );

  router.get(
    '/personas',
    route(async (_req, res) => {
      res.json({ personas: await service.store.discovery.personas() });
    }),
  );

  router.get(
    '/personas/:name',
    route(async (req, res) => {
      const name = parse(PersonaName, req.params.name);
      const persona = await service.store.discovery.persona(name);
      if (!persona)
        throw new HttpError(404, 'not_found', `name: no saved persona is called "${name}"`, { field: 'name' });
      res.json(persona);
    }),
  );

  router.put(
    '/personas/:name',
    route(async (req, res) => {
      const name = parse(PersonaName, req.params.name);
      const body = parse(PersonaBody, req.body);
      const filters = await service.discovery.checkFilters(body.filters);
      const created = await service.store.discovery.savePersona(name, filters, body.description ?? null);
      res.status(created ? 201 : 200).json(await service.store.discovery.persona(name));
    }),
  );

  router.delete(
    '/personas/:name',
    route(async (req, res) => {
      const name = parse(PersonaName, req.params.name);
      if (!(await service.store.discovery.deletePersona(name)))
        throw new HttpError(404, 'not_found', `name: no saved persona is called "${name}"`, { field: 'name' });
      res.status(204).end();
    }),
  );

  router.post(
    '/discovery/preview',
    route(async (req, res) => {
      const body = parse(DiscoveryBody, req.body);
      res.json(await service.discovery.preview(body));
    }),
  );

  router.post(
    '/discovery/run',
    route(async (req, res) => {
      const { runId = randomUUID(), ...body } = parse(RunBody, req.body);
      if (runs.has(runId))
        throw new HttpError(409, 'run_exists', `runId: a run with id ${runId} was already started`, { field: 'runId' });
      runs.set(runId, { total: 0, done: 0, created: 0, linked: 0, skipped: 0, finished: false });
      try {
        const result = await service.discovery.run(body, (p) => runs.set(runId, { ...p, finished: false }));
        runs.set(runId, {
          total: result.people.length,
          done: result.people.length,
          created: result.created,
          linked: result.linked,
          skipped: result.skipped,
          finished: true,
        });
        res.json({ runId, ...result });
      } finally {
        const progress = runs.get(runId);
        if (progress) progress.finished = true;
        setTimeout(() => runs.delete(runId), RUN_MEMORY_MS).unref();
      }
    }),
  );

  router.get(
    '/discovery/runs/:runId',
    route(async (req, res) => {
      const progress = runs.get(String(req.params.runId));
      if (!progress)
        throw new HttpError(404, 'not_found', 'runId: no discovery run with this id is under way on this instance', {
          field: 'runId',
        });
      res.json(progress);
    }),
  );

  router.post(
    '/discovery/schedule/run',
    route(async (_req, res) => {
      res.json(await service.discoverScheduledNow());
    }),
  );

  return router;
}
