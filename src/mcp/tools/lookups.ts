/**
 * lookup_company and lookup_person: one partner record by any identifier the partner's specification
 * offers, through the service's own lookups (cache shared with the enrichment lanes, single flight,
 * the daily credit budget and the key's rate limiter) and the caller's own share of the credits.
 * Values are normalised as the lanes normalise them, so a lookup here and one for a CRM record share a
 * cache entry.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { resolveMatchValue } from '../../mapping/match-keys.js';
import { COMPANY_LOOKUPS, PERSON_LOOKUPS } from '../../partner/lookup-params.js';
import { Company, DEFAULT_MARKET, Market, Person } from '../../partner/schemas.js';
import { runTool, ToolRefusal, toolScope, type ToolContext } from '../tool-call.js';

const value = z.string().trim().min(1, 'value must not be empty').max(2048, 'value is at most 2048 characters');

const CompanyInput = z.object({
  by: z
    .enum(COMPANY_LOOKUPS)
    .describe(
      'which identifier `value` is: id (partner id), ln_slug, ln_url (professional-network slug or URL), fqdn ' +
        '(domain), abn (Australian business number), website',
    ),
  value: value.describe('the identifier, e.g. acme.com.au for fqdn'),
  market: Market.default(DEFAULT_MARKET).describe('market whose region-specific data to return (AU by default)'),
});
const PersonInput = z.object({
  by: z
    .enum(PERSON_LOOKUPS)
    .describe(
      'which identifier `value` is: id (partner id), ln_slug, ln_url (professional-network slug or URL), ' +
        'work_email, personal_email',
    ),
  value: value.describe('the identifier, e.g. jane.doe@acme.com.au for work_email'),
});
const lookupOutput = <T extends z.ZodType>(record: T) => ({
  found: z.boolean().describe('whether the partner has a record for this identifier'),
  fromCache: z.boolean().describe('answered from the lookup cache (no credit spent), a cached "no match" too'),
  by: z.string(),
  record: record.optional().describe('the partner record, when found'),
});
const CompanyOutput = z.object({ ...lookupOutput(Company), market: Market });
const PersonOutput = z.object(lookupOutput(Person));

function normalised(by: (typeof COMPANY_LOOKUPS)[number] | (typeof PERSON_LOOKUPS)[number], raw: string): string {
  const resolved = resolveMatchValue(by, raw);
  if (resolved === undefined)
    throw new ToolRefusal(`value: this is not a usable ${by} (check its form, e.g. ${EXAMPLES[by]})`);
  return resolved;
}

const EXAMPLES: Record<string, string> = {
  id: 'the partner id from an earlier answer',
  ln_slug: 'acme-pty-ltd',
  ln_url: 'https://www.linkedin.com/company/acme-pty-ltd',
  fqdn: 'acme.com.au',
  abn: '11 digits',
  website: 'https://acme.com.au',
  work_email: 'jane.doe@acme.com.au',
  personal_email: 'jane@example.com',
};

/**
 * One lookup within the caller's share of the day's credits: one credit reserved from it first, given
 * back when the cache answered.
 */
export async function lookupWithin(
  ctx: ToolContext,
  kind: 'company' | 'person',
  key: { by: string; value: string },
  market: Market,
) {
  return ctx.budget.spend(ctx.auth.clientId, 1, async () => {
    const answer = await ctx.service.lookups.lookup(kind, key, market, 'interactive');
    return { value: answer, spent: answer.fromCache ? 0 : 1 };
  });
}

export function registerLookupTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'lookup_company',
    {
      title: 'Look up a company',
      description:
        "The sales-intelligence partner's company profile (size, industry, revenue, registry numbers, " +
        "locations) by one identifier: data the CRM does not hold (HubSpot's own MCP server reads CRM " +
        "records; this one brings the partner's). Spends one partner credit unless cached.",
      inputSchema: CompanyInput,
      outputSchema: CompanyOutput,
      annotations: { readOnlyHint: true, openWorldHint: true },
      scopeChallenge: toolScope('lookup_company'),
    },
    (input) =>
      runTool(ctx, 'lookup_company', async () => {
        const key = { by: input.by, value: normalised(input.by, input.value) };
        const { hit, fromCache } = await lookupWithin(ctx, 'company', key, input.market);
        const result = {
          found: hit !== null,
          fromCache,
          by: input.by,
          market: input.market,
          ...(hit ? { record: hit.data } : {}),
        };
        return {
          result,
          summary:
            `company by ${input.by} in ${input.market}: ` +
            `${hit ? 'found' : 'no match'}${fromCache ? ' (from cache)' : ''}`,
        };
      }),
  );
  server.registerTool(
    'lookup_person',
    {
      title: 'Look up a person',
      description:
        "The sales-intelligence partner's person profile (position, seniority, department, employer, phones, " +
        'e-mails) by one identifier: data the CRM does not hold. Spends one partner credit unless cached.',
      inputSchema: PersonInput,
      outputSchema: PersonOutput,
      annotations: { readOnlyHint: true, openWorldHint: true },
      scopeChallenge: toolScope('lookup_person'),
    },
    (input) =>
      runTool(ctx, 'lookup_person', async () => {
        const key = { by: input.by, value: normalised(input.by, input.value) };
        // People are not region-specific: the market is not part of their lookup.
        const { hit, fromCache } = await lookupWithin(ctx, 'person', key, DEFAULT_MARKET);
        const result = {
          found: hit !== null,
          fromCache,
          by: input.by,
          ...(hit ? { record: hit.data } : {}),
        };
        return {
          result,
          summary: `person by ${input.by}: ${hit ? 'found' : 'no match'}${fromCache ? ' (from cache)' : ''}`,
        };
      }),
  );
}
