/**
 * The HubSpot connector: the core's `CrmConnector` over `@hubspot/api-client`. All calls of one
 * connection share one rate limiter (the portal's budget); batches hold at most 100 records.
 */
import { Client } from '@hubspot/api-client';
import {
  CrmError,
  type CallOptions,
  type CrmConnector,
  type CrmProperty,
  type CrmRecord,
  type ListOptions,
  type PropertySpec,
  type ProvisionResult,
  type RecordPage,
  type RecordUpdate,
  type WriteResult,
} from '../../src/core/connector.js';
import type { Priority, RateLimiter } from '../../src/core/limiter.js';
import { createRateLimiter } from '../../src/limits/create-rate-limiter.js';
import { HubspotRequestRunner } from './request-runner.js';
import { hubspotPropertiesToCrm } from './schema.js';
import { createHubspotWebhookHandler, type WatchedProperties } from './webhook.js';
import { JournalClient } from './journal-client.js';
import { hubspotJournalFeed } from './journal-feed.js';
import { writeInBatches } from './write-in-batches.js';
import { hubspotRecordFinder } from './record-finder.js';
import { ensureHubspotProperties } from './provision.js';
import { hubspotAccount } from './account.js';
import { hubspotCompanies } from './companies.js';
import { hubspotJobChangeActions } from './job-change-actions.js';
import { apiType, chunk, HUBSPOT_BATCH_SIZE, SEARCH_PAGE_MAX, toRecord, type HubspotCalls } from './sdk-objects.js';
import { ListDefinition, MembershipPage, ObjectBatch, ObjectPage } from './wire-schemas.js';
import { DEFAULT_HUBSPOT_API_VERSION, type HubspotApiVersion } from './api-version.js';
import type { HubspotApi } from './hubspot-api.js';
import { sdkApi } from './sdk-api.js';
import { datedApi } from './dated-api.js';
import { parseCrmAnswer } from '../../src/core/crm-answer.js';
export { HUBSPOT_BATCH_SIZE } from './sdk-objects.js';

export type HubspotTier = 'starter' | 'pro' | 'oauth';
/**
 * Requests per 10 s: private apps on Free/Starter 100,
 * Professional/Enterprise 190; public (OAuth) apps 110 per installing portal.
 */
export const TIER_REQUESTS_PER_10S: Record<HubspotTier, number> = { starter: 100, pro: 190, oauth: 110 };
/**
 * Calls per day of a private app: Free/Starter 250,000, Professional
 * 625,000 (Enterprise has more); an OAuth app gets its portal's.
 */
const TIER_DAILY: Record<HubspotTier, number | undefined> = { starter: 250_000, pro: 625_000, oauth: undefined };

export interface HubspotConnectorOptions {
  connection?: string;
  /** A private app's access token; or `getAccessToken` for per-portal OAuth tokens that change. */
  accessToken?: string;
  getAccessToken?: () => string | Promise<string>;
  /** API base URL without trailing slash (the sandbox's URL in tests). */
  basePath?: string;
  /** The app's client secret, which signs webhooks. */
  clientSecret?: string;
  /** Public base URL HubSpot calls our webhook on. */
  publicUrl?: string;
  tier?: HubspotTier;
  /** Shared limiter for this portal's budget; made with the project's factory when absent. */
  limiter?: RateLimiter;
  searchLimiter?: RateLimiter;
  redisUrl?: string;
  /** Overrides the tier's budget (Enterprise portals, capacity packs). */
  rateLimit?: { max: number; windowMs: number };
  webhookPropertyWatch?: Partial<WatchedProperties>;
  /** The app's client credentials: with them the connector reads the portal's webhooks journal (`eventFeed`). */
  journal?: { clientId: string; clientSecret: string; pollMs?: number };
  acceptLegacySignatures?: boolean;
  maxRateLimitRetries?: number;
  /** Reads and writes of up to this many records count as interactive work; larger ones as bulk. */
  interactiveBatchMax?: number;
  /** Which of HubSpot's API versions to call (HUBSPOT_API_VERSION): the date-based 2026-09 by default. */
  apiVersion?: HubspotApiVersion;
}

const LAST_MODIFIED: Record<string, string> = { contacts: 'lastmodifieddate', companies: 'hs_lastmodifieddate' };

export function createHubspotConnector(options: HubspotConnectorOptions): CrmConnector {
  if (!options.accessToken && !options.getAccessToken) {
    throw new CrmError('hubspot', 'auth', 'No HubSpot credentials: set HUBSPOT_ACCESS_TOKEN to a private app token.');
  }
  const connection = options.connection ?? 'default';
  const budget = options.rateLimit ?? { max: TIER_REQUESTS_PER_10S[options.tier ?? 'starter'], windowMs: 10_000 };
  const daily = options.rateLimit ? undefined : TIER_DAILY[options.tier ?? 'starter'];
  const callLimits = [
    { max: budget.max, windowSeconds: budget.windowMs / 1000 },
    ...(daily ? [{ max: daily, windowSeconds: 86_400 }] : []),
  ];
  const ownLimiters: RateLimiter[] = [];
  const limiter =
    options.limiter ?? own(createRateLimiter({ id: `hubspot:${connection}`, ...budget, redisUrl: options.redisUrl }));
  const searchLimiter =
    options.searchLimiter ??
    own(createRateLimiter({ id: `hubspot:${connection}:search`, max: 4, windowMs: 1_000, redisUrl: options.redisUrl }));
  function own(l: RateLimiter): RateLimiter {
    ownLimiters.push(l);
    return l;
  }
  const account = hubspotAccount(connection);
  const runner = new HubspotRequestRunner({
    limiter,
    searchLimiter,
    maxRateLimitRetries: options.maxRateLimitRetries,
    timeZone: () => account.timeZone(),
  });
  const priorityFor = (n: number): Priority => (n <= (options.interactiveBatchMax ?? 10) ? 'interactive' : 'bulk');

  let client: Client | undefined;
  let clientToken: string | undefined;
  async function sdk(): Promise<Client> {
    const token = options.accessToken ?? (await options.getAccessToken?.());
    if (!token)
      throw new CrmError('hubspot', 'auth', 'No HubSpot access token for this portal; connect the portal again.');
    if (!client || token !== clientToken) {
      // The SDK's retry is off on purpose: the runner answers 429s as their policy says.
      client = new Client({
        accessToken: token,
        numberOfApiCallRetries: 0,
        ...(options.basePath ? { basePath: options.basePath.replace(/\/+$/, '') } : {}),
      });
      clientToken = token;
    }
    return client;
  }

  const version = options.apiVersion ?? DEFAULT_HUBSPOT_API_VERSION;
  // The one place that picks the client of the version: every call below goes through `api`.
  const api: HubspotApi = version === 'v3' ? sdkApi(sdk) : datedApi(version, sdk);

  async function rawProperties(type: string): Promise<unknown> {
    return runner.run('properties_read', 'interactive', () => api.properties(type));
  }

  async function search(type: string, body: Record<string, unknown>, priority: Priority) {
    const answer = await runner.run('search', priority, () => api.search(type, body), 'search');
    return parseCrmAnswer('hubspot', ObjectPage, answer, 'search');
  }

  const calls: HubspotCalls = { runner, api, search, priorityFor };
  /**
   * The web app records are shown in: the portal's own (`uiDomain`) for HubSpot's API, and the base URL
   * itself for anything else (a sandbox serves the record pages at the app's paths), so no link from a
   * sandbox record leads to the real app.
   */
  const appUrl = (): string => {
    const base = options.basePath?.replace(/\/+$/, '');
    if (base && !/^https:\/\/api(-[a-z0-9]+)?\.hubapi\.com$/i.test(base)) return base;
    return `https://${account.uiDomain() ?? 'app.hubspot.com'}`;
  };
  const finder = hubspotRecordFinder({
    apiType,
    search: (type, body, priority) => search(type, body, priority),
    batchCreate: async (type, inputs, priority) =>
      parseCrmAnswer(
        'hubspot',
        ObjectBatch,
        await runner.run('batch_create', priority, () => api.batchCreate(type, inputs)),
        'batch_create',
      ),
  });

  return {
    crm: 'hubspot',
    connection,
    batchSize: HUBSPOT_BATCH_SIZE,
    objectTypes: ['contact', 'company'],
    ...finder,

    async readRecords(
      objectType: string,
      ids: string[],
      properties: string[],
      callOptions?: CallOptions,
    ): Promise<CrmRecord[]> {
      const type = apiType(objectType);
      const out: CrmRecord[] = [];
      for (const part of chunk([...new Set(ids)], HUBSPOT_BATCH_SIZE)) {
        const res = await runner.run('batch_read', callOptions?.priority ?? priorityFor(part.length), () =>
          api.batchRead(type, part, properties),
        );
        out.push(...parseCrmAnswer('hubspot', ObjectBatch, res, 'batch_read').results.map(toRecord));
      }
      return out;
    },

    async writeRecords(objectType: string, updates: RecordUpdate[], callOptions?: CallOptions): Promise<WriteResult[]> {
      const type = apiType(objectType);
      return writeInBatches(updates, HUBSPOT_BATCH_SIZE, async (inputs) =>
        runner.run('batch_update', callOptions?.priority ?? priorityFor(inputs.length), async () =>
          parseCrmAnswer('hubspot', ObjectBatch, await api.batchUpdate(type, inputs), 'batch_update'),
        ),
      );
    },

    async listRecords(objectType: string, list: ListOptions, callOptions?: CallOptions): Promise<RecordPage> {
      const priority = callOptions?.priority ?? 'bulk';
      const type = apiType(objectType);
      if (list.changedSince) {
        // Paging by id rather than `after` keeps going past search's 10,000-result ceiling.
        const limit = Math.min(list.limit ?? HUBSPOT_BATCH_SIZE, SEARCH_PAGE_MAX);
        const filters: Record<string, unknown>[] = [
          { propertyName: LAST_MODIFIED[type], operator: 'GTE', value: String(list.changedSince.getTime()) },
        ];
        if (list.cursor) filters.push({ propertyName: 'hs_object_id', operator: 'GT', value: list.cursor });
        const res = await search(
          type,
          {
            filterGroups: [{ filters }],
            sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
            properties: list.properties,
            limit,
          },
          priority,
        );
        const records = res.results.map(toRecord);
        const last = records[records.length - 1];
        return { records, ...(res.paging?.next && last ? { next: last.id } : {}) };
      }
      const limit = Math.min(list.limit ?? HUBSPOT_BATCH_SIZE, HUBSPOT_BATCH_SIZE);
      const res = parseCrmAnswer(
        'hubspot',
        ObjectPage,
        await runner.run('list', priority, () => api.page(type, limit, list.cursor, list.properties)),
        'list',
      );
      const next = res.paging?.next?.after;
      return {
        records: res.results.map(toRecord),
        ...(next ? { next } : {}),
      };
    },

    prepare: () => account.read(runner, api),

    async readAccount(): Promise<string> {
      await account.read(runner, api);
      const portal = account.portalId();
      if (portal === undefined)
        throw new CrmError(
          'hubspot',
          'unavailable',
          "HubSpot did not tell the portal id (GET /account-info/v3/details); crm-enrich keeps each portal's " +
            'state apart and cannot start without it. Check HUBSPOT_ACCESS_TOKEN and that HubSpot answers, ' +
            'then start again.',
        );
      return String(portal);
    },

    async listMembers(objectType: string, listId: string, callOptions?: CallOptions): Promise<string[]> {
      // A list holds one object type's records; another type's ids would name other records here.
      const { list } = parseCrmAnswer(
        'hubspot',
        ListDefinition,
        await runner.run('list_read', callOptions?.priority ?? 'bulk', () => api.listById(listId)),
        'list_read',
      );
      if (list.objectTypeId !== objectTypeId(objectType))
        throw new CrmError(
          'hubspot',
          'validation',
          `list ${listId} ("${list.name}") holds records of object type ${list.objectTypeId}, ` +
            `not ${apiType(objectType)}`,
        );
      const ids: string[] = [];
      let after: string | undefined;
      do {
        const page = parseCrmAnswer(
          'hubspot',
          MembershipPage,
          await runner.run('list_memberships', callOptions?.priority ?? 'bulk', () =>
            api.listMembers(listId, after, 250),
          ),
          'list_memberships',
        );
        ids.push(...page.results.map((m) => m.recordId));
        after = page.paging?.next?.after;
      } while (after);
      return ids;
    },

    async findList(objectType: string, name: string, callOptions?: CallOptions): Promise<string | undefined> {
      try {
        const found = parseCrmAnswer(
          'hubspot',
          ListDefinition,
          await runner.run('list_by_name', callOptions?.priority ?? 'bulk', () =>
            api.listByName(objectTypeId(objectType), name),
          ),
          'list_by_name',
        );
        return found.list.listId;
      } catch (error) {
        if (error instanceof CrmError && error.code === 'not_found') return undefined;
        throw error;
      }
    },

    async searchRecords(objectType: string, text: string, properties: string[], limit: number): Promise<CrmRecord[]> {
      const type = apiType(objectType);
      const res = await search(
        type,
        { query: text, properties, limit: Math.min(limit, SEARCH_PAGE_MAX) },
        'interactive',
      );
      const found = res.results.map(toRecord);
      const groups = type === 'contacts' && found.length === 0 ? fullNameFilterGroups(text) : [];
      if (groups.length === 0) return found;
      // A full name ("Lucas Ryan") is no one property's value: look
      // for it as first and last name, at each place it may split.
      const byName = await search(
        type,
        { filterGroups: groups, properties, limit: Math.min(limit, SEARCH_PAGE_MAX) },
        'interactive',
      );
      return byName.results.map(toRecord);
    },

    async recordUrl(objectType: string, recordId: string): Promise<string | undefined> {
      const portal = account.portalId();
      if (portal === undefined || !/^\d+$/.test(recordId)) return undefined;
      // HubSpot's record pages: /contacts/{portal}/record/{objectTypeId}/{id}.
      return `${appUrl()}/contacts/${portal}/record/${objectTypeId(objectType)}/${recordId}`;
    },

    accountId: () => {
      const portal = account.portalId();
      return portal === undefined ? undefined : String(portal);
    },

    async completeWorkflowAction(
      callbackId: string,
      outputFields: Record<string, string | number | boolean>,
    ): Promise<void> {
      await runner.run('action_callback', 'interactive', () => api.completeCallback(callbackId, outputFields));
    },

    async readSchema(objectType: string): Promise<CrmProperty[]> {
      return hubspotPropertiesToCrm(await rawProperties(apiType(objectType)));
    },

    async ensureProperties(objectType: string, wanted: PropertySpec[]): Promise<ProvisionResult> {
      const type = apiType(objectType);
      const existing = hubspotPropertiesToCrm(await rawProperties(type)).map((p) => p.name);
      return ensureHubspotProperties(wanted, new Set(existing), {
        createGroup: (group) =>
          runner.run('property_group_create', 'interactive', () => api.createPropertyGroup(type, group)),
        createProperty: (create) =>
          runner.run('property_create', 'interactive', () => api.createProperty(type, create)),
      });
    },

    // HubSpot: "new objects take a few moments to appear" in search; a minute covers it with room.
    listingLagMs: 60_000,

    companyObjectType: 'company',

    companyLinkProperties: { contact: 'associatedcompanyid' },

    recordLabels: {
      contact: { name: ['firstname', 'lastname'], detail: 'email' },
      company: { name: ['name'], detail: 'domain' },
    },
    isRecordId: (text) => /^\d{1,20}$/.test(text),

    ...hubspotCompanies(calls),

    ...hubspotJobChangeActions(calls),

    webhook: createHubspotWebhookHandler({
      clientSecret: options.clientSecret,
      portalId: () => account.portalId(),
      connection,
      publicUrl: options.publicUrl,
      watchProperties: options.webhookPropertyWatch,
      acceptLegacySignatures: options.acceptLegacySignatures,
    }),

    ...(options.journal
      ? {
          eventFeed: hubspotJournalFeed({
            client: new JournalClient({ baseUrl: options.basePath ?? 'https://api.hubapi.com', ...options.journal }),
            pollMs: options.journal.pollMs,
            connection,
            portalId: () => account.portalId(),
            watchProperties: options.webhookPropertyWatch,
          }),
        }
      : {}),

    stats: () => ({ ...runner.stats(), limits: callLimits }),

    async close(): Promise<void> {
      runner.close();
      await Promise.all(ownLimiters.map((l) => l.stop()));
    },
  };
}

/**
 * Filter groups that find a contact by a full name: one group per place the words may split into
 * `firstname` and `lastname` ("Jia Le Ong": "Jia" + "Le Ong", "Jia Le" + "Ong"), at most HubSpot's five
 * groups. None for a single word or an e-mail address, which the text query finds by itself.
 */
/** HubSpot's object type id: 0-1 contacts, 0-2 companies. */
function objectTypeId(objectType: string): string {
  return apiType(objectType) === 'companies' ? '0-2' : '0-1';
}

export function fullNameFilterGroups(
  text: string,
): { filters: { propertyName: string; operator: 'EQ'; value: string }[] }[] {
  const words = text.trim().split(/\s+/);
  if (words.length < 2 || text.includes('@')) return [];
  return words.slice(1, 6).map((_, i) => ({
    filters: [
      { propertyName: 'firstname', operator: 'EQ' as const, value: words.slice(0, i + 1).join(' ') },
      { propertyName: 'lastname', operator: 'EQ' as const, value: words.slice(i + 1).join(' ') },
    ],
  }));
}
