/**
 * The admin API of job changes: the moves detected since a time (record, person, from, to, detected
 * at, actions done), by week for the chart, and the sweep over a segment. Mounted inside the admin
 * router, behind its token.
 */
import { Router } from 'express';
import { z } from 'zod';
import { JobChangeSweep, SweepError } from '../enrich/job-changes/sweep.js';
import type { AdminContext } from './admin-context.js';
import { parse, route } from './admin-request.js';
import { HttpError } from './http-error.js';

const ListQuery = z.object({
  since: z.iso
    .datetime({ offset: true, error: 'since must be an ISO 8601 time, e.g. 2026-11-01T00:00:00Z' })
    .optional(),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, 'limit is at least 1')
    .max(1000, 'limit is at most 1000')
    .default(100),
  connection: z.string().min(1).optional(),
});

/** Without `since`, the last four weeks. */
const DEFAULT_DAYS = 28;

export function jobChangeSweepFor(service: AdminContext): JobChangeSweep {
  return new JobChangeSweep({
    connectors: service.connectors,
    mapping: (crm, objectType) => service.mappings.get(crm, objectType),
    state: service.ports.state,
    cache: {
      expire: (keys) =>
        service.store.cache.expire(
          keys.map((k) => ({
            kind: k.kind,
            idType: k.by,
            value: k.value,
            ...(k.market === '*' ? {} : { market: k.market }),
          })),
        ),
    },
    counters: { get: (name) => service.store.counters.get(name) },
    enqueue: service.ports.enqueue,
    dailyBudget: service.config.PARTNER_DAILY_LOOKUP_BUDGET,
    minAgeDays: service.config.JOB_CHANGE_MIN_AGE_DAYS,
  });
}

export function jobChangeRoutes(service: AdminContext): Router {
  const router = Router();
  const sweep = jobChangeSweepFor(service);

  router.get(
    '/job-changes',
    route(async (req, res) => {
      const query = parse(ListQuery, req.query);
      const since = query.since ? new Date(query.since) : new Date(Date.now() - DEFAULT_DAYS * 86_400_000);
      const jobChanges = await service.store.jobChanges.list({
        since,
        limit: query.limit,
        ...(query.connection ? { connection: query.connection } : {}),
      });
      res.json({ since: since.toISOString(), jobChanges, weekly: await service.store.jobChanges.weekly(since) });
    }),
  );

  router.post(
    '/job-changes/sweep',
    route(async (req, res) => {
      try {
        res.json(await sweep.run(req.body));
      } catch (error) {
        if (error instanceof SweepError) throw new HttpError(400, error.code, error.message, { field: error.field });
        throw error;
      }
    }),
  );

  return router;
}
