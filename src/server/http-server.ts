/**
 * The service's HTTP server, with limits on how long a client may take to send a request. Node's
 * defaults let a request's head take a minute and its body five minutes, and check only every 30 s:
 * enough for a few hundred slow senders to hold a connection and a buffer each for minutes.
 */
import { createServer, type Server } from 'node:http';
import type { Config } from '../config.js';

/** How long the request line and headers may take to arrive. */
export const HEADERS_TIMEOUT_MS = 10_000;
/**
 * How long a whole request may take to arrive (not its answer: MCP streams are unaffected). Webhook
 * bodies have their own, shorter deadline (webhook-routes.ts).
 */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Webhook senders keep connections open; let them idle out rather than hold shutdown. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

export function createHttpServer(): Server {
  const server = createServer({
    headersTimeout: HEADERS_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // The two timeouts above are enforced when Node checks its connections: every second, not every 30.
    connectionsCheckingInterval: 1_000,
  });
  return server;
}

/** The webhook body limits the configuration sets (WEBHOOK_BODY_TIMEOUT_SECONDS, WEBHOOK_BODY_BUDGET_MB). */
export function webhookBodyLimits(config: Pick<Config, 'WEBHOOK_BODY_TIMEOUT_SECONDS' | 'WEBHOOK_BODY_BUDGET_MB'>) {
  return {
    bodyTimeoutMs: config.WEBHOOK_BODY_TIMEOUT_SECONDS * 1000,
    bodyBudgetBytes: config.WEBHOOK_BODY_BUDGET_MB * 1024 * 1024,
  };
}
