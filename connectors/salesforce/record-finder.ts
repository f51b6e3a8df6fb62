/**
 * Finding records by field values and creating records, for discovery: a page of candidates is
 * checked against the org in one query before a credit is spent on any of them.
 */
import type { SaveResult } from './wire-schemas.js';
import type { CallOptions, CreateResult, CrmProperty, CrmRecord, RecordCondition } from '../../src/core/connector.js';
import type { Priority } from '../../src/core/limiter.js';
import { isRetryableRecordError } from './errors.js';
import { chunkKeyQueries } from './soql.js';

/** Records per sObject Collections create (Salesforce's limit). */
const COLLECTION_LIMIT = 200;

export interface SalesforceFinderDeps {
  checkObjectType(objectType: string): void;
  checkFieldNames(fields: string[]): void;
  queryBase(): Promise<number>;
  maxUriLength?: number;
  queryAll(soql: string, priority: Priority): Promise<Record<string, unknown>[]>;
  toRecord(raw: Record<string, unknown>, properties: string[]): CrmRecord;
  selectFields(properties: string[]): string[];
  describe(objectType: string): Promise<CrmProperty[]>;
  encodeValue(value: string, property: CrmProperty | undefined): string | number | boolean | null;
  create(objectType: string, records: Record<string, unknown>[], priority: Priority): Promise<SaveResult[]>;
}

export function salesforceRecordFinder(deps: SalesforceFinderDeps) {
  return {
    async findRecords(
      objectType: string,
      where: RecordCondition[],
      properties: string[],
      callOptions?: CallOptions,
    ): Promise<CrmRecord[]> {
      deps.checkObjectType(objectType);
      deps.checkFieldNames([...properties, ...where.map((w) => w.property)]);
      const terms = where.flatMap((w): { field: string; value: string | null }[] =>
        w.values === undefined
          ? [{ field: w.property, value: null }]
          : [...new Set(w.values.map((v) => v.trim()).filter(Boolean))].map((value) => ({ field: w.property, value })),
      );
      if (terms.length === 0) return [];
      const base = await deps.queryBase();
      const out = new Map<string, CrmRecord>();
      for (const soql of chunkKeyQueries(terms, deps.selectFields(properties), base, deps.maxUriLength, objectType)) {
        for (const raw of await deps.queryAll(soql, callOptions?.priority ?? 'bulk')) {
          const record = deps.toRecord(raw, properties);
          out.set(record.id, record);
        }
      }
      return [...out.values()];
    },

    /** Created through sObject Collections, 200 at a time, each record on its own (allOrNone false). */
    async createRecords(
      objectType: string,
      records: Record<string, string>[],
      callOptions?: CallOptions,
    ): Promise<CreateResult[]> {
      deps.checkObjectType(objectType);
      const types = new Map((await deps.describe(objectType)).map((p) => [p.name.toLowerCase(), p]));
      const out: CreateResult[] = [];
      for (let start = 0; start < records.length; start += COLLECTION_LIMIT) {
        const part = records.slice(start, start + COLLECTION_LIMIT);
        const encoded = part.map((r) =>
          Object.fromEntries(Object.entries(r).map(([k, v]) => [k, deps.encodeValue(v, types.get(k.toLowerCase()))])),
        );
        const results = await deps.create(objectType, encoded, callOptions?.priority ?? 'bulk');
        part.forEach((_, i) => {
          const r = results[i];
          if (r?.success && r.id) return out.push({ id: r.id, ok: true });
          const first = r?.errors?.[0];
          const code = first?.statusCode ?? first?.errorCode ?? 'UNKNOWN';
          out.push({
            id: '',
            ok: false,
            error: {
              code,
              message: first?.message ?? `Salesforce did not create the ${objectType}`,
              retryable: isRetryableRecordError(code),
              ...(first?.fields ? { fields: first.fields } : {}),
            },
          });
        });
      }
      return out;
    },
  };
}
