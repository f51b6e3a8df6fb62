/**
 * What the HubSpot connector's parts share: the object type names the API takes, the records HubSpot
 * gives back, batch sizes, and the calls (API client, request runner, search) one connection makes.
 */
import type { z } from 'zod';
import { CrmError, type CrmRecord } from '../../src/core/connector.js';
import type { Priority } from '../../src/core/limiter.js';
import type { HubspotApi } from './hubspot-api.js';
import type { HubspotRequestRunner } from './request-runner.js';
import type { HubspotObject, ObjectPage } from './wire-schemas.js';

export const HUBSPOT_BATCH_SIZE = 100;
export const SEARCH_PAGE_MAX = 200;

const API_TYPE: Record<string, string> = {
  contact: 'contacts',
  contacts: 'contacts',
  company: 'companies',
  companies: 'companies',
};

export function apiType(objectType: string): string {
  const type = API_TYPE[objectType];
  if (!type)
    throw new CrmError(
      'hubspot',
      'validation',
      `HubSpot object type "${objectType}" is not served; use contact or company.`,
    );
  return type;
}

export function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function toRecord(o: z.output<typeof HubspotObject>): CrmRecord {
  return { id: o.id, properties: { ...o.properties }, createdAt: o.createdAt, updatedAt: o.updatedAt };
}

/** The calls of one connection, shared by the connector's parts. */
export interface HubspotCalls {
  runner: HubspotRequestRunner;
  /** The API version's client; each call goes through `runner`. */
  api: HubspotApi;
  search: (type: string, body: Record<string, unknown>, priority: Priority) => Promise<z.output<typeof ObjectPage>>;
  /** Interactive for small batches, bulk for large ones. */
  priorityFor: (n: number) => Priority;
}
