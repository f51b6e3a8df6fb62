/**
 * The Salesforce connector over jsforce: reads by id through SOQL (chunked to fit the URI limit, following
 * query locators), writes through sObject Collections in chunks of 200 (large bulk writes through one Bulk
 * API 2.0 ingest job, bulk-write.ts), sweeps by LastModifiedDate with a keyset cursor, finds Accounts by
 * website domain, and spends the org's shared API allocation carefully (api-budget.ts).
 */
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
import type { SalesforceAuth } from './auth.js';
import { soqlConditions } from './list-conditions.js';
import { isRetryableRecordError, toCrmError } from './errors.js';
import { toId18 } from './ids.js';
import { provisionFields } from './field-provisioning.js';
import { INTEGRATION_PERMISSION_SET } from './permission-set.js';
import { salesforceDescribeToCrm } from './schema.js';
import { checkFieldNames, chunkIdQueries, likeContaining, selectChanged, soqlString } from './soql.js';
import { createSalesforceWebhookHandler } from './webhook.js';
import { salesforceRecordFinder } from './record-finder.js';
import { salesforceJobChangeActions } from './job-change-actions.js';
import { salesforceCompanies } from './companies.js';
import { COLLECTION_LIMIT, decodeCursor, encodeCursor, encodeValue, toIso, toRecord } from './record-wire.js';
import { salesforceSession } from './session.js';
import { BULK_PAGE, salesforceBulkQuery } from './bulk-query.js';
import { CountAnswer, QueryPage, SaveResults, UserInfo } from './wire-schemas.js';
import { DEFAULT_INGEST_POLLING, ingestUpdates, type IngestPolling } from './bulk-write.js';
import { salesforceSegments } from './segments.js';
import { parseCrmAnswer } from '../../src/core/crm-answer.js';

export const SALESFORCE_OBJECT_TYPES = ['Lead', 'Contact', 'Account'] as const;
const MAX_PAGE = 2000;

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
  /** The integration user's permission set, granted the fields `ensureProperties` creates. */
  permissionSet?: string;
  /** Interactive work stops here (default: a fifth of apiReserve). */
  interactiveReserve?: number;
  limitsRecheckMs?: number;
  /** The CRM connection's shared rate limiter, when the service runs one. */
  limiter?: RateLimiter;
  maxUriLength?: number;
  /** Whole-object reads of more records than this go through Bulk API 2.0 query jobs (default 2,000). */
  bulkThreshold?: number;
  /** First wait between checks of a running Bulk API 2.0 query job (default 2 s; it doubles up to 30 s). */
  bulkPollMs?: number;
  /**
   * Bulk-priority writes of at least this many records go through one Bulk API 2.0 ingest job rather
   * than a collections call per 200 (default 2000, Salesforce's own threshold); 0 never uses it.
   */
  bulkWriteMin?: number;
  /** How ingest jobs are polled (first wait 0.5 s, doubling to 10 s, given up after 10 minutes). */
  ingestPolling?: IngestPolling;
}

export function createSalesforceConnector(options: SalesforceConnectorOptions): CrmConnector {
  const version = options.version ?? '62.0';
  const connectionName = options.connection ?? 'default';
  const session = salesforceSession(options, version);
  const { connection, call } = session;
  const schemaCache = new Map<string, Promise<CrmProperty[]>>();
  const bulkQuery = salesforceBulkQuery({ session, version, pollMs: options.bulkPollMs });
  const bulkWriteMin = options.bulkWriteMin ?? 2000;
  /** Whether these writes go through one ingest job: bulk work, enough of it, each record once. */
  const ingests = (priority: Priority, updates: RecordUpdate[]) =>
    priority === 'bulk' &&
    bulkWriteMin > 0 &&
    updates.length >= bulkWriteMin &&
    new Set(updates.map((u) => u.id)).size === updates.length;

  function checkObjectType(objectType: string): void {
    if (!(SALESFORCE_OBJECT_TYPES as readonly string[]).includes(objectType)) {
      throw new CrmError(
        'salesforce',
        'validation',
        `Unsupported Salesforce object '${objectType}'; expected one of ${SALESFORCE_OBJECT_TYPES.join(', ')}.`,
      );
    }
  }

  async function queryAll(soql: string, priority: Priority): Promise<Record<string, unknown>[]> {
    const records: Record<string, unknown>[] = [];
    let page = parseCrmAnswer(
      'salesforce',
      QueryPage,
      await call('query', priority, async (c) => (await c.query(soql)) as unknown),
      'query',
    );
    records.push(...page.records);
    while (page.nextRecordsUrl) {
      const locator = page.nextRecordsUrl;
      page = parseCrmAnswer(
        'salesforce',
        QueryPage,
        await call('queryMore', priority, async (c) => (await c.queryMore(locator)) as unknown),
        'queryMore',
      );
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

  async function writeChunk(
    objectType: string,
    chunk: RecordUpdate[],
    types: Map<string, CrmProperty>,
    priority: Priority,
  ): Promise<WriteResult[]> {
    const records = chunk.map((u) => ({
      Id: u.id,
      ...Object.fromEntries(
        Object.entries(u.properties).map(([k, v]) => [k, encodeValue(v, types.get(k.toLowerCase()))]),
      ),
    }));
    try {
      const results = parseCrmAnswer(
        'salesforce',
        SaveResults,
        await call('collections.update', priority, (c) => c.sobject(objectType).update(records, { allOrNone: false })),
        'collections.update',
      );
      return chunk.map((u, i) => {
        const r = results[i];
        if (r?.success) return { id: u.id, ok: true };
        const first = r?.errors?.[0];
        const code = first?.statusCode ?? first?.errorCode ?? 'UNKNOWN';
        return {
          id: u.id,
          ok: false,
          error: {
            code,
            message: first?.message ?? 'Salesforce did not save the record',
            retryable: isRetryableRecordError(code),
            fields: first?.fields,
          },
        };
      });
    } catch (err) {
      if (err instanceof CrmError && err.code === 'validation') {
        const fields = err.details?.fields as string[] | undefined;
        const errorCode = err.details?.errorCode;
        const code = typeof errorCode === 'string' ? errorCode : 'VALIDATION';
        return chunk.map((u) => ({
          id: u.id,
          ok: false,
          error: { code, message: err.message, retryable: false, fields },
        }));
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
    create: async (objectType, records, priority) =>
      parseCrmAnswer(
        'salesforce',
        SaveResults,
        await call('collections.create', priority, (c) => c.sobject(objectType).create(records, { allOrNone: false })),
        'collections.create',
      ),
  });

  const segments = salesforceSegments({ call, queryAll });

  const connector: CrmConnector = {
    crm: 'salesforce',
    connection: connectionName,
    batchSize: COLLECTION_LIMIT,
    // The lane gathers bulk writes until one ingest job can take them.
    writeBatchSize: (priority) =>
      priority === 'bulk' && bulkWriteMin > 0 ? Math.max(COLLECTION_LIMIT, bulkWriteMin) : COLLECTION_LIMIT,
    objectTypes: SALESFORCE_OBJECT_TYPES,
    ...finder,

    async listMembers(objectType, listId, callOptions?: CallOptions) {
      checkObjectType(objectType);
      return segments.listMembers(objectType, listId, callOptions);
    },

    async findList(objectType, name, callOptions?: CallOptions) {
      checkObjectType(objectType);
      return segments.findList(objectType, name, callOptions);
    },

    async findRecordsWhere(objectType, condition, properties, callOptions?: CallOptions) {
      checkObjectType(objectType);
      checkFieldNames(properties);
      const soql = `SELECT ${selectFields(properties).join(', ')} FROM ${objectType} WHERE (${condition}) ORDER BY Id`;
      return (await queryAll(soql, callOptions?.priority ?? 'bulk')).map((raw) => toRecord(raw, properties));
    },

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
      const results = new Array<WriteResult>(updates.length);
      const sendable: { index: number; update: RecordUpdate }[] = [];
      updates.forEach((u, index) => {
        const id = toId18(u.id);
        if (id) sendable.push({ index, update: { ...u, id } });
        else
          results[index] = {
            id: u.id,
            ok: false,
            error: {
              code: 'MALFORMED_ID',
              message: `'${u.id}' is not a Salesforce record id`,
              retryable: false,
              fields: ['Id'],
            },
          };
      });
      if (
        ingests(
          priority,
          sendable.map((s) => s.update),
        )
      ) {
        const ingested = await ingestUpdates(
          session,
          objectType,
          sendable.map((s) => ({ id: s.update.id, properties: s.update.properties })),
          priority,
          options.ingestPolling ?? DEFAULT_INGEST_POLLING,
        );
        ingested.forEach((r, i) => {
          const index = sendable[i]!.index;
          results[index] = { ...r, id: updates[index]?.id ?? r.id };
        });
        return results;
      }
      for (let start = 0; start < sendable.length; start += COLLECTION_LIMIT) {
        const chunk = sendable.slice(start, start + COLLECTION_LIMIT);
        let chunkResults: WriteResult[];
        try {
          chunkResults = await writeChunk(
            objectType,
            chunk.map((s) => s.update),
            types,
            priority,
          );
        } catch (err) {
          if (start === 0) throw err;
          // Earlier chunks are saved: report them, and the rest as not written for the caller to retry.
          const e = toCrmError(err, 'collections.update');
          for (const s of sendable.slice(start)) {
            results[s.index] = {
              id: updates[s.index]?.id ?? s.update.id,
              ok: false,
              error: { code: e.code, message: e.message, retryable: e.code !== 'validation' },
            };
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
      const priority = callOptions?.priority ?? 'bulk';
      const conditions = list.where?.length
        ? soqlConditions(
            list.where,
            new Map((await readSchema(objectType, priority)).map((p) => [p.name.toLowerCase(), p])),
          )
        : [];
      const soql = selectChanged(
        objectType,
        selectFields(list.properties),
        list.changedSince,
        after,
        limit,
        conditions,
      );
      const raw = await queryAll(soql, priority);
      const records = raw.map((r) => toRecord(r, list.properties));
      const last = raw.at(-1);
      const next =
        raw.length === limit && last
          ? encodeCursor({ lastModified: toIso(last.LastModifiedDate) ?? '', id: String(last.Id) })
          : undefined;
      return next ? { records, next } : { records };
    },

    bulkReadThreshold: options.bulkThreshold ?? 2000,

    async bulkRead(objectType, properties, cursor, readOptions) {
      checkObjectType(objectType);
      checkFieldNames(properties);
      // No ORDER BY: it would turn off the primary-key chunking that makes big query jobs fast (so would a
      // LIMIT, which only a limited read asks for: its job then holds what it reads and is deleted after it).
      const limit = readOptions?.limit === undefined ? '' : ` LIMIT ${Math.max(1, Math.floor(readOptions.limit))}`;
      return bulkQuery.read({
        soql: `SELECT ${selectFields(properties).join(', ')} FROM ${objectType}${limit}`,
        properties,
        cursor,
        pageSize: readOptions?.pageSize ?? BULK_PAGE,
        priority: readOptions?.priority ?? 'bulk',
        signal: readOptions?.signal,
      });
    },

    async countRecords(objectType, callOptions?: CallOptions) {
      checkObjectType(objectType);
      const answer = parseCrmAnswer(
        'salesforce',
        CountAnswer,
        await call(
          'query',
          callOptions?.priority ?? 'bulk',
          async (c) => (await c.query(`SELECT COUNT() FROM ${objectType}`)) as unknown,
        ),
        'query',
      );
      return answer.totalSize;
    },

    async searchRecords(objectType, text, properties, limit) {
      checkObjectType(objectType);
      checkFieldNames(properties);
      // Without SOSL's index a LIKE on the name fields finds the same people; an exact e-mail or website is cheaper.
      const term = text.trim().replace(/\s+/g, ' ');
      // A full name ("Lucas Ryan") also as first and last name, at each place it may split: a person's
      // Name is compound, and a middle name or a salutation kept in it would hide the whole from LIKE.
      const words = term.split(' ');
      const splits = term.includes('@')
        ? []
        : words
            .slice(1, 6)
            .map(
              (_, i) =>
                `(FirstName = ${soqlString(words.slice(0, i + 1).join(' '))} AND LastName = ` +
                `${soqlString(words.slice(i + 1).join(' '))})`,
            );
      const where =
        objectType === 'Account'
          ? `Name LIKE ${likeContaining(term)} OR Website LIKE ${likeContaining(term)}`
          : [`Email = ${soqlString(term)}`, `Name LIKE ${likeContaining(term)}`, ...splits].join(' OR ');
      const soql =
        `SELECT ${selectFields(properties).join(', ')} FROM ${objectType} WHERE ${where} ORDER BY ` +
        `LastModifiedDate DESC LIMIT ${Math.max(1, Math.min(limit, MAX_PAGE))}`;
      return (await queryAll(soql, 'interactive')).map((r) => toRecord(r, properties));
    },

    async recordUrl(objectType, recordId) {
      const id = toId18(recordId);
      if (!id) return undefined;
      // Lightning's record page; the org's My Domain host redirects to its lightning.force.com twin.
      return `${(await connection()).instanceUrl}/lightning/r/${objectType}/${id}/view`;
    },

    companyObjectType: 'Account',

    companyLinkProperties: { Contact: 'AccountId' },
    recordLabels: {
      Contact: { name: ['Name'], detail: 'Email' },
      Lead: { name: ['Name'], detail: 'Email' },
      Account: { name: ['Name'], detail: 'Website' },
    },
    isRecordId: (text) => /^[a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?$/.test(text),
    companyLinkInWrite: true,

    ...salesforceCompanies({ session, version, maxUriLength: options.maxUriLength, queryAll }),

    ...salesforceJobChangeActions({
      session,
      readRecords: (objectType, ids, properties, callOptions) =>
        connector.readRecords(objectType, ids, properties, callOptions),
      writeRecords: (objectType, updates, callOptions) => connector.writeRecords(objectType, updates, callOptions),
      findRecords: (objectType, where, properties, callOptions) =>
        connector.findRecords!(objectType, where, properties, callOptions),
      createRecords: (objectType, records, callOptions) => connector.createRecords!(objectType, records, callOptions),
    }),

    readSchema: (objectType) => readSchema(objectType),

    async ensureProperties(objectType: string, wanted: PropertySpec[]): Promise<ProvisionResult> {
      checkObjectType(objectType);
      return provisionFields(
        {
          call,
          describe: (type) => {
            // Fields appear in describe only once created and granted: read it fresh before and after.
            schemaCache.delete(type);
            return readSchema(type, 'interactive');
          },
          permissionSet: options.permissionSet ?? INTEGRATION_PERMISSION_SET,
        },
        objectType,
        wanted,
      );
    },

    accountId: () => options.orgId,

    async readAccount(): Promise<string> {
      // An OAuth session names its org in the token answer; a given token is asked through UserInfo.
      await connection();
      const named =
        session.orgId() ??
        parseCrmAnswer(
          'salesforce',
          UserInfo,
          await call('userinfo', 'interactive', (c) => c.request('/services/oauth2/userinfo')),
          'userinfo',
        ).organization_id;
      const orgId = toId18(named);
      if (!orgId)
        throw new CrmError('salesforce', 'invalid_response', 'Salesforce answered an org id that is not one.');
      if (options.orgId && toId18(options.orgId) !== orgId)
        throw new CrmError(
          'salesforce',
          'auth',
          `The credentials belong to org ${orgId}, not the configured SALESFORCE_ORG_ID ${options.orgId}.`,
        );
      return orgId;
    },

    webhook: createSalesforceWebhookHandler({
      orgId: options.orgId,
      secret: options.webhookSecret,
      connection: connectionName,
    }),

    stats: () => session.stats(),

    async close() {
      session.close();
      schemaCache.clear();
    },
  };
  return connector;
}
