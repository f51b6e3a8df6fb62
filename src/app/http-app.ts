/**
 * The service's HTTP app, built from its parts: webhooks to the intake, the CRM entry points, the admin
 * API and page, MCP, health and metrics. It is made once the service knows the URL it is reached on,
 * because HubSpot signs the URL it calls.
 */
import { mcpApp } from '../mcp/mcp-app.js';
import { AdminTokenCheck } from '../auth/admin-token.js';
import { adminRoutes } from '../server/admin-routes.js';
import { createApp } from '../server/app.js';
import { webhookBodyLimits } from '../server/http-server.js';
import type { Parts } from '../service/parts.js';
import type { HttpApp } from '../service/service.js';

export function httpApp(parts: Parts, adminToken: string | undefined): HttpApp {
  const { config } = parts;
  // One throttle for wrong admin tokens, wherever they are tried (admin API, MCP consent page).
  const tokenCheck = adminToken ? new AdminTokenCheck(adminToken) : undefined;
  const refreshGauges = gaugeRefresher(parts);
  return (publicUrl, readiness) =>
    createApp({
      connectors: parts.connectors,
      ingest: (events) => parts.intake.receive(events),
      publicUrl,
      metrics: parts.metrics,
      ...webhookBodyLimits(config),
      readiness,
      beforeMetrics: refreshGauges,
      entryPoints: { registry: parts.entryPoints, context: parts },
      ...(tokenCheck ? { admin: adminRoutes(parts, tokenCheck) } : {}),
      // Consent is given with the admin token: without one there is nobody to ask.
      ...(tokenCheck && config.MCP_ENABLED ? { mcp: mcpApp({ service: parts, config, publicUrl, tokenCheck }) } : {}),
    });
}

/** Sets the gauges /metrics reports from counts kept elsewhere: queue depths, and CRM calls since the last scrape. */
function gaugeRefresher({ store, connectors, metrics }: Parts): () => Promise<void> {
  const crmCallsSeen = new Map<string, number>();
  return async () => {
    for (const q of await store.queue.counts()) metrics.queueDepth.set({ queue: q.queue }, q.depth + q.active);
    for (const connector of connectors) {
      for (const [operation, n] of Object.entries(connector.stats().byOperation)) {
        const key = `${connector.crm}:${operation}`;
        const delta = n - (crmCallsSeen.get(key) ?? 0);
        if (delta > 0) metrics.crmCalls.inc({ crm: connector.crm, operation }, delta);
        crmCallsSeen.set(key, n);
      }
    }
  };
}
