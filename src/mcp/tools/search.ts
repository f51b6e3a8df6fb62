/**
 * search_people and filter_options. A search is a persona (position, seniority, department, and any
 * catalogue filters) in a market, one page at a time; its filter codes are checked against the
 * catalogue first, and it spends a credit through the same budget and limiter as the lanes.
 * filter_options is the catalogue itself (the partner does not charge for it).
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  DEFAULT_MARKET,
  DEPARTMENTS,
  FilterOptionsResponse,
  Market,
  PersonSearchResult,
  SENIORITIES,
} from '../../partner/schemas.js';
import { checkFilterCodes } from '../filter-codes.js';
import { runTool, toolScope, type ToolContext } from '../tool-call.js';

const MAX_PAGE_SIZE = 100;
const ids = (table: Record<number, string>) =>
  Object.entries(table)
    .map(([id, label]) => `${id} ${label}`)
    .join(', ');

const SearchInput = z.object({
  companyId: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('partner id of the company (from lookup_company) to search within'),
  market: Market.default(DEFAULT_MARKET).describe('market the results come from (selectedCountry)'),
  position: z.string().trim().min(1).max(100).optional().describe('text the job title contains, e.g. "head of sales"'),
  seniority: z
    .number()
    .int()
    .min(1)
    .max(7)
    .optional()
    .describe(`seniority id: ${ids(SENIORITIES)}`),
  department: z
    .number()
    .int()
    .min(1)
    .max(17)
    .optional()
    .describe(`department id: ${ids(DEPARTMENTS)}`),
  filters: z
    .record(
      z.string().regex(/^\w{1,64}$/, 'filter identifiers are words such as industry'),
      z.array(z.string().min(1).max(200)).min(1, 'give at least one code').max(50, 'at most 50 codes per filter'),
    )
    .optional()
    .describe(
      'catalogue filters: identifier to codes, e.g. {"industry":["l1:C"],"company_size":["51-200"]}; see ' +
        'filter_options',
    ),
  markets: z
    .array(Market)
    .min(1)
    .max(13)
    .optional()
    .describe('markets to search across instead of `market` alone (country)'),
  page: z.number().int().min(0).max(10_000).default(0).describe('page number, from 0'),
  pageSize: z.number().int().min(1).max(MAX_PAGE_SIZE).default(10).describe(`results per page, 1 to ${MAX_PAGE_SIZE}`),
});
const SearchOutput = z.object({
  page: z.number(),
  pageSize: z.number(),
  results: z.array(PersonSearchResult),
  more: z.boolean().describe('a full page came back: ask for the next page for more'),
});
const FilterInput = z.object({
  identifiers: z
    .array(z.string().regex(/^\w{1,64}$/))
    .max(30)
    .optional()
    .describe('filters to list (all when omitted)'),
  search: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe(
      'match against value labels and codes; only with exactly one paged filter (industry, location, ' +
        'hq_location, people_location)',
    ),
  offset: z.number().int().min(0).optional().describe('values to skip in a paged filter (pages are 20 values)'),
  levelOne: z
    .string()
    .regex(/^l1:[A-Za-z]+$/, 'levelOne is a top-level industry code such as l1:C')
    .optional()
    .describe('list the second-level industries under this top-level code'),
});

export function registerSearchTools(server: McpServer, ctx: ToolContext): void {
  const { partner } = ctx.service;
  server.registerTool(
    'search_people',
    {
      title: 'Search people',
      description:
        "People in the sales-intelligence partner's database matching a persona (position, seniority, " +
        'department, catalogue filters) in a market, a page at a time, whether or not they are in the CRM yet. ' +
        'Filter codes are checked against filter_options first. Spends no credit (credits are profile lookups).',
      inputSchema: SearchInput,
      outputSchema: SearchOutput,
      annotations: { readOnlyHint: true, openWorldHint: true },
      scopeChallenge: toolScope('search_people'),
    },
    (input) =>
      runTool(ctx, 'search_people', async () => {
        await checkFilterCodes(partner, input.filters ?? {});
        const request = {
          ...(input.companyId ? { companyId: input.companyId } : {}),
          selectedCountry: input.market,
          ...(input.position ? { position: input.position } : {}),
          ...(input.seniority ? { seniority: String(input.seniority) } : {}),
          ...(input.department ? { department: String(input.department) } : {}),
          ...(input.filters ? { filters: input.filters } : {}),
          ...(input.markets ? { country: input.markets } : {}),
          from: String(input.page * input.pageSize),
          size: String(input.pageSize),
        };
        // Credits are lookups (profiles); a search goes through the shared limiter and spends none (docs/discovery.md).
        const results = await partner.searchPeople(request, { priority: 'interactive' });
        const used = ['position', 'seniority', 'department', 'companyId'].filter(
          (k) => input[k as keyof typeof input] !== undefined,
        );
        const by = [...used, ...Object.keys(input.filters ?? {})].join(', ') || 'market only';
        return {
          result: { page: input.page, pageSize: input.pageSize, results, more: results.length === input.pageSize },
          summary:
            `people search in ${input.markets?.join(',') ?? input.market}, page ${input.page}: ` +
            `${results.length} results; by ${by}`,
        };
      }),
  );
  server.registerTool(
    'filter_options',
    {
      title: 'Filter options',
      description:
        "The sales-intelligence partner's filter catalogue (identifiers, kinds, codes) and markets, for " +
        'building search_people filters. Free of charge.',
      inputSchema: FilterInput,
      outputSchema: FilterOptionsResponse,
      annotations: { readOnlyHint: true, openWorldHint: true },
      scopeChallenge: toolScope('filter_options'),
    },
    (input) =>
      runTool(ctx, 'filter_options', async () => {
        const result = await partner.filterOptions(input, { priority: 'interactive' });
        return {
          result,
          summary:
            `filter options${input.identifiers ? ` for ${input.identifiers.join(', ')}` : ''}: ` +
            `${result.filters.length} filters`,
        };
      }),
  );
}
