import { EventEmitter } from 'node:events';
import { z } from 'zod';
import type { Priority, RateLimiter } from '../core/limiter.js';
import { FilterOptionsCache } from './filter-options-cache.js';
import {
  COMPANY_LOOKUPS,
  LookupParamOverridesSchema,
  PERSON_LOOKUPS,
  resolveLookupParams,
  type CompanyLookupBy,
  type LookupParamNames,
  type LookupParamOverrides,
  type PersonLookupBy,
} from './lookup-params.js';
import { PartnerError } from './partner-error.js';
import { PartnerTransport, type PartnerRequest, type PartnerRequestEvent } from './partner-transport.js';
import {
  Company,
  DEFAULT_MARKET,
  FilterOptionsResponse,
  Market,
  PeopleSearchRequest,
  Person,
  PersonSearchResponse,
  type PersonSearchResult,
} from './schemas.js';

export interface PartnerClientOptions {
  baseUrl: string;
  apiKey: string;
  /** The key's shared limiter; every attempt, retries included, goes through it. */
  limiter: RateLimiter;
  timeoutMs?: number;
  /** Retries after the first attempt, for 429, 5xx, timeouts and connection errors. */
  maxRetries?: number;
  /** First backoff ceiling; it doubles per retry up to maxDelayMs, and the wait is a random part of it. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A longer Retry-After fails the call (with retryAfterMs) so the queue can take it up later. */
  maxRetryAfterMs?: number;
  paramNames?: LookupParamOverrides;
  filterOptionsTtlMs?: number;
}

export interface CompanyLookup {
  by: CompanyLookupBy;
  value: string;
  country?: Market;
}
export interface PersonLookup {
  by: PersonLookupBy;
  value: string;
}
export interface CallOptions {
  /** Default `bulk`: work a person is waiting for must ask for `interactive`. */
  priority?: Priority;
  /**
   * Runs once the limiter has given the request its slot, right before each HTTP attempt (retries
   * included); throwing stops the request unsent. The credit budget reserves here, so a request that
   * waits in the limiter, or dies with its process while waiting, has spent nothing.
   */
  beforeSend?: () => Promise<void>;
  /**
   * Runs after an attempt the provider refused without serving it (429, 401, 403) or that never
   * reached it (connection refused): the credit reserved in `beforeSend` is given back. A timeout or a
   * 5xx keeps it, since the provider may have served the request.
   */
  unserved?: () => Promise<void>;
}
export interface FilterOptionsQuery {
  identifiers?: string[];
  search?: string;
  offset?: number;
  levelOne?: string;
}

const ClientOptions = z.object({
  baseUrl: z
    .string()
    .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), 'baseUrl must be an http(s) URL'),
  apiKey: z.string().min(1, 'apiKey must not be empty (set PARTNER_API_KEY)'),
  limiter: z.custom<RateLimiter>(
    (v) => typeof (v as RateLimiter | undefined)?.schedule === 'function',
    'limiter must be a RateLimiter',
  ),
  timeoutMs: z.number().int().min(1, 'timeoutMs must be a whole number of at least 1').default(10_000),
  maxRetries: z.number().int().min(0, 'maxRetries must be a whole number of at least 0').default(4),
  baseDelayMs: z.number().min(0, 'baseDelayMs must be 0 or more').default(250),
  maxDelayMs: z.number().min(0, 'maxDelayMs must be 0 or more').default(10_000),
  maxRetryAfterMs: z.number().min(0, 'maxRetryAfterMs must be 0 or more').default(60_000),
  filterOptionsTtlMs: z.number().min(0, 'filterOptionsTtlMs must be 0 or more').default(3_600_000),
  paramNames: LookupParamOverridesSchema.optional(),
});

const lookupValue = z
  .string()
  .trim()
  .min(1, 'value must be a non-empty string')
  .max(2048, 'value must be at most 2048 characters');
const CompanyLookupInput = z.object({
  by: z.enum(COMPANY_LOOKUPS, `by must be one of ${COMPANY_LOOKUPS.join(', ')}`),
  value: lookupValue,
  country: z.enum(Market.options, `country must be one of ${Market.options.join(', ')}`).default(DEFAULT_MARKET),
});
const PersonLookupInput = z.object({
  by: z.enum(PERSON_LOOKUPS, `by must be one of ${PERSON_LOOKUPS.join(', ')}`),
  value: lookupValue,
});
const FilterOptionsInput = z.strictObject({
  identifiers: z.array(z.string().regex(/^\w+$/, 'identifiers must be filter identifiers such as industry')).optional(),
  search: z
    .string()
    .min(1, 'search must be 1 to 100 characters')
    .max(100, 'search must be 1 to 100 characters')
    .optional(),
  offset: z.number().int('offset must be a whole number').min(0, 'offset must be 0 or more').optional(),
  levelOne: z
    .string()
    .regex(/^l1:[A-Za-z]+$/, 'levelOne must look like l1:C')
    .optional(),
});

/**
 * The typed client of the partner API. Emits `request` for every HTTP attempt (see
 * PartnerRequestEvent), so the service can count them; it logs nothing itself.
 */
export class PartnerClient extends EventEmitter<{ request: [PartnerRequestEvent] }> {
  readonly #transport: PartnerTransport;
  readonly #params: LookupParamNames;
  readonly #filterCache: FilterOptionsCache<FilterOptionsResponse>;

  constructor(options: PartnerClientOptions) {
    super();
    const settings = check(ClientOptions, options, 'PartnerClient options', 'invalid_client_options', 'config');
    this.#params = resolveLookupParams(settings.paramNames);
    this.#filterCache = new FilterOptionsCache(settings.filterOptionsTtlMs);
    this.#transport = new PartnerTransport({ ...settings, onRequest: (event) => this.emit('request', event) });
  }

  /** One company, or null when the partner has no match. */
  async lookupCompany(lookup: CompanyLookup, options: CallOptions = {}): Promise<Company | null> {
    const { by, value, country } = check(CompanyLookupInput, lookup, 'Company lookup', 'invalid_lookup');
    const query = new URLSearchParams({ [this.#params.company[by]]: value, country });
    const body = await this.send({ endpoint: 'company', method: 'GET', path: 'company', query, lookup: true }, options);
    return body === null ? null : parseResponse(Company, body, 'GET /company', 'Company');
  }

  /** One person, or null when the partner has no match. */
  async lookupPerson(lookup: PersonLookup, options: CallOptions = {}): Promise<Person | null> {
    const { by, value } = check(PersonLookupInput, lookup, 'Person lookup', 'invalid_lookup');
    const query = new URLSearchParams({ [this.#params.person[by]]: value });
    const body = await this.send({ endpoint: 'people', method: 'GET', path: 'people', query, lookup: true }, options);
    return body === null ? null : parseResponse(Person, body, 'GET /people', 'Person');
  }

  async searchPeople(request: PeopleSearchRequest, options: CallOptions = {}): Promise<PersonSearchResult[]> {
    const body = check(PeopleSearchRequest.strict(), request, 'People search', 'invalid_search');
    const answer = await this.send({ endpoint: 'people_search', method: 'POST', path: 'people/search', body }, options);
    return parseResponse(PersonSearchResponse, answer, 'POST /people/search', 'person search result list');
  }

  /** Every result of a search, page by page (`from`/`size`), starting at the request's own `from`. */
  async *searchPeopleAll(
    request: PeopleSearchRequest,
    { pageSize = 25, priority }: CallOptions & { pageSize?: number } = {},
  ): AsyncGenerator<PersonSearchResult> {
    if (!Number.isInteger(pageSize) || pageSize < 1) {
      throw new PartnerError({
        status: 0,
        code: 'invalid_search',
        kind: 'permanent',
        message: 'People search: pageSize must be a whole number of at least 1.',
      });
    }
    let from = Number(request.from ?? 0);
    for (;;) {
      const page = await this.searchPeople({ ...request, from: String(from), size: String(pageSize) }, { priority });
      yield* page;
      if (page.length < pageSize) return;
      from += page.length;
    }
  }

  /** The filter catalogue and markets; answers are cached per distinct query (see FilterOptionsCache). */
  async filterOptions(query: FilterOptionsQuery = {}, options: CallOptions = {}): Promise<FilterOptionsResponse> {
    const { identifiers, search, offset, levelOne } = check(
      FilterOptionsInput,
      query,
      'Filter options',
      'invalid_request',
    );
    const params = new URLSearchParams();
    if (identifiers?.length) params.set('identifiers', identifiers.join(','));
    if (search !== undefined) params.set('search', search);
    if (offset !== undefined) params.set('offset', String(offset));
    if (levelOne !== undefined) params.set('levelOne', levelOne);
    return this.#filterCache.get(params.toString(), async () => {
      const body = await this.send(
        { endpoint: 'filter_options', method: 'GET', path: 'filter-options', query: params },
        { priority: options.priority ?? 'interactive' },
      );
      return parseResponse(FilterOptionsResponse, body, 'GET /filter-options', 'filter options');
    });
  }

  private send(request: Omit<PartnerRequest, 'priority'>, options: CallOptions): Promise<unknown> {
    return this.#transport.send({
      ...request,
      priority: options.priority ?? 'bulk',
      ...(options.beforeSend ? { beforeSend: options.beforeSend } : {}),
      ...(options.unserved ? { unserved: options.unserved } : {}),
    });
  }
}

function check<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: string,
  code: string,
  kind: 'config' | 'permanent' = 'permanent',
): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new PartnerError({ status: 0, code, kind, message: `${what}: ${issues(parsed.error)}.` });
}

function parseResponse<S extends z.ZodType>(schema: S, body: unknown, label: string, what: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw new PartnerError({
    status: 200,
    code: 'invalid_response',
    kind: 'permanent',
    message:
      `${label}: the partner API answered with a body that is not a valid ${what} ` +
      `(${issues(parsed.error)}). The answer was not used; report it to the partner.`,
  });
}

/** Paths and messages only: zod's messages name types, never the values, so no personal data leaks. */
function issues(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}
