/**
 * The HTTP face of the service: webhooks, health, metrics, the admin API and page, and the MCP server. Routes only
 * parse, store and answer; the work happens in the enrichment lanes.
 */
import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import type { CrmConnector, RecordEvent } from '../core/connector.js';
import type { EntryPointRegistry } from '../core/entry-point.js';
import { logger } from '../logger.js';
import { adminPage } from './admin-page/admin-page.js';
import { requestBodyBudget } from './body-budget.js';
import { crmEntryPoints } from './crm-entry-points.js';
import type { EntryPointContext } from './entry-point-context.js';
import { sendError } from './http-error.js';
import type { Metrics } from './metrics.js';
import { readinessHandler, type ReadinessCheck } from './readiness.js';
import { DEFAULT_BODY_TIMEOUT_MS, webhookRoutes, type IngestResult } from './webhook-routes.js';

const log = logger('server');

export interface AppOptions {
  connectors: CrmConnector[];
  ingest: (events: RecordEvent[]) => Promise<IngestResult>;
  publicUrl: string;
  metrics: Metrics;
  readiness: ReadinessCheck[];
  /** Refreshes gauges (queue depth) just before /metrics answers. */
  beforeMetrics?: () => Promise<void>;
  admin?: express.Router;
  /**
   * What the CRMs call from inside themselves (workflow and flow actions, the record card): every
   * registered entry point, and the narrow context they run in (crm-entry-points.ts).
   */
  entryPoints?: { registry: EntryPointRegistry; context: EntryPointContext };
  /**
   * The MCP server and its OAuth authorization server, mounted
   * at the root (their paths are fixed by the specifications).
   */
  mcp?: express.Router;
  maxBodyBytes?: number;
  /** See WebhookRoutesOptions; the CRM entry points' bodies have the same deadline. */
  bodyTimeoutMs?: number;
  /** Webhook and entry point body bytes held at once across requests (default 16 MiB). */
  bodyBudgetBytes?: number;
}

/**
 * The server's request listener: webhook deliveries for a configured CRM go straight to their handler
 * (webhook-routes.ts), everything else through the Express app.
 */
export function createApp(options: AppOptions): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  // Every answer is data, never a page to render or frame (the admin page sets its own, wider CSP):
  // nosniff, no framing, no referrer, and a CSP that allows nothing.
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
    },
    referrerPolicy: { policy: 'no-referrer' },
    frameguard: { action: 'deny' },
    // Behind a proxy that terminates TLS this belongs to the proxy; on plain HTTP browsers ignore it.
    strictTransportSecurity: false,
  });
  app.use(securityHeaders);

  const budget = requestBodyBudget(options.bodyBudgetBytes);
  const webhooks = webhookRoutes({ ...options, securityHeaders, budget });
  app.use(webhooks.router);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/readyz', readinessHandler(options.readiness));

  app.get('/metrics', async (_req, res) => {
    try {
      await options.beforeMetrics?.();
    } catch (error) {
      log.warn({ err: error }, 'could not refresh gauges before a scrape');
    }
    res.type(options.metrics.registry.contentType).send(await options.metrics.registry.metrics());
  });

  if (options.entryPoints) {
    const { registry, context } = options.entryPoints;
    const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
    app.use(crmEntryPoints({ registry, context, publicUrl: options.publicUrl, budget, bodyTimeoutMs }));
  }
  if (options.admin) {
    app.use('/admin/api', options.admin);
    app.use('/admin', adminPage());
  }
  if (options.mcp) app.use(options.mcp);

  app.use((_req: Request, res: Response) => sendError(res, 404, 'not_found', 'no such route'));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (error as { status?: number }).status;
    if (status && status >= 400 && status < 500) {
      sendError(res, status, (error as { type?: string }).type ?? 'bad_request', (error as Error).message);
      return;
    }
    const requestId = randomUUID();
    log.error({ err: error, requestId, method: _req.method, path: _req.path }, 'unexpected error in a route');
    res.setHeader('X-Request-Id', requestId);
    sendError(
      res,
      500,
      'internal',
      `the service failed to answer; its log has the error under request id ${requestId}`,
      { requestId },
    );
  });
  return (req, res) => {
    if (!webhooks.listener(req, res)) app(req, res);
  };
}
