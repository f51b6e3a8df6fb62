/**
 * `crm-enrich://budget/today`: the day's partner credits (UTC): what the service spent, its budget and
 * hard cap, answers the cache gave for free, and what the caller itself spent of its share. Read
 * scope; spends nothing.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { CACHE_HITS_COUNTER, LOOKUPS_COUNTER } from '../../enrich/partner-lookups.js';
import { requireScope } from '../scope-challenge.js';
import { RESOURCE_SCOPE } from '../scopes.js';
import type { ToolContext } from '../tool-call.js';
import { jsonContents } from './resource-errors.js';

export const BUDGET_URI = 'crm-enrich://budget/today';

export interface BudgetFigures {
  /** PARTNER_DAILY_LOOKUP_BUDGET: where bulk work stops. */
  dailyBudget: number;
  /** PARTNER_DAILY_LOOKUP_HARD_CAP: where work a person waits for stops. */
  hardCap: number;
  /** MCP_CLIENT_REQUESTS_PER_MINUTE. */
  requestsPerMinute: number;
}

export function registerBudgetResource(server: McpServer, ctx: ToolContext, figures: BudgetFigures): void {
  server.registerResource(
    'budget',
    BUDGET_URI,
    {
      title: "Today's partner credit budget",
      description:
        "Today's partner credits (UTC day): spent by the service, its budget and hard cap, lookups the cache " +
        "answered for free, and this client's own share and what it spent of it.",
      mimeType: 'application/json',
      scopeChallenge: requireScope(RESOURCE_SCOPE),
    },
    async (uri) => {
      const { counters } = ctx.service.store;
      return jsonContents(uri, {
        day: new Date().toISOString().slice(0, 10),
        service: {
          creditsSpent: await counters.get(LOOKUPS_COUNTER),
          dailyBudget: figures.dailyBudget,
          hardCap: figures.hardCap,
          cacheAnswers: await counters.get(CACHE_HITS_COUNTER),
        },
        client: {
          clientId: ctx.auth.clientId,
          creditsSpent: await ctx.budget.used(ctx.auth.clientId),
          dailyShare: ctx.budget.dailyLimit,
          requestsPerMinute: figures.requestsPerMinute,
        },
      });
    },
  );
}
