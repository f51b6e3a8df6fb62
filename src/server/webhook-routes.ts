/**
 * Webhook routes: verify and parse with the connector's handler, store the events durably, and only
 * then acknowledge. Everything else happens in the workers. A request we cannot store is answered
 * with the connector's 5xx reply so the CRM delivers it again.
 */
import express, { type Request, type Response, Router } from 'express';
import { type CrmConnector, type RecordEvent, WebhookError } from '../core/connector.js';
import { logger } from '../logger.js';
import type { Metrics } from './metrics.js';

const log = logger('server.webhooks');

export interface IngestResult {
  stored: number;
  duplicates: number;
  /** Valid events with nothing to do: objects with no mapping, echoes of our own writes. */
  ignored: number;
}

export interface WebhookRoutesOptions {
  connectors: CrmConnector[];
  /** Stores the events durably (one round trip); resolves only once they are safe. */
  ingest: (events: RecordEvent[]) => Promise<IngestResult>;
  /** The public base URL the CRMs call; HubSpot signs the full URL it called. */
  publicUrl: string;
  metrics: Metrics;
  /** Largest body accepted, in bytes. */
  maxBodyBytes?: number;
}

export function webhookRoutes(options: WebhookRoutesOptions): Router {
  const router = Router();
  const bySource = new Map(options.connectors.map((c) => [c.kind as string, c]));
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const publicBase = options.publicUrl.replace(/\/+$/, '');

  const handle = async (req: Request, res: Response) => {
    const source = String(req.params.source);
    const connector = bySource.get(source);
    if (!connector) {
      res.status(404).json({ error: { code: 'unknown_source', message: `no connector is configured for '${source}'` } });
      return;
    }
    const handler = connector.webhook;
    const reply = (r: { status: number; contentType: string; body: string }) =>
      res.status(r.status).type(r.contentType).send(r.body);

    const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    let parsed: ReturnType<typeof handler.parse>;
    try {
      parsed = handler.parse({
        method: req.method,
        url: publicBase + req.originalUrl,
        headers: flattenHeaders(req.headers),
        rawBody,
        params: req.params.secret ? { secret: String(req.params.secret) } : {},
      });
    } catch (error) {
      // A parser that throws on some input is a bug to fix, but the sender still gets its own format.
      log.error({ source, err: error }, 'a webhook parser threw; the delivery is refused');
      parsed = { ok: false, error: new WebhookError(400, 'unparseable', 'the request could not be parsed') };
    }
    if (!parsed.ok) {
      options.metrics.eventsReceived.inc({ source, outcome: 'rejected' });
      log.warn({ source, status: parsed.error.status, code: parsed.error.code }, 'webhook refused');
      reply(handler.errorReply(parsed.error));
      return;
    }
    try {
      const result = parsed.events.length ? await options.ingest(parsed.events) : { stored: 0, duplicates: 0, ignored: 0 };
      options.metrics.eventsReceived.inc({ source, outcome: 'stored' }, result.stored);
      options.metrics.eventsReceived.inc({ source, outcome: 'duplicate' }, result.duplicates);
      options.metrics.eventsReceived.inc({ source, outcome: 'ignored' }, result.ignored);
      reply(handler.ackReply(parsed.events));
    } catch (error) {
      options.metrics.eventsReceived.inc({ source, outcome: 'store_failed' }, parsed.events.length);
      log.error({ source, err: error }, 'could not store webhook events; the CRM will deliver them again');
      // Nothing was acknowledged: the CRM delivers again (HubSpot and Salesforce both retry a 5xx).
      res.set('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
      reply(handler.errorReply(new WebhookError(503, 'store_unavailable', 'events could not be stored; deliver again later')));
    }
  };

  const rawParser = express.raw({ type: () => true, limit: maxBodyBytes });
  // An oversize or unreadable body is refused in the connector's own wire format, with nothing stored.
  const raw = (req: Request, res: Response, next: (err?: unknown) => void) =>
    rawParser(req, res, (err?: unknown) => {
      if (!err) return next();
      const connector = bySource.get(String(req.params.source));
      const tooLarge = (err as { type?: string }).type === 'entity.too.large';
      const error = tooLarge
        ? new WebhookError(413, 'body_too_large', `the body is larger than ${maxBodyBytes} bytes`)
        : new WebhookError(400, 'unreadable_body', 'the request body could not be read');
      // Labels come from a closed set: a path segment anyone can choose would grow /metrics without end.
      options.metrics.eventsReceived.inc({ source: connector ? connector.kind : 'unknown', outcome: 'rejected' });
      if (!connector) return next(err);
      const r = connector.webhook.errorReply(error);
      res.status(r.status).type(r.contentType).send(r.body);
    });
  router.post('/webhooks/:source', raw, handle);
  router.post('/webhooks/:source/:secret', raw, handle);
  return router;
}

/** What a 503 asks the CRM to wait before delivering again while the database is away. */
const STORE_RETRY_AFTER_SECONDS = 30;

function flattenHeaders(headers: Request['headers']): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}
