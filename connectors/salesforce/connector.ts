/**
 * The Salesforce connector over jsforce: reads by id through SOQL (chunked to fit the URI limit, following
 * query locators), writes through sObject Collections in chunks of 200, sweeps by LastModifiedDate with a
 * keyset cursor, finds Accounts by website domain, and spends the org's shared API allocation carefully (api-budget.ts).
 */
import { Connection } from 'jsforce';
import {
  CrmError, type CallOptions, type CompanyMatch, type FoundCompany, type NewCompany, type ConnectorStats, type CrmConnector, type CrmProperty, type CrmRecord, type ListOptions,
  type PropertySpec, type ProvisionResult, type RecordPage, type RecordUpdate, type WriteResult,
} from '../../src/core/connector.js';
import type { Priority, RateLimiter } from '../../src/core/limiter.js';
import { logger } from '../../src/logger.js';
import { ApiBudget } from './api-budget.js';
import { canRefresh, requestSession, type SalesforceAuth, type Session } from './auth.js';
import { isConcurrentLimit, isRetryableRecordError, salesforceErrorCode, toCrmError } from './errors.js';
import { toId18 } from './ids.js';
import { planProvisioning } from './provisioning.js';
import { salesforceDescribeToCrm } from './schema.js';
import { checkFieldNames, chunkIdQueries, chunkKeyQueries, chunkWebsiteQueries, selectChanged, type KeysetCursor } from './soql.js';
import { createSalesforceWebhookHandler } from './webhook.js';
import { salesforceRecordFinder } from './record-finder.js';
import { websiteDomain } from '../../src/core/domain.js';

export const SALESFORCE_OBJECT_TYPES = ['Lead', 'Contact', 'Account'] as const;
const COLLECTION_LIMIT = 200;
const MAX_PAGE = 2000;
/** Longest host name DNS allows; anything longer is not a domain worth a query. */
const MAX_DOMAIN = 253;
const log = logger('connector.salesforce');

export interface SalesforceConnectorOptions {
  auth: SalesforceAuth;
  /** jsforce defaults to 50.0; collections need 42.0 or later. */
  version?: string;
  /** Connection name (one per org); `default` unless several are configured. */
  connection?: string;
  /** The org this connection serves (15 or 18 characters); inbound messages from other orgs are refused. */
  orgId?: string;
  webhookSecret?: string;
  /** Daily API calls left to other integrations: bulk work stops here. */
  apiReserve?: number;
  /** Interactive work stops here (default: a fifth of apiReserve). */
  interactiveReserve?: number;
  limitsRecheckMs?: number;
  /** The CRM connection's shared rate limiter, when the service runs one. */
  limiter?: RateLimiter;
  maxUriLength?: number;
}

interface QueryPage {
  records: Record<string, unknown>[];
  nextRecordsUrl?: string;
}

function toIso(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function asString(value: unknown): string | null {
  if (value === null || value === undefined || typeof value === 'object') return null;
  return String(value);
}

export function createSalesforceConnector(options: SalesforceConnectorOptions): CrmConnector {
  const version = options.version ?? '62.0';
  const connectionName = options.connection ?? 'default';
  const byOperation: Record<string, number> = {};
  let calls = 0;
  let session: Session | undefined;
  let conn: Connection | undefined;
  let refreshing: Promise<void> | undefined;
  const schemaCache = new Map<string, Promise<CrmProperty[]>>();

  const countCall = (operation: string) => {
    calls += 1;
    byOperation[operation] = (byOperation[operation] ?? 0) + 1;
  };

  async function establish(): Promise<void> {
    byOperation['oauth.token'] = (byOperation['oauth.token'] ?? 0) + (options.auth.kind === 'token' ? 0 : 1);
    session = await requestSession(options.auth);
    if (options.orgId && session.orgId && session.orgId.slice(0, 15) !== options.orgId.slice(0, 15)) {
      throw new CrmError('salesforce', 'auth', `The credentials belong to org ${session.orgId}, not the configured SALESFORCE_ORG_ID ${options.orgId}.`);
    }
    conn = new Connection({ instanceUrl: session.instanceUrl, accessToken: session.accessToken, version });
  }

  async function connection(): Promise<Connection> {
    if (refreshing) await refreshing;
    if (!conn) {
      refreshing ??= establish().finally(() => {
        refreshing = undefined;
      });
      await refreshing;
    }
    return conn as Connection;
  }

  /** One HTTP request to the REST API: one call in Salesforce's count, retried once with a new session on 401. */
  async function request<T>(operation: string, send: (c: Connection) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const c = await connection();
      const token = c.accessToken;
      try {
        const result = await send(c);
        countCall(operation);
        observe(c);
        return result;
      } catch (err) {
        const code = salesforceErrorCode(err);
        if (code === 'INVALID_SESSION_ID' && attempt === 0 && canRefresh(options.auth)) {
          log.info({ operation }, 'salesforce session expired; requesting a new one');
          if (conn?.accessToken === token) conn = undefined;
          continue;
        }
        if (code === 'REQUEST_LIMIT_EXCEEDED' && !isConcurrentLimit(err instanceof Error ? err.message : String(err))) budget.exhausted();
        else if (code && code !== 'INVALID_SESSION_ID') {
          countCall(operation);
          observe(c);
        }
        throw toCrmError(err, operation);
      }
    }
  }

  /** Whether /limits may be read (see the budget's reader); the last Sforce-Limit-Info reading. */
  let limitsReadable = true;
  let lastObserved: { max: number; remaining: number } | undefined;
  function observe(c: Connection): void {
    const usage = c.limitInfo?.apiUsage;
    if (!usage) return;
    lastObserved = { max: usage.limit, remaining: Math.max(0, usage.limit - usage.used) };
    budget.observeUsage(usage.used, usage.limit);
  }

  /** Before any answer has said how many calls are left: let the call go, its answer will say. */
  const UNKNOWN_LIMITS = { max: 0, remaining: Number.POSITIVE_INFINITY };
  const budget = new ApiBudget(
    { reserve: options.apiReserve ?? 5000, interactiveReserve: options.interactiveReserve, recheckMs: options.limitsRecheckMs },
    async () => {
      if (!limitsReadable) return lastObserved ?? UNKNOWN_LIMITS;
      let daily;
      try {
        daily = (await request('limits', (c) => c.limits())).DailyApiRequests;
      } catch (error) {
        // The Limits resource needs "View Setup and Configuration", which an integration user often
        // lacks; every answer's Sforce-Limit-Info header says the same, so read it from there.
        if (!(error instanceof CrmError) || error.details?.errorCode !== 'INSUFFICIENT_ACCESS') throw error;
        limitsReadable = false;
        log.warn({ connection }, 'the integration user may not read /limits (it needs View Setup and Configuration); the daily API allocation is read from the Sforce-Limit-Info header instead');
        return lastObserved ?? UNKNOWN_LIMITS;
      }
      if (!daily) throw new CrmError('salesforce', 'unavailable', 'Salesforce /limits did not report DailyApiRequests; try again later.');
      return { max: daily.Max, remaining: daily.Remaining };
    },
  );

  async function call<T>(operation: string, priority: Priority, send: (c: Connection) => Promise<T>): Promise<T> {
    await budget.admit(priority);
    const run = () => request(operation, send);
    return options.limiter ? options.limiter.schedule(priority, run) : run();
  }

  function checkObjectType(objectType: string): void {
    if (!(SALESFORCE_OBJECT_TYPES as readonly string[]).includes(objectType)) {
      throw new CrmError('salesforce', 'validation', `Unsupported Salesforce object '${objectType}'; expected one of ${SALESFORCE_OBJECT_TYPES.join(', ')}.`);
    }
  }

  function toRecord(raw: Record<string, unknown>, properties: string[]): CrmRecord {
    const lower = new Map(Object.keys(raw).map((k) => [k.toLowerCase(), k]));
    const props: Record<string, string | null> = {};
    for (const p of properties) props[p] = asString(raw[lower.get(p.toLowerCase()) ?? p]);
    return { id: String(raw.Id), properties: props, createdAt: toIso(raw.CreatedDate), updatedAt: toIso(raw.LastModifiedDate) };
  }

  async function queryAll(soql: string, priority: Priority): Promise<Record<string, unknown>[]> {
    const records: Record<string, unknown>[] = [];
    let page = await call('query', priority, async (c) => (await c.query(soql)) as unknown as QueryPage);
    records.push(...page.records);
    while (page.nextRecordsUrl) {
      const locator = page.nextRecordsUrl;
      page = await call('queryMore', priority, async (c) => (await c.queryMore(locator)) as unknown as QueryPage);
      records.push(...page.records);
    }
    return records;
  }

  const selectFields = (properties: string[]) => [...new Set(['Id', 'CreatedDate', 'LastModifiedDate', ...properties])];

  async function readSchema(objectType: string, priority: Priority = 'interactive'): Promise<CrmProperty[]> {
    checkObjectType(objectType);
    let cached = schemaCache.get(objectType);
    if (!cached) {
      cached = call('describe', priority, (c) => c.describe(objectType)).then((d) => salesforceDescribeToCrm(d));
      cached.catch(() => schemaCache.delete(objectType));
      schemaCache.set(objectType, cached);
    }
    return cached;
  }

  /** Strings as the core writes them, typed as Salesforce's JSON expects; an empty string clears. */
  function encodeValue(value: string, property: CrmProperty | undefined): string | number | boolean | null {
    if (value === '') return null;
    if (property?.type === 'number' && Number.isFinite(Number(value))) return Number(value);
    if (property?.type === 'bool' && (value === 'true' || value === 'false')) return value === 'true';
    return value;
  }

  async function writeChunk(objectType: string, chunk: RecordUpdate[], types: Map<string, CrmProperty>, priority: Priority): Promise<WriteResult[]> {
    const records = chunk.map((u) => ({
      Id: u.id,
      ...Object.fromEntries(Object.entries(u.properties).map(([k, v]) => [k, encodeValue(v, types.get(k.toLowerCase()))])),
    }));
    try {
      const results = await call('collections.update', priority, (c) => c.sobject(objectType).update(records, { allOrNone: false }));
      return chunk.map((u, i) => {
        const r = results[i];
        if (r?.success) return { id: u.id, ok: true };
        const first = (r && 'errors' in r ? r.errors : [])[0] as { statusCode?: string; errorCode?: string; message?: string; fields?: string[] } | undefined;
        const code = first?.statusCode ?? first?.errorCode ?? 'UNKNOWN';
        return { id: u.id, ok: false, error: { code, message: first?.message ?? 'Salesforce did not save the record', retryable: isRetryableRecordError(code), fields: first?.fields } };
      });
    } catch (err) {
      if (err instanceof CrmError && err.code === 'validation') {
        const fields = err.details?.fields as string[] | undefined;
        const code = String(err.details?.errorCode ?? 'VALIDATION');
        return chunk.map((u) => ({ id: u.id, ok: false, error: { code, message: err.message, retryable: false, fields } }));
      }
      throw err;
    }
  }

  const finder = salesforceRecordFinder({
    checkObjectType,
    checkFieldNames,
    queryBase: async () => `${(await connection()).instanceUrl}/services/data/v${version}/query?q=`.length,
    maxUriLength: options.maxUriLength,
    queryAll,
    toRecord,
    selectFields,
    describe: (objectType) => readSchema(objectType),
    encodeValue,
    create: (objectType, records, priority) => call('collections.create', priority, (c) => c.sobject(objectType).create(records, { allOrNone: false })),
  });

  const connector: CrmConnector = {
    kind: 'salesforce',
    connection: connectionName,
    batchSize: COLLECTION_LIMIT,
    objectTypes: SALESFORCE_OBJECT_TYPES,
    ...finder,

    async readRecords(objectType, ids, properties, callOptions?: CallOptions) {
      checkObjectType(objectType);
      checkFieldNames(properties);
      const wanted = [...new Set(ids.map((id) => toId18(id)).filter((id): id is string => id !== undefined))];
      if (wanted.length === 0) return [];
      const c = await connection();
      const base = `${c.instanceUrl}/services/data/v${version}/query?q=`.length;
      const fields = selectFields(properties);
      const out: CrmRecord[] = [];
      for (const soql of chunkIdQueries(objectType, fields, wanted, base, options.maxUriLength)) {
        for (const raw of await queryAll(soql, callOptions?.priority ?? 'bulk')) out.push(toRecord(raw, properties));
      }
      return out;
    },

    async writeRecords(objectType, updates, callOptions?: CallOptions) {
      checkObjectType(objectType);
      if (updates.length === 0) return [];
      checkFieldNames(updates.flatMap((u) => Object.keys(u.properties)));
      const priority = callOptions?.priority ?? 'bulk';
      const types = new Map((await readSchema(objectType, priority)).map((p) => [p.name.toLowerCase(), p]));
      const results: WriteResult[] = new Array(updates.length);
      const sendable: { index: number; update: RecordUpdate }[] = [];
      updates.forEach((u, index) => {
        const id = toId18(u.id);
        if (id) sendable.push({ index, update: { ...u, id } });
        else results[index] = { id: u.id, ok: false, error: { code: 'MALFORMED_ID', message: `'${u.id}' is not a Salesforce record id`, retryable: false, fields: ['Id'] } };
      });
      for (let start = 0; start < sendable.length; start += COLLECTION_LIMIT) {
        const chunk = sendable.slice(start, start + COLLECTION_LIMIT);
        let chunkResults: WriteResult[];
        try {
          chunkResults = await writeChunk(objectType, chunk.map((s) => s.update), types, priority);
        } catch (err) {
          if (start === 0) throw err;
          // Earlier chunks are saved: report them, and the rest as not written for the caller to retry.
          const e = toCrmError(err, 'collections.update');
          for (const s of sendable.slice(start)) {
            results[s.index] = { id: updates[s.index]?.id ?? s.update.id, ok: false, error: { code: e.code, message: e.message, retryable: e.code !== 'validation' } };
          }
          break;
        }
        chunkResults.forEach((r, i) => {
          const index = chunk[i]?.index ?? 0;
          results[index] = { ...r, id: updates[index]?.id ?? r.id };
        });
      }
      return results;
    },

    async listRecords(objectType, list: ListOptions, callOptions?: CallOptions): Promise<RecordPage> {
      checkObjectType(objectType);
      checkFieldNames(list.properties);
      const limit = Math.max(1, Math.min(list.limit ?? 200, MAX_PAGE));
      const after = list.cursor ? decodeCursor(list.cursor) : undefined;
      const soql = selectChanged(objectType, selectFields(list.properties), list.changedSince, after, limit);
      const raw = await queryAll(soql, callOptions?.priority ?? 'bulk');
      const records = raw.map((r) => toRecord(r, list.properties));
      const last = raw.at(-1);
      const next = raw.length === limit && last ? encodeCursor({ lastModified: toIso(last.LastModifiedDate) ?? '', id: String(last.Id) }) : undefined;
      return next ? { records, next } : { records };
    },

    companyObjectType: 'Account',

    companyLinkProperties: { Contact: 'AccountId' },
    companyLinkInWrite: true,

    async findCompaniesByDomain(domains: string[], callOptions?: CallOptions): Promise<Map<string, CompanyMatch>> {
      const wanted = new Set(domains.map(websiteDomain).filter((d) => d.includes('.') && d.length <= MAX_DOMAIN && !/[\s\p{Cc}]/u.test(d)));
      const found = new Map<string, CompanyMatch>();
      if (wanted.size === 0) return found;
      const c = await connection();
      const base = `${c.instanceUrl}/services/data/v${version}/query?q=`.length;
      for (const soql of chunkWebsiteQueries([...wanted], base, options.maxUriLength)) {
        // LIKE finds look-alikes too (notacme.com for acme.com); only an exact website match counts. Oldest Account wins.
        for (const raw of await queryAll(soql, callOptions?.priority ?? 'bulk')) {
          const domain = websiteDomain(asString(raw.Website) ?? '');
          if (!wanted.has(domain)) continue;
          const match = found.get(domain);
          if (match) match.others.push(String(raw.Id));
          else found.set(domain, { id: String(raw.Id), others: [] });
        }
      }
      return found;
    },

    async findCompaniesByKeys(keys: { partnerIdProperty?: string; partnerIds: string[]; names: string[] }, callOptions?: CallOptions): Promise<FoundCompany[]> {
      const field = keys.partnerIdProperty;
      if (field) checkFieldNames([field]);
      const terms = [
        ...(field ? [...new Set(keys.partnerIds)].map((v) => ({ field, value: v })) : []),
        ...[...new Set(keys.names.map((n) => n.trim()).filter(Boolean))].map((v) => ({ field: 'Name', value: v })),
      ];
      if (terms.length === 0) return [];
      const c = await connection();
      const base = `${c.instanceUrl}/services/data/v${version}/query?q=`.length;
      const out = new Map<string, FoundCompany>();
      for (const soql of chunkKeyQueries(terms, field ? ['Id', 'Name', field] : ['Id', 'Name'], base, options.maxUriLength)) {
        for (const raw of await queryAll(soql, callOptions?.priority ?? 'bulk')) {
          out.set(String(raw.Id), { id: String(raw.Id), partnerId: field ? (asString(raw[field]) ?? null) : null, name: asString(raw.Name) ?? null });
        }
      }
      return [...out.values()];
    },

    async createCompanies(companies: NewCompany[], callOptions?: CallOptions): Promise<WriteResult[]> {
      const priority = callOptions?.priority ?? 'bulk';
      const out: WriteResult[] = [];
      for (let start = 0; start < companies.length; start += COLLECTION_LIMIT) {
        const part = companies.slice(start, start + COLLECTION_LIMIT);
        const records = part.map((c) => ({ ...c.properties, Name: c.name, Website: c.domain }));
        const results = await call('collections.create', priority, (conn) => conn.sobject('Account').create(records, { allOrNone: false }));
        part.forEach((_, i) => {
          const r = results[i];
          if (r?.success && r.id) out.push({ id: r.id, ok: true });
          else {
            const first = (r && 'errors' in r ? r.errors : [])[0] as { statusCode?: string; errorCode?: string; message?: string } | undefined;
            const code = first?.statusCode ?? first?.errorCode ?? 'UNKNOWN';
            out.push({ id: '', ok: false, error: { code, message: first?.message ?? 'Salesforce did not create the Account', retryable: isRetryableRecordError(code) } });
          }
        });
      }
      return out;
    },

    readSchema: (objectType) => readSchema(objectType),

    async ensureProperties(objectType: string, wanted: PropertySpec[]): Promise<ProvisionResult> {
      schemaCache.delete(objectType);
      return planProvisioning(objectType, await readSchema(objectType, 'interactive'), wanted);
    },

    webhook: createSalesforceWebhookHandler({ orgId: options.orgId, secret: options.webhookSecret, connection: connectionName }),

    stats(): ConnectorStats {
      return { calls, byOperation: { ...byOperation } };
    },

    async close() {
      conn = undefined;
      schemaCache.clear();
    },
  };
  return connector;
}

function encodeCursor(cursor: KeysetCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(cursor: string): KeysetCursor {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<KeysetCursor>;
    if (typeof parsed.lastModified === 'string' && !Number.isNaN(Date.parse(parsed.lastModified)) && typeof parsed.id === 'string' && toId18(parsed.id)) {
      return { lastModified: parsed.lastModified, id: toId18(parsed.id) ?? parsed.id };
    }
  } catch {
    // fall through to the error below
  }
  throw new CrmError('salesforce', 'validation', 'The list cursor is not one this connector issued; start the listing again without a cursor.');
}
