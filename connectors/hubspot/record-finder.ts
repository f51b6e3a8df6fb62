/**
 * Finding records by property values and creating records, for discovery: a page of candidates is
 * checked against the CRM in one or two searches before a credit is spent on any of them.
 */
import type { z } from 'zod';
import type { ObjectBatch, ObjectPage } from './wire-schemas.js';
import { toRecord } from './sdk-objects.js';
import {
  CrmError,
  type CallOptions,
  type CreateResult,
  type CrmRecord,
  type RecordCondition,
} from '../../src/core/connector.js';
import type { Priority } from '../../src/core/limiter.js';

/** Values per IN filter, and results per search page (HubSpot's limits). */
const IN_VALUES_MAX = 100;
const SEARCH_PAGE_MAX = 200;

type Search = (type: string, body: Record<string, unknown>, priority: Priority) => Promise<z.output<typeof ObjectPage>>;
type BatchCreate = (
  type: string,
  inputs: { properties: Record<string, string>; associations: [] }[],
  priority: Priority,
) => Promise<z.output<typeof ObjectBatch>>;

export interface RecordFinderDeps {
  apiType(objectType: string): string;
  search: Search;
  batchCreate: BatchCreate;
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function hubspotRecordFinder(deps: RecordFinderDeps) {
  async function findRecords(
    objectType: string,
    where: RecordCondition[],
    properties: string[],
    callOptions?: CallOptions,
  ): Promise<CrmRecord[]> {
    const type = deps.apiType(objectType);
    const priority = callOptions?.priority ?? 'bulk';
    const groups: Record<string, unknown>[][] = [];
    for (const condition of where) {
      if (condition.values === undefined) {
        groups.push([{ propertyName: condition.property, operator: 'HAS_PROPERTY' }]);
        continue;
      }
      // IN takes text values in lower case (it matches stored values case-insensitively).
      const values = [...new Set(condition.values.map((v) => v.trim().toLowerCase()).filter(Boolean))];
      for (const part of chunk(values, IN_VALUES_MAX))
        groups.push([{ propertyName: condition.property, operator: 'IN', values: part }]);
    }
    const out = new Map<string, CrmRecord>();
    for (const filters of groups) {
      // Paging by id, not `after`, so no search pages past the 10,000-result ceiling.
      let last = '0';
      for (;;) {
        const page = await deps.search(
          type,
          {
            filterGroups: [{ filters: [...filters, { propertyName: 'hs_object_id', operator: 'GT', value: last }] }],
            sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
            properties,
            limit: SEARCH_PAGE_MAX,
          },
          priority,
        );
        const results = page.results;
        for (const o of results) out.set(o.id, toRecord(o));
        if (results.length < SEARCH_PAGE_MAX) break;
        last = results.at(-1)!.id;
      }
    }
    return [...out.values()];
  }

  return {
    findRecords,

    /**
     * Contacts are created in batches of 100 and matched back by e-mail (HubSpot does not promise the
     * input order); a contact whose e-mail HubSpot already holds comes back with that record's id.
     */
    async createRecords(
      objectType: string,
      records: Record<string, string>[],
      callOptions?: CallOptions,
    ): Promise<CreateResult[]> {
      const type = deps.apiType(objectType);
      if (type !== 'contacts')
        throw new CrmError('hubspot', 'validation', `discovery creates HubSpot contacts, not ${objectType} records`);
      const priority = callOptions?.priority ?? 'bulk';
      const out: CreateResult[] = [];
      for (const part of chunk(records, IN_VALUES_MAX)) {
        const missing = part.findIndex((r) => !r.email);
        if (missing >= 0)
          throw new CrmError(
            'hubspot',
            'validation',
            'a contact to create needs an e-mail address (it is how HubSpot tells contacts apart)',
          );
        let answer: Awaited<ReturnType<typeof deps.batchCreate>>;
        try {
          answer = await deps.batchCreate(
            type,
            part.map((properties) => ({ properties, associations: [] })),
            priority,
          );
        } catch (error) {
          // A batch refused as a whole (a required property left empty): each contact fails with the reason.
          if (!(error instanceof CrmError) || error.code !== 'validation') throw error;
          for (const _ of part)
            out.push({ id: '', ok: false, error: { code: 'validation', message: error.message, retryable: false } });
          continue;
        }
        const byEmail = new Map(answer.results.map((r) => [(r.properties.email ?? '').toLowerCase(), r.id]));
        const refused = new Map<number, { code: string; message: string }>();
        for (const raw of answer.errors) {
          // A conflict names the record that holds the e-mail, not the input: found by e-mail below.
          if (raw.category === 'CONFLICT') continue;
          for (const index of raw.context?.ids ?? [])
            refused.set(Number(index), {
              code: raw.category ?? 'UNKNOWN',
              message: raw.message ?? 'HubSpot did not create the contact',
            });
        }
        const unmatched = part.filter((r, i) => !byEmail.has(r.email!.toLowerCase()) && !refused.has(i));
        const holders = new Map<string, string>();
        if (unmatched.length) {
          for (const r of await findRecords(
            objectType,
            [{ property: 'email', values: unmatched.map((u) => u.email!) }],
            ['email'],
            callOptions,
          )) {
            if (r.properties.email) holders.set(r.properties.email.toLowerCase(), r.id);
          }
        }
        part.forEach((properties, i) => {
          const email = properties.email!.toLowerCase();
          const id = byEmail.get(email);
          if (id) return out.push({ id, ok: true });
          const why = refused.get(i);
          if (why) return out.push({ id: '', ok: false, error: { ...why, retryable: false } });
          const existingId = holders.get(email);
          if (existingId)
            return out.push({
              id: existingId,
              ok: false,
              existingId,
              error: {
                code: 'CONFLICT',
                message: 'HubSpot already holds a contact with this e-mail',
                retryable: false,
              },
            });
          out.push({
            id: '',
            ok: false,
            error: { code: 'not_created', message: 'HubSpot did not create the contact', retryable: true },
          });
        });
      }
      return out;
    },
  };
}
