/**
 * Everything MCP, as one router for the app's root: the authorization server (metadata, authorize with
 * the consent page, token, register, revoke), the consent answer, and /mcp itself. Built from the
 * service and its configuration in one place.
 */
import { Router } from 'express';
import type { Config } from '../config.js';
import type { AdminTokenCheck } from '../auth/admin-token.js';
import type { McpContext } from './mcp-context.js';
import { authRoutes } from './auth-routes.js';
import { ClientDocuments, type ClientDocumentsOptions } from './client-documents.js';
import { McpClients } from './clients-store.js';
import { consentRoutes } from './consent-routes.js';
import { mcpRoutes } from './mcp-routes.js';
import { McpOAuthProvider } from './oauth-provider.js';
import { mcpUrls } from './urls.js';

export interface McpAppOptions {
  service: McpContext;
  config: Config;
  publicUrl: string;
  tokenCheck: AdminTokenCheck;
  /** How Client ID Metadata Documents are fetched; only tests set it (a resolver and CA for a local server). */
  clientDocuments?: ClientDocumentsOptions;
}

export function mcpApp({ service, config, publicUrl, tokenCheck, clientDocuments }: McpAppOptions): Router {
  const urls = mcpUrls(publicUrl);
  const store = service.store.mcpAuth;
  const documents = new ClientDocuments(clientDocuments);
  const clients = new McpClients(
    store,
    { clientId: config.MCP_CLIENT_ID, redirectUris: config.MCP_CLIENT_REDIRECT_URIS },
    documents,
  );
  const provider = new McpOAuthProvider(store, clients, urls, {
    accessSeconds: config.MCP_ACCESS_TOKEN_SECONDS,
    refreshDays: config.MCP_REFRESH_TOKEN_DAYS,
  });
  const router = Router();
  router.use(authRoutes(provider, urls));
  router.use(consentRoutes({ store, clients, provider, tokenCheck }));
  router.use(
    mcpRoutes({
      service,
      provider,
      urls,
      enrichWaitMs: config.MCP_ENRICH_WAIT_SECONDS * 1000,
      allowedOrigins: config.MCP_ALLOWED_ORIGINS,
      limits: {
        clientDailyCredits: Math.floor(
          (config.PARTNER_DAILY_LOOKUP_BUDGET * config.MCP_CLIENT_DAILY_LOOKUP_SHARE) / 100,
        ),
        dailyBudget: config.PARTNER_DAILY_LOOKUP_BUDGET,
        hardCap: config.PARTNER_DAILY_LOOKUP_HARD_CAP,
        requestsPerMinute: config.MCP_CLIENT_REQUESTS_PER_MINUTE,
      },
    }),
  );
  return router;
}
