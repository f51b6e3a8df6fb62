/**
 * The endpoints the CRMs call from inside themselves (docs/crm-entry-points.md), mounted from the
 * entry point registry, every one the same way (src/core/entry-point.ts): its head checked before a
 * byte of the body is read, then the body read within the webhooks' body budget and deadline, parsed by
 * the entry point into a neutral request, run against the on-demand enrichment, and the outcome
 * rendered by the entry point. Nothing here knows which CRM calls.
 */
import { Router, type NextFunction, type Request, type Response } from 'express';
import { EntryPointError, type EntryPoint, type EntryPointHead, type EntryPointRegistry } from '../core/entry-point.js';
import { logger } from '../logger.js';
import type { BodyBudget } from './body-budget.js';
import type { EntryPointContext } from './entry-point-context.js';
import { sendError } from './http-error.js';
import { onDemandRunner, type OnDemandRunner } from './on-demand-requests.js';
import { BodyReadError, readBody } from './webhook-body.js';
import { flattenHeaders } from './webhook-routes.js';

const log = logger('server.entry-points');

/**
 * The largest body an entry point takes, sized to the largest valid request with room to spare. The
 * largest is a flow action of 200 records (FLOW_ACTION_MAX_RECORDS): Apex serialises each as
 * `{"type":"Account","id":"001000000000000AAA"}`, 45 bytes with its comma, so about 9 KB with the org id.
 * HubSpot's workflow execution request for our action (no input fields, no object properties asked for)
 * is about 1 KB, and a card call has no body. 64 KiB leaves seven times the largest for whitespace and
 * fields the CRMs may add, and is what the body budget counts as a small body; a caller that declares
 * more is refused from the head, one that sends more is cut off at the limit.
 */
const MAX_BODY_BYTES = 64 * 1024;

/** What a 503 asks the caller to wait while the body budget is full (as for webhooks). */
const BUSY_RETRY_AFTER_SECONDS = 10;

export interface CrmEntryPointsOptions {
  registry: EntryPointRegistry;
  context: EntryPointContext;
  /** The public base URL the CRMs call; a signature may cover the full URL the CRM called. */
  publicUrl: string;
  /** The webhooks' body budget, shared with them. */
  budget: BodyBudget;
  /** How long a body may take to arrive after its head. */
  bodyTimeoutMs: number;
}

export function crmEntryPoints(options: CrmEntryPointsOptions): Router {
  const publicBase = options.publicUrl.replace(/\/+$/, '');
  const run = onDemandRunner(options.context);
  const router = Router();
  for (const entryPoint of options.registry.flatMap((crm) => crm.entryPoints)) {
    const handle = (req: Request, res: Response) =>
      receive(entryPoint, req, res, { ...options, publicBase, run }).catch((error: unknown) => {
        log.error({ err: error, path: req.path }, 'a CRM entry point failed');
        if (res.headersSent) return void res.destroy();
        sendError(res, 500, 'internal', 'the request could not be handled; the service log has the error');
      });
    if (entryPoint.method === 'GET') router.get(entryPoint.path, handle);
    else router.post(entryPoint.path, handle);
  }
  router.use(entryPointErrors);
  return router;
}

type Receiving = CrmEntryPointsOptions & { publicBase: string; run: OnDemandRunner };

async function receive(entryPoint: EntryPoint, req: Request, res: Response, options: Receiving): Promise<void> {
  const head: EntryPointHead = {
    method: req.method,
    url: options.publicBase + req.originalUrl,
    headers: flattenHeaders(req.headers),
    params: Object.fromEntries(Object.entries(req.params).map(([name, value]) => [name, String(value)])),
    query: Object.fromEntries(
      Object.entries(req.query as Record<string, unknown>).filter(
        (e): e is [string, string] => typeof e[1] === 'string',
      ),
    ),
  };
  const refusal = entryPoint.verifyHead(head) ?? bodyHeadRefusal(req);
  // Whatever of the body has not been read is never read: the connection closes after the answer.
  if (refusal) return refuse(res, refusal, true);
  const declared = declaredLength(req);
  // A body that declares no length may grow to the limit: it is counted at the limit.
  const reservation = options.budget.reserve(declared ?? MAX_BODY_BYTES);
  if (!reservation) {
    res.setHeader('Retry-After', String(BUSY_RETRY_AFTER_SECONDS));
    const busy = new EntryPointError(
      503,
      'busy',
      'too many request bodies are being received at once; try again later',
    );
    return refuse(res, busy, true);
  }
  try {
    let rawBody: Buffer;
    try {
      rawBody = await readBody(req, {
        maxBytes: MAX_BODY_BYTES,
        declaredBytes: declared,
        timeoutMs: options.bodyTimeoutMs,
      });
    } catch (error) {
      const failure = error instanceof BodyReadError ? error.failure : 'aborted';
      if (failure === 'aborted') return void res.destroy();
      const seconds = Math.round(options.bodyTimeoutMs / 1000);
      return refuse(
        res,
        failure === 'too_large'
          ? tooLarge()
          : new EntryPointError(408, 'body_too_slow', `body: did not arrive within ${seconds} s`, { field: 'body' }),
        true,
      );
    }
    const request = await entryPoint.parse({ ...head, rawBody });
    const reply = await entryPoint.render(request, await options.run(request));
    res.status(reply.status).json(reply.body);
  } catch (error) {
    if (!(error instanceof EntryPointError)) throw error;
    refuse(res, error);
  } finally {
    reservation.release();
  }
}

const tooLarge = () => new EntryPointError(413, 'body_too_large', 'body: larger than 64 KB', { field: 'body' });

/** What the head says of the body that the server refuses whatever the entry point: too large, compressed. */
function bodyHeadRefusal(req: Request): EntryPointError | undefined {
  const declared = declaredLength(req);
  if (declared !== undefined && declared > MAX_BODY_BYTES) return tooLarge();
  if (!/^(identity)?$/i.test(req.headers['content-encoding'] ?? '')) {
    const message = 'body: send it uncompressed (no Content-Encoding)';
    return new EntryPointError(415, 'unsupported_encoding', message, { field: 'body' });
  }
  return undefined;
}

/** The body's declared length: Content-Length, none with a chunked body, and 0 when neither is sent. */
function declaredLength(req: Request): number | undefined {
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length);
  return req.headers['transfer-encoding'] === undefined ? 0 : undefined;
}

function refuse(res: Response, error: EntryPointError, close = false): void {
  if (close) res.setHeader('Connection', 'close');
  sendError(res, error.status, error.code, error.message, error.details);
}

/**
 * The answer for an error Express met before a handler ran (a path that cannot be decoded): its own status
 * when it is the caller's, or a 500 with the detail only in the log.
 */
function entryPointErrors(error: unknown, req: Request, res: Response, _next: NextFunction): void {
  const status = (error as { status?: number }).status;
  if (status !== undefined && status >= 400 && status < 500)
    return sendError(res, status, 'unreadable_body', 'body: could not be read', { field: 'body' });
  log.error({ err: error, path: req.path }, 'a CRM entry point failed');
  sendError(res, 500, 'internal', 'the request could not be handled; the service log has the error');
}
