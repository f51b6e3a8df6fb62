/**
 * What the CRM entry points (HubSpot workflow action and record card, Salesforce flow action) need from
 * the running service, and the request plumbing they share: the raw body (signatures are over its
 * bytes), HubSpot's v3 signature check, and answers in the API's error shape.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { verifyHubspotSignature } from '../../connectors/hubspot/signature.js';
import type { Config } from '../config.js';
import type { CrmConnector } from '../core/connector.js';
import type { Priority } from '../core/limiter.js';
import type { OnDemandDeps } from '../enrich/on-demand/on-demand.js';
import type { EnqueuePort } from '../enrich/ports.js';
import { logger } from '../logger.js';
import type { Store } from '../store/store.js';
import { HttpError, sendError } from './http-error.js';

const log = logger('server.entry-points');

export interface EntryPointContext {
  readonly config: Pick<
    Config,
    'HUBSPOT_CLIENT_SECRET' | 'SALESFORCE_WEBHOOK_SECRET' | 'HUBSPOT_ACTION_WAIT_MS' | 'SALESFORCE_ACTION_WAIT_MS'
  >;
  readonly store: {
    readonly recordView: Store['recordView'];
    readonly audit: Pick<Store['audit'], 'record'>;
    readonly queue: Pick<Store['queue'], 'lookup'>;
    readonly workflowCallbacks: Pick<Store['workflowCallbacks'], 'add'>;
  };
  readonly ports: { readonly enqueue: EnqueuePort };
  readonly connectors: readonly CrmConnector[];
  readonly mappings: { get(crm: string, objectType: string): unknown };
  readonly enricher: { wake(connection: string, objectType: string, priority: Priority): void };
}

/** The on-demand enrichment's view of the store and queue (src/enrich/on-demand.ts). */
export function onDemandDeps(ctx: EntryPointContext): OnDemandDeps {
  return {
    enqueue: ctx.ports.enqueue,
    wake: (connection, objectType, priority) => ctx.enricher.wake(connection, objectType, priority),
    audit: async (key, limit) => (await ctx.store.recordView(key, limit)).audit,
    note: async (entries) => void (await ctx.store.audit.record(entries)),
    jobs: (queue, ids) => ctx.store.queue.lookup(queue, ids),
  };
}

/** Keeps the body's bytes as they came (req.body is a Buffer after it). */
export const rawBody = express.raw({ type: () => true, limit: '1mb' });

export function bodyOf(req: Request): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

export function jsonOf(req: Request): unknown {
  try {
    return JSON.parse(bodyOf(req).toString('utf8'));
  } catch {
    throw new HttpError(400, 'invalid_json', 'body: not valid JSON', { field: 'body' });
  }
}

/**
 * Refuses (401) a request HubSpot did not sign with the app's client secret: v3 over the method, the
 * URL as HubSpot called it (PUBLIC_URL and the path with its query), the body and the timestamp.
 */
export function checkHubspotSignature(req: Request, ctx: EntryPointContext, publicBase: string): void {
  const secret = ctx.config.HUBSPOT_CLIENT_SECRET;
  if (!secret)
    throw new HttpError(
      401,
      'not_configured',
      "HubSpot requests cannot be verified: set HUBSPOT_CLIENT_SECRET to the app's client secret.",
    );
  const check = verifyHubspotSignature(
    { method: req.method, url: publicBase + req.originalUrl, rawBody: bodyOf(req), header: (name) => req.get(name) },
    { clientSecret: secret },
  );
  if (!check.ok)
    throw new HttpError(
      401,
      'invalid_signature',
      `HubSpot signature rejected: ${check.reason}. Check HUBSPOT_CLIENT_SECRET and PUBLIC_URL.`,
    );
}

/** The connected HubSpot connector, or a 503 naming what to set. */
export function hubspotOf(ctx: EntryPointContext): CrmConnector {
  const connector = ctx.connectors.find((c) => c.crm === 'hubspot');
  if (!connector) throw new HttpError(503, 'not_configured', 'HubSpot is not connected: set HUBSPOT_ACCESS_TOKEN.');
  return connector;
}

/**
 * The answer for an error thrown in an entry point: its own status and code, or a 500 with the detail only in the log.
 */
export function entryPointErrors(error: unknown, req: Request, res: Response, _next: NextFunction): void {
  if (error instanceof HttpError) return sendError(res, error.status, error.code, error.message, error.details);
  const status = (error as { status?: number }).status;
  if (status === 413) return sendError(res, 413, 'body_too_large', 'body: larger than 1 MB', { field: 'body' });
  // The body parser's other refusals (an aborted or malformed upload) are the caller's to fix.
  if (status !== undefined && status >= 400 && status < 500)
    return sendError(res, status, 'unreadable_body', 'body: could not be read', { field: 'body' });
  log.error({ err: error, path: req.path }, 'a CRM entry point failed');
  sendError(res, 500, 'internal', 'the request could not be handled; the service log has the error');
}
