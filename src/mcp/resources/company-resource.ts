/**
 * `crm-enrich://companies/{market}/{domain}`: the partner's company profile for a website domain in a
 * market, as lookup_company gives it: from the lookup cache, or looked up within the caller's share of
 * the day's credits (one credit). Read scope.
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { resolveMatchValue } from '../../mapping/match-keys.js';
import { Market } from '../../partner/schemas.js';
import { requireScope } from '../scope-challenge.js';
import { RESOURCE_SCOPE } from '../scopes.js';
import { ToolRefusal, type ToolContext } from '../tool-call.js';
import { lookupWithin } from '../tools/lookups.js';
import { jsonContents, readOrRefuse } from './resource-errors.js';

export const COMPANY_URI = 'crm-enrich://companies/{market}/{domain}';

export function companyUri(market: string, domain: string): string {
  return `crm-enrich://companies/${encodeURIComponent(market)}/${encodeURIComponent(domain)}`;
}

export function registerCompanyResource(server: McpServer, ctx: ToolContext): void {
  server.registerResource(
    'company',
    new ResourceTemplate(COMPANY_URI, { list: undefined }),
    {
      title: "A company's partner profile",
      description:
        "The sales-intelligence partner's profile of the company at a website domain (size, industry, " +
        'revenue, registry numbers, locations) in a market such as AU: data the CRM does not hold. ' +
        'One partner credit unless cached.',
      mimeType: 'application/json',
      scopeChallenge: requireScope(RESOURCE_SCOPE),
    },
    (uri, variables) =>
      readOrRefuse(uri, async () => {
        const market = Market.safeParse(decodeURIComponent(String(variables.market)).toUpperCase());
        if (!market.success)
          throw new ToolRefusal(`market: "${String(variables.market)}" is not one of ${Market.options.join(', ')}`);
        const domain = resolveMatchValue('fqdn', decodeURIComponent(String(variables.domain)));
        if (!domain) throw new ToolRefusal(`domain: "${String(variables.domain)}" is not a website domain`);
        const { hit, fromCache } = await lookupWithin(ctx, 'company', { by: 'fqdn', value: domain }, market.data);
        return jsonContents(uri, {
          domain,
          market: market.data,
          found: hit !== null,
          fromCache,
          ...(hit ? { record: hit.data } : {}),
        });
      }),
  );
}
