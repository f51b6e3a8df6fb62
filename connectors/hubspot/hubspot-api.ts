/**
 * Every HubSpot call the connector makes, as one interface with a client per API version behind it:
 * the legacy v3/v4 paths through the official client's typed methods (`sdk-api.ts`), the date-based
 * paths through its generic request (`dated-api.ts`), which is all the client offers for them. Both take
 * and give HubSpot's wire JSON (dates as ISO text); callers parse each answer with zod.
 */
import type { HubspotApiVersion } from './api-version.js';
import type { HubspotPropertyCreate, PROPERTY_GROUP } from './property-spec.js';

export interface AssociationSpec {
  associationCategory: 'HUBSPOT_DEFINED' | 'USER_DEFINED';
  associationTypeId: number;
}

/** A record to create, with the associations it is made with. */
export interface ObjectInput {
  properties: Record<string, string>;
  associations: { to: { id: string }; types: AssociationSpec[] }[];
}

/** One pair of a v4 association batch, with the types it gets. */
export interface AssociationInput {
  from: { id: string };
  to: { id: string };
  types: AssociationSpec[];
}

export interface HubspotApi {
  readonly version: HubspotApiVersion;
  batchRead(type: string, ids: string[], properties: string[]): Promise<unknown>;
  batchCreate(type: string, inputs: ObjectInput[]): Promise<unknown>;
  batchUpdate(type: string, inputs: { id: string; properties: Record<string, string> }[]): Promise<unknown>;
  search(type: string, body: Record<string, unknown>): Promise<unknown>;
  /** A page of all records in id order. */
  page(type: string, limit: number, after: string | undefined, properties: string[] | undefined): Promise<unknown>;
  read(type: string, id: string, properties: string[]): Promise<unknown>;
  create(type: string, input: ObjectInput): Promise<unknown>;
  update(type: string, id: string, properties: Record<string, string>): Promise<unknown>;
  properties(type: string): Promise<unknown>;
  createProperty(type: string, create: HubspotPropertyCreate): Promise<unknown>;
  createPropertyGroup(type: string, group: typeof PROPERTY_GROUP): Promise<unknown>;
  createAssociations(from: string, to: string, inputs: AssociationInput[]): Promise<unknown>;
  associationLabels(from: string, to: string): Promise<unknown>;
  createAssociationLabel(from: string, to: string, label: { label: string; name: string }): Promise<unknown>;
  listMembers(listId: string, after: string | undefined, limit: number): Promise<unknown>;
  /** A list's definition: its name and the object type id of its records. */
  listById(listId: string): Promise<unknown>;
  /** The list of `objectTypeId` (0-1 contacts, 0-2 companies) named `name`, without case. */
  listByName(objectTypeId: string, name: string): Promise<unknown>;
  accountDetails(): Promise<unknown>;
  dailyUsage(): Promise<unknown>;
  completeCallback(callbackId: string, outputFields: Record<string, string | number | boolean>): Promise<void>;
}
