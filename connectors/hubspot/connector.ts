/**
 * The HubSpot connector: the core's `CrmConnector` over `@hubspot/api-client`. All calls of one
 * connection share one rate limiter (the portal's budget); batches hold at most 100 records.
 */
import { Client } from '@hubspot/api-client';
import { websiteDomain } from '../../src/core/domain.js';
import { AssociationSpecAssociationCategoryEnum } from '@hubspot/api-client/lib/codegen/crm/associations/v4/models/all.js';
import {
  CrmError,
  type CallOptions,
  type CompanyLink,
  type CompanyMatch,
  type FoundCompany,
  type NewCompany,
  type CompanyLinkResult,
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
import { writeInBatches } from './batch-writer.js';
import { hubspotRecordFinder } from './record-finder.js';
import { ensureHubspotProperties } from './provision.js';
import { logger } from '../../src/logger.js';

const log = logger('connector.hubspot');

export const HUBSPOT_BATCH_SIZE = 100;
/** Inputs per v4 association batch create (HubSpot's limit). */
const ASSOCIATION_BATCH_LIMIT = 2_000;
/** HubSpot-defined contact-to-company association types. */
const CONTACT_TO_COMPANY = { unlabeled: 279, primary: 1 } as const;
const SEARCH_PAGE_MAX = 200;

export type HubspotTier = 'starter' | 'pro' | 'oauth';
/** Requests per 10 s: private apps on Free/Starter 100, Professional/Enterprise 190; public (OAuth) apps 110 per installing portal. */
export const TIER_REQUESTS_PER_10S: Record<HubspotTier, number> = { starter: 100, pro: 190, oauth: 110 };

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
  acceptLegacySignatures?: boolean;
  maxRateLimitRetries?: number;
  /** Reads and writes of up to this many records count as interactive work; larger ones as bulk. */
  interactiveBatchMax?: number;
}

const API_TYPE: Record<string, string> = { contact: 'contacts', contacts: 'contacts', company: 'companies', companies: 'companies' };
const LAST_MODIFIED: Record<string, string> = { contacts: 'lastmodifieddate', companies: 'hs_lastmodifieddate' };

function apiType(objectType: string): string {
  const type = API_TYPE[objectType];
  if (!type) throw new CrmError('hubspot', 'validation', `HubSpot object type "${objectType}" is not served; use contact or company.`);
  return type;
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

interface SdkObject {
  id: string;
  properties: Record<string, string | null>;
  createdAt?: Date;
  updatedAt?: Date;
}

function toRecord(o: SdkObject): CrmRecord {
  return { id: o.id, properties: { ...o.properties }, createdAt: o.createdAt?.toISOString(), updatedAt: o.updatedAt?.toISOString() };
}


function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export function createHubspotConnector(options: HubspotConnectorOptions): CrmConnector {
  if (!options.accessToken && !options.getAccessToken) {
    throw new CrmError('hubspot', 'auth', 'No HubSpot credentials: set HUBSPOT_ACCESS_TOKEN to a private app token.');
  }
  const connection = options.connection ?? 'default';
  const budget = options.rateLimit ?? { max: TIER_REQUESTS_PER_10S[options.tier ?? 'starter'], windowMs: 10_000 };
  const ownLimiters: RateLimiter[] = [];
  const limiter = options.limiter ?? own(createRateLimiter({ id: `hubspot:${connection}`, ...budget, redisUrl: options.redisUrl }));
  const searchLimiter =
    options.searchLimiter ?? own(createRateLimiter({ id: `hubspot:${connection}:search`, max: 4, windowMs: 1_000, redisUrl: options.redisUrl }));
  function own(l: RateLimiter): RateLimiter {
    ownLimiters.push(l);
    return l;
  }
  let timeZone: string | undefined;
  const runner = new HubspotRequestRunner({ limiter, searchLimiter, maxRateLimitRetries: options.maxRateLimitRetries, timeZone: () => timeZone });
  const priorityFor = (n: number): Priority => (n <= (options.interactiveBatchMax ?? 10) ? 'interactive' : 'bulk');

  let client: Client | undefined;
  let clientToken: string | undefined;
  async function sdk(): Promise<Client> {
    const token = options.accessToken ?? (await options.getAccessToken?.());
    if (!token) throw new CrmError('hubspot', 'auth', 'No HubSpot access token for this portal; connect the portal again.');
    if (!client || token !== clientToken) {
      // The SDK's retry is off on purpose: the runner answers 429s as their policy says.
      client = new Client({ accessToken: token, numberOfApiCallRetries: 0, ...(options.basePath ? { basePath: options.basePath.replace(/\/+$/, '') } : {}) });
      clientToken = token;
    }
    return client;
  }

  /** The connected portal's id, read once from its account details; webhooks of other portals are refused. */
  let portalId: number | undefined;
  async function readPortalId(): Promise<void> {
    if (portalId !== undefined) return;
    try {
      const res = await runner.run('account_details', 'interactive', async () => (await sdk()).apiRequest({ method: 'GET', path: '/account-info/v3/details' }));
      const body = (await res.json()) as { portalId?: unknown; timeZone?: unknown };
      if (typeof body.portalId === 'number') portalId = body.portalId;
      if (typeof body.timeZone === 'string' && isTimeZone(body.timeZone)) timeZone = body.timeZone;
      const usage = await readDailyUsage();
      if (usage) log.info({ connection, used: usage.currentUsage, limit: usage.usageLimit, resetsAt: usage.resetsAt, timeZone }, "HubSpot's daily API usage");
    } catch (error) {
      // Without it webhooks are still checked by signature; the next start tries again.
      log.warn({ err: error, connection }, 'could not read the HubSpot account details; webhooks are not checked against the portal id');
    }
  }

  /** GET /account-info/v3/api-usage/daily/private-apps: today's calls, the limit and when it resets. */
  async function readDailyUsage(): Promise<{ usageLimit: number; currentUsage: number; resetsAt: string } | undefined> {
    try {
      const res = await runner.run('account_usage', 'interactive', async () => (await sdk()).apiRequest({ method: 'GET', path: '/account-info/v3/api-usage/daily/private-apps' }));
      const body = (await res.json()) as { results?: { usageLimit?: unknown; currentUsage?: unknown; resetsAt?: unknown }[] };
      const daily = body.results?.[0];
      if (!daily || typeof daily.usageLimit !== 'number' || typeof daily.currentUsage !== 'number' || typeof daily.resetsAt !== 'string') return undefined;
      return { usageLimit: daily.usageLimit, currentUsage: daily.currentUsage, resetsAt: daily.resetsAt };
    } catch {
      return undefined; // a token without the scope, or an app type the endpoint does not cover
    }
  }

  async function rawProperties(type: string): Promise<unknown> {
    const res = await runner.run('properties_read', 'interactive', async () => (await sdk()).crm.properties.coreApi.getAll(type, false));
    // The SDK turns dates into Date objects; a JSON round trip gives back HubSpot's wire form.
    return JSON.parse(JSON.stringify(res)) as unknown;
  }

  async function search(type: string, body: Record<string, unknown>, priority: Priority) {
    return runner.run(
      'search',
      priority,
      async () => (await sdk()).crm.objects.searchApi.doSearch(type, body as unknown as Parameters<Client['crm']['objects']['searchApi']['doSearch']>[1]),
      'search',
    );
  }

  const finder = hubspotRecordFinder({
    apiType,
    search: (type, body, priority) => search(type, body, priority) as never,
    batchCreate: (type, inputs, priority) =>
      runner.run('batch_create', priority, async () => {
        const res = await (await sdk()).crm.objects.batchApi.create(type, { inputs });
        return { results: res.results as SdkObject[], errors: 'errors' in res ? ((res.errors ?? []) as unknown[]) : [] };
      }),
  });

  return {
    kind: 'hubspot',
    connection,
    batchSize: HUBSPOT_BATCH_SIZE,
    objectTypes: ['contact', 'company'],
    ...finder,

    async readRecords(objectType: string, ids: string[], properties: string[]): Promise<CrmRecord[]> {
      const type = apiType(objectType);
      const out: CrmRecord[] = [];
      for (const part of chunk([...new Set(ids)], HUBSPOT_BATCH_SIZE)) {
        const res = await runner.run('batch_read', priorityFor(part.length), async () =>
          (await sdk()).crm.objects.batchApi.read(type, { inputs: part.map((id) => ({ id })), properties, propertiesWithHistory: [] }, false),
        );
        out.push(...(res.results as SdkObject[]).map(toRecord));
      }
      return out;
    },

    async writeRecords(objectType: string, updates: RecordUpdate[]): Promise<WriteResult[]> {
      const type = apiType(objectType);
      return writeInBatches(updates, HUBSPOT_BATCH_SIZE, async (inputs) =>
        runner.run('batch_update', priorityFor(inputs.length), async () => {
          const res = await (await sdk()).crm.objects.batchApi.update(type, { inputs });
          return { results: res.results as { id: string }[], errors: 'errors' in res ? ((res.errors ?? []) as unknown[]) : [] };
        }),
      );
    },

    async listRecords(objectType: string, list: ListOptions): Promise<RecordPage> {
      const type = apiType(objectType);
      if (list.changedSince) {
        // Paging by id rather than `after` keeps going past search's 10,000-result ceiling.
        const limit = Math.min(list.limit ?? HUBSPOT_BATCH_SIZE, SEARCH_PAGE_MAX);
        const filters: Record<string, unknown>[] = [{ propertyName: LAST_MODIFIED[type], operator: 'GTE', value: String(list.changedSince.getTime()) }];
        if (list.cursor) filters.push({ propertyName: 'hs_object_id', operator: 'GT', value: list.cursor });
        const res = await search(type, { filterGroups: [{ filters }], sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }], properties: list.properties, limit }, 'bulk');
        const records = (res.results as SdkObject[]).map(toRecord);
        const last = records[records.length - 1];
        return { records, ...(res.paging?.next && last ? { next: last.id } : {}) };
      }
      const limit = Math.min(list.limit ?? HUBSPOT_BATCH_SIZE, HUBSPOT_BATCH_SIZE);
      const res = await runner.run('list', 'bulk', async () => (await sdk()).crm.objects.basicApi.getPage(type, limit, list.cursor, list.properties));
      const next = res.paging?.next?.after;
      return { records: (res.results as SdkObject[]).map(toRecord), ...(next ? { next } : {}) };
    },

    prepare: readPortalId,

    async readSchema(objectType: string): Promise<CrmProperty[]> {
      return hubspotPropertiesToCrm(await rawProperties(apiType(objectType)));
    },

    async ensureProperties(objectType: string, wanted: PropertySpec[]): Promise<ProvisionResult> {
      const type = apiType(objectType);
      const existing = hubspotPropertiesToCrm(await rawProperties(type)).map((p) => p.name);
      return ensureHubspotProperties(wanted, new Set(existing), {
        createGroup: (group) => runner.run('property_group_create', 'interactive', async () => (await sdk()).crm.properties.groupsApi.create(type, group)),
        createProperty: (create) =>
          runner.run('property_create', 'interactive', async () =>
            (await sdk()).crm.properties.coreApi.create(type, create as unknown as Parameters<Client['crm']['properties']['coreApi']['create']>[1]),
          ),
      });
    },

    // HubSpot: "new objects take a few moments to appear" in search; a minute covers it with room.
    listingLagMs: 60_000,

    companyObjectType: 'company',

    companyLinkProperties: { contact: 'associatedcompanyid' },

    async findCompaniesByDomain(domains: string[], callOptions?: CallOptions): Promise<Map<string, CompanyMatch>> {
      const wanted = [...new Set(domains.map(websiteDomain).filter((d) => d))];
      const found = new Map<string, CompanyMatch>();
      // One search per 100 domains (HubSpot's limit on IN values); the oldest company per domain wins.
      for (let i = 0; i < wanted.length; i += HUBSPOT_BATCH_SIZE) {
        const values = wanted.slice(i, i + HUBSPOT_BATCH_SIZE);
        let after: string | undefined;
        do {
          const page = await search(
            'companies',
            {
              filterGroups: [{ filters: [{ propertyName: 'domain', operator: 'IN', values }] }],
              sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
              properties: ['domain'],
              limit: SEARCH_PAGE_MAX,
              ...(after ? { after } : {}),
            },
            callOptions?.priority ?? 'bulk',
          );
          for (const company of page.results) {
            const domain = websiteDomain(company.properties.domain ?? '');
            if (!domain) continue;
            const match = found.get(domain);
            if (match) match.others.push(company.id);
            else found.set(domain, { id: company.id, others: [] });
          }
          after = page.paging?.next?.after;
        } while (after);
      }
      return found;
    },

    async findCompaniesByKeys(keys: { partnerIdProperty?: string; partnerIds: string[]; names: string[] }, callOptions?: CallOptions): Promise<FoundCompany[]> {
      // IN takes text values in lower case (it matches stored values case-insensitively).
      const ids = keys.partnerIdProperty ? [...new Set(keys.partnerIds.map((v) => v.toLowerCase()))] : [];
      const names = [...new Set(keys.names.map((n) => n.trim().toLowerCase()).filter(Boolean))];
      const out = new Map<string, FoundCompany>();
      // Up to 100 values per IN filter; the two keys are two filter groups (OR) of one search.
      for (let i = 0; i < Math.max(ids.length, names.length); i += HUBSPOT_BATCH_SIZE) {
        const idPart = ids.slice(i, i + HUBSPOT_BATCH_SIZE);
        const namePart = names.slice(i, i + HUBSPOT_BATCH_SIZE);
        const filterGroups = [
          ...(idPart.length ? [{ filters: [{ propertyName: keys.partnerIdProperty!, operator: 'IN', values: idPart }] }] : []),
          ...(namePart.length ? [{ filters: [{ propertyName: 'name', operator: 'IN', values: namePart }] }] : []),
        ];
        let after: string | undefined;
        do {
          const page = await search(
            'companies',
            {
              filterGroups,
              sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
              properties: ['name', ...(keys.partnerIdProperty ? [keys.partnerIdProperty] : [])],
              limit: SEARCH_PAGE_MAX,
              ...(after ? { after } : {}),
            },
            callOptions?.priority ?? 'bulk',
          );
          for (const c of page.results) {
            out.set(c.id, { id: c.id, partnerId: (keys.partnerIdProperty ? c.properties[keys.partnerIdProperty] : null) ?? null, name: c.properties.name ?? null });
          }
          after = page.paging?.next?.after;
        } while (after);
      }
      return [...out.values()];
    },

    async createCompanies(companies: NewCompany[], callOptions?: CallOptions): Promise<WriteResult[]> {
      const out: WriteResult[] = [];
      for (const part of chunk(companies, HUBSPOT_BATCH_SIZE)) {
        const inputs = part.map((c) => ({ properties: { ...c.properties, domain: c.domain, name: c.name }, associations: [] }));
        try {
          const res = await runner.run('company_create', callOptions?.priority ?? priorityFor(part.length), async () =>
            (await sdk()).crm.companies.batchApi.create({ inputs }),
          );
          // HubSpot does not promise the input order in a batch answer: each result is matched by its domain.
          const byDomain = new Map<string, string>();
          for (const r of res.results) byDomain.set(websiteDomain(r.properties.domain ?? ''), r.id);
          for (const c of part) {
            const id = byDomain.get(websiteDomain(c.domain));
            out.push(id ? { id, ok: true } : { id: '', ok: false, error: { code: 'not_created', message: `HubSpot did not create a company for ${c.domain}`, retryable: true } });
          }
        } catch (error) {
          const e = error instanceof CrmError ? error : undefined;
          if (!e || e.code !== 'validation') throw error;
          for (const _ of part) out.push({ id: '', ok: false, error: { code: 'validation', message: e.message, retryable: false } });
        }
      }
      return out;
    },

    async linkToCompanies(objectType: string, links: CompanyLink[], callOptions?: CallOptions): Promise<CompanyLinkResult[]> {
      if (apiType(objectType) !== 'contacts') throw new CrmError('hubspot', 'validation', `HubSpot links contacts with companies, not ${objectType} records`);
      const results = new Map<CompanyLink, CompanyLinkResult>();
      const todo = links.filter((link) => {
        if (link.currentPrimary !== link.companyId) return true;
        results.set(link, { recordId: link.recordId, companyId: link.companyId, outcome: 'already_linked' });
        return false;
      });
      for (const part of chunk(todo, ASSOCIATION_BATCH_LIMIT)) {
        const inputs = part.map((link) => ({
          _from: { id: link.recordId },
          to: { id: link.companyId },
          types: [CONTACT_TO_COMPANY.unlabeled, ...(link.currentPrimary ? [] : [CONTACT_TO_COMPANY.primary])].map((associationTypeId) => ({
            associationCategory: AssociationSpecAssociationCategoryEnum.HubspotDefined,
            associationTypeId,
          })),
        }));
        const res = await runner.run('association_create', callOptions?.priority ?? priorityFor(part.length), async () =>
          (await sdk()).crm.associations.v4.batchApi.create('contacts', 'companies', { inputs }),
        );
        const made = new Set(res.results.map((r) => `${r.fromObjectId}:${r.toObjectId}`));
        const failure = 'errors' in res && res.errors?.length ? res.errors.map((e) => e.category).join(', ') : 'not linked';
        for (const link of part) {
          const ok = made.has(`${link.recordId}:${link.companyId}`);
          results.set(link, {
            recordId: link.recordId,
            companyId: link.companyId,
            outcome: ok ? (link.currentPrimary ? 'linked' : 'linked_primary') : 'failed',
            ...(ok ? {} : { error: failure }),
          });
        }
      }
      return links.map((link) => results.get(link)!);
    },

    webhook: createHubspotWebhookHandler({
      clientSecret: options.clientSecret,
      portalId: () => portalId,
      connection,
      publicUrl: options.publicUrl,
      watchProperties: options.webhookPropertyWatch,
      acceptLegacySignatures: options.acceptLegacySignatures,
    }),

    stats: () => runner.stats(),

    async close(): Promise<void> {
      runner.close();
      await Promise.all(ownLimiters.map((l) => l.stop()));
    },
  };
}
