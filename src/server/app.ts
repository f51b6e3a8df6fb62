/**
 * The HTTP face of the service: webhooks, health, metrics and the admin API and page. Routes only parse,
 * store and answer; the work happens in the enrichment lanes.
 */
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { CrmConnector, RecordEvent } from '../core/connector.js';
import { logger } from '../logger.js';
import { adminPage } from './admin-page/admin-page.js';
import { sendError } from './http-error.js';
import type { Metrics } from './metrics.js';
import { webhookRoutes, type IngestResult } from './webhook-routes.js';

const log = logger('server');

export interface ReadinessCheck {
  name: string;
  check: () => Promise<void>;
}

export interface AppOptions {
  connectors: CrmConnector[];
  ingest: (events: RecordEvent[]) => Promise<IngestResult>;
  publicUrl: string;
  metrics: Metrics;
  readiness: ReadinessCheck[];
  /** Refreshes gauges (queue depth) just before /metrics answers. */
  beforeMetrics?: () => Promise<void>;
  admin?: express.Router;
  maxBodyBytes?: number;
}

export function createApp(options: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);

  app.use(webhookRoutes(options));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      options.readiness.map(async ({ name, check }) => {
        try {
          await check();
          return { name, ok: true as const };
        } catch (error) {
          return { name, ok: false as const, message: (error as Error).message };
        }
      }),
    );
    const ready = results.every((r) => r.ok);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks: results });
  });

  app.get('/metrics', async (_req, res) => {
    try {
      await options.beforeMetrics?.();
    } catch (error) {
      log.warn({ err: error }, 'could not refresh gauges before a scrape');
    }
    res.type(options.metrics.registry.contentType).send(await options.metrics.registry.metrics());
  });

  if (options.admin) {
    app.use('/admin/api', options.admin);
    app.use('/admin', adminPage());
  }

  app.use((_req: Request, res: Response) => sendError(res, 404, 'not_found', 'no such route'));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (error as { status?: number }).status;
    if (status && status >= 400 && status < 500) {
      sendError(res, status, (error as { type?: string }).type ?? 'bad_request', (error as Error).message);
      return;
    }
    log.error({ err: error }, 'unexpected error in a route');
    sendError(res, 500, 'internal', 'the service failed to answer; see its log');
  });
  return app;
}
