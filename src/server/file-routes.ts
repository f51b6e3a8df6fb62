/**
 * The admin API of file enrichment: upload a CSV file (the request body, as it is) to start a job,
 * watch the job's preview and progress, go on with one that stopped, and download its result file.
 * Mounted inside the admin router, behind its token. Errors name the field: `connection`, `object`,
 * `map`, `file`, `id`.
 */
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { FileColumnsError } from '../enrich/listing/file/file-columns.js';
import { FileJobError } from '../enrich/listing/file/file-jobs.js';
import type { AdminContext } from './admin-context.js';
import { parse, route } from './admin-request.js';
import { sendError } from './http-error.js';

const flag = z
  .enum(['true', 'false', '1', '0', ''], { error: 'must be true or false' })
  .optional()
  .transform((v) => v === 'true' || v === '1' || v === '');

const UploadQuery = z.object({
  connection: z.string({ error: 'connection is required' }).min(1, 'connection is required'),
  object: z.string({ error: 'object is required' }).min(1, 'object is required'),
  /** `header=key`, repeated. */
  map: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v])),
  relookup: flag,
  dryRun: flag,
  fileName: z.string().max(255, 'fileName: at most 255 characters').default('upload.csv'),
});

const STATUS: Record<FileJobError['code'], number> = {
  unknown_object: 404,
  file_too_large: 413,
  job_not_found: 404,
  result_not_ready: 409,
  invalid_file_job: 400,
  not_resumable: 409,
};

export function fileRoutes(service: AdminContext): Router {
  const router = Router();

  router.post(
    '/file-enrichments',
    route(async (req, res) => {
      const query = parse(UploadQuery, req.query);
      const job = await service.files.create(query, req);
      res.status(202).location(`file-enrichments/${job.id}`).json(job);
    }),
  );

  router.get(
    '/file-enrichments',
    route(async (_req, res) => {
      res.json({ jobs: await service.files.list() });
    }),
  );

  router.get(
    '/file-enrichments/:id',
    route(async (req, res) => {
      res.json(await service.files.get(String(req.params.id)));
    }),
  );

  router.post(
    '/file-enrichments/:id/resume',
    route(async (req, res) => {
      res.status(202).json(await service.files.resume(String(req.params.id)));
    }),
  );

  router.get(
    '/file-enrichments/:id/result',
    route(async (req, res) => {
      const { job, path } = await service.files.result(String(req.params.id));
      const name = `${job.fileName.replace(/\.csv$/i, '')}-enriched.csv`.replace(/[^\w.-]/g, '_');
      res.setHeader('content-type', 'text/csv; charset=utf-8');
      res.setHeader('content-disposition', `attachment; filename="${name}"`);
      await pipeline(createReadStream(path), res);
    }),
  );

  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (error instanceof FileJobError)
      return sendError(res, STATUS[error.code], error.code, error.message, { field: error.field ?? 'file' });
    if (error instanceof FileColumnsError)
      return sendError(res, 422, error.code, error.message, { field: error.field });
    next(error);
  });
  return router;
}
