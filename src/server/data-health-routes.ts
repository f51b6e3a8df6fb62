/**
 * The admin API of data-health scans: the latest report of one CRM object with the trend of past runs,
 * the running scan's progress, and a new scan. Mounted inside the admin router, behind its token.
 */
import { Router } from 'express';
import { HealthError } from '../enrich/listing/health.js';
import type { AdminContext } from './admin-context.js';
import { route } from './admin-request.js';
import { HttpError } from './http-error.js';

/** A HealthError as the API's error: an unknown connection or object, or no finished scan yet. */
export function healthHttpError(error: HealthError): HttpError {
  const field = error.code === 'unknown_connection' ? 'connection' : 'object';
  return new HttpError(404, error.code, error.message, { field });
}

export function dataHealthRoutes(service: AdminContext): Router {
  const router = Router();
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw error instanceof HealthError ? healthHttpError(error) : error;
    }
  };

  router.get(
    '/data-health/:connection/:object',
    route(async (req, res) => {
      res.json(await guard(() => service.health.report(String(req.params.connection), String(req.params.object))));
    }),
  );

  router.get(
    '/data-health/:connection/:object/runs/current',
    route(async (req, res) => {
      res.json(await guard(() => service.health.progress(String(req.params.connection), String(req.params.object))));
    }),
  );

  router.post(
    '/data-health/:connection/:object/runs',
    route(async (req, res) => {
      res
        .status(202)
        .json(await guard(() => service.health.start(String(req.params.connection), String(req.params.object))));
    }),
  );
  return router;
}
