/**
 * Webhook routes: verify and parse with the connector's handler, store the events durably, and only
 * then acknowledge. Everything else happens in the workers. A request we cannot store is answered
 * with the connector's 5xx reply so the CRM delivers it again.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Request, type Response, Router } from 'express';
import {
  type CrmConnector,
  type HttpReply,
  type RecordEvent,
  type WebhookHead,
  WebhookError,
} from '../core/connector.js';
import { logger } from '../logger.js';
import type { BodyBudget } from './body-budget.js';
import { BodyReadError, readBody } from './webhook-body.js';
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
  /** The public base URL the CRMs call; a signature may cover the full URL the CRM called. */
  publicUrl: string;
  metrics: Metrics;
  /** Largest body accepted, in bytes. */
  maxBodyBytes?: number;
  /** How long a body may take to arrive after its head (default 10 s); then the connection is closed. */
  bodyTimeoutMs?: number;
  /** The body bytes held at once across requests, shared with the CRM entry points; beyond it, 503 with Retry-After. */
  budget: BodyBudget;
}

/** How long a body may take to arrive after its head, unless configured (WEBHOOK_BODY_TIMEOUT_SECONDS). */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

/**
 * The webhook endpoint, two ways in. `listener` takes POST /webhooks/<crm>[/<secret>] for a
 * configured CRM straight from Node's HTTP server, ahead of Express: in `bench ingest` the
 * service's process spent 0.83-0.87 ms on a delivery through Express and 0.44-0.47 ms without
 * (docs/benchmarks.md, ingest), on the path every delivery takes.
 * Anything it does not recognise (another method, an unknown CRM, an odd path) it leaves to
 * `router`, the same routes mounted in Express, so every request is answered as before.
 */
export interface WebhookEndpoint {
  router: Router;
  /** Handles the request and returns true, or returns false and leaves it untouched. */
  listener(req: IncomingMessage, res: ServerResponse): boolean;
}

/** Middleware that works on Node's own request and response (helmet's does). */
type NodeMiddleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

export function webhookRoutes(options: WebhookRoutesOptions & { securityHeaders: NodeMiddleware }): WebhookEndpoint {
  const byCrm = new Map(options.connectors.map((c) => [c.crm as string, c]));
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const publicBase = options.publicUrl.replace(/\/+$/, '');

  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const tooLarge = () => new WebhookError(413, 'body_too_large', `the body is larger than ${maxBodyBytes} bytes`);
  const budget = options.budget;

  type RefusalOutcome = 'rejected' | 'busy';
  const refuse = (
    res: ServerResponse,
    connector: CrmConnector,
    error: WebhookError,
    outcome: RefusalOutcome = 'rejected',
  ) => {
    options.metrics.eventsReceived.inc({ crm: connector.crm, outcome });
    log.warn({ crm: connector.crm, status: error.status, code: error.code }, 'webhook refused');
    // Whatever of the body has not been read is never read: the connection closes after the answer.
    send(res, connector.webhook.errorReply(error), true);
  };

  const handle = async (head: WebhookHead, rawBody: Buffer, res: ServerResponse, connector: CrmConnector) => {
    const crm = connector.crm;
    const handler = connector.webhook;
    let parsed: ReturnType<typeof handler.parse>;
    try {
      parsed = handler.parse({ ...head, rawBody });
    } catch (error) {
      // A parser that throws on some input is a bug to fix, but the sender still gets its own format.
      log.error({ crm, err: error }, 'a webhook parser threw; the delivery is refused');
      parsed = { ok: false, error: new WebhookError(400, 'unparseable', 'the request could not be parsed') };
    }
    if (!parsed.ok) {
      options.metrics.eventsReceived.inc({ crm, outcome: 'rejected' });
      log.warn({ crm, status: parsed.error.status, code: parsed.error.code }, 'webhook refused');
      send(res, handler.errorReply(parsed.error));
      return;
    }
    try {
      const result = parsed.events.length
        ? await options.ingest(parsed.events)
        : { stored: 0, duplicates: 0, ignored: 0 };
      options.metrics.eventsReceived.inc({ crm, outcome: 'stored' }, result.stored);
      options.metrics.eventsReceived.inc({ crm, outcome: 'duplicate' }, result.duplicates);
      options.metrics.eventsReceived.inc({ crm, outcome: 'ignored' }, result.ignored);
      send(res, handler.ackReply(parsed.events));
    } catch (error) {
      options.metrics.eventsReceived.inc({ crm, outcome: 'store_failed' }, parsed.events.length);
      log.error({ crm, err: error }, 'could not store webhook events; the CRM will deliver them again');
      // Nothing was acknowledged: the CRM delivers again (both CRMs retry a 5xx).
      res.setHeader('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
      send(
        res,
        handler.errorReply(
          new WebhookError(503, 'store_unavailable', 'events could not be stored; deliver again later'),
        ),
      );
    }
  };

  /**
   * Everything the head decides is decided before a byte of the body is read: the connector's checks
   * (signature headers, path secret), the declared length, the encoding and room in the body budget.
   * Only then is the body read, within its deadline, and handed to the connector's parser.
   */
  const receive = (
    req: IncomingMessage,
    res: ServerResponse,
    url: string,
    connector: CrmConnector,
    secret: string | undefined,
  ) => {
    const head: WebhookHead = {
      method: req.method ?? 'POST',
      url: publicBase + url,
      headers: flattenHeaders(req.headers),
      params: secret ? { secret } : {},
    };
    const length = req.headers['content-length'];
    const declared = length === undefined ? undefined : Number(length);
    let refusal: WebhookError | undefined;
    try {
      refusal = connector.webhook.verifyHead(head);
    } catch (error) {
      log.error({ crm: connector.crm, err: error }, 'a webhook head check threw; the delivery is refused');
      refusal = new WebhookError(400, 'unparseable', 'the request could not be parsed');
    }
    if (!refusal && declared !== undefined && declared > maxBodyBytes) refusal = tooLarge();
    if (!refusal && !/^(identity)?$/i.test(req.headers['content-encoding'] ?? '')) {
      refusal = new WebhookError(415, 'unsupported_encoding', 'send the body uncompressed (no Content-Encoding)');
    }
    if (refusal) return refuse(res, connector, refusal);
    // A body that declares no length may grow to the limit: it is counted at the limit.
    const reservation = budget.reserve(declared ?? maxBodyBytes);
    if (!reservation) {
      res.setHeader('Retry-After', String(BUSY_RETRY_AFTER_SECONDS));
      const busy = new WebhookError(
        503,
        'busy',
        'too many webhook bodies are being received at once; deliver again later',
      );
      return refuse(res, connector, busy, 'busy');
    }
    readBody(req, { maxBytes: maxBodyBytes, declaredBytes: declared, timeoutMs: bodyTimeoutMs })
      .then(
        (rawBody) => handle(head, rawBody, res, connector),
        (error: unknown) => {
          const failure = error instanceof BodyReadError ? error.failure : 'aborted';
          if (failure === 'aborted') return void res.destroy();
          const seconds = Math.round(bodyTimeoutMs / 1000);
          refuse(
            res,
            connector,
            failure === 'too_large'
              ? tooLarge()
              : new WebhookError(408, 'body_too_slow', `the body did not arrive within ${seconds} s`),
          );
        },
      )
      .catch((error: unknown) => {
        log.error({ crm: connector.crm, err: error }, 'a webhook delivery could not be answered');
        if (!res.headersSent) sendInternalError(res, connector);
        else res.destroy();
      })
      .finally(() => reservation.release());
  };

  const router = Router();
  const route = (req: Request, res: Response) => {
    const connector = byCrm.get(String(req.params.crm));
    if (!connector) {
      res.status(404).json({
        error: { code: 'unknown_crm', message: `no connector is configured for '${String(req.params.crm)}'` },
      });
      return;
    }
    receive(req, res, req.originalUrl, connector, req.params.secret ? String(req.params.secret) : undefined);
  };
  router.post('/webhooks/:crm', route);
  router.post('/webhooks/:crm/:secret', route);

  return {
    router,
    listener(req, res) {
      if (req.method !== 'POST') return false;
      const match = WEBHOOK_PATH.exec(req.url ?? '');
      const connector = match ? byCrm.get(match[1]!) : undefined;
      if (!match || !connector) return false;
      options.securityHeaders(req, res, (err?: unknown) => {
        if (err) {
          log.error({ err }, 'could not set the security headers; the delivery is refused');
          return sendInternalError(res, connector);
        }
        receive(req, res, req.url!, connector, match[2]);
      });
      return true;
    },
  };
}

/** The paths the listener takes: plain segments only; anything percent-encoded goes through Express. */
const WEBHOOK_PATH = /^\/webhooks\/([A-Za-z0-9_-]+)(?:\/([A-Za-z0-9_-]+))?\/?(?:\?.*)?$/;

/**
 * A connector's reply as Express's `res.type(t).send(body)` gave it, in UTF-8; `close` ends the connection after it.
 */
function send(res: ServerResponse, reply: HttpReply, close = false): void {
  const contentType = /;\s*charset=/i.test(reply.contentType)
    ? reply.contentType
    : `${reply.contentType}; charset=utf-8`;
  res.writeHead(reply.status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(reply.body),
    ...(close ? { Connection: 'close' } : {}),
  });
  res.end(reply.body);
}

/** The connector's own answer for a failure of ours, in its wire format. */
function sendInternalError(res: ServerResponse, connector: CrmConnector): void {
  send(res, connector.webhook.errorReply(new WebhookError(500, 'internal', 'the request could not be handled')));
}

/** What a 503 asks the sender to wait while the body budget is full: slow bodies are gone within seconds. */
const BUSY_RETRY_AFTER_SECONDS = 10;

/** What a 503 asks the CRM to wait before delivering again while the database is away. */
const STORE_RETRY_AFTER_SECONDS = 30;

/** Header names in lower case, each with one value (repeated headers joined as Node joins most). */
export function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}
