/**
 * The sandbox portal's data: property definitions and groups, contacts and companies, associations.
 * Keeps `hs_object_id`, `createdate` and the last-modified dates as HubSpot does, and reports every
 * creation and property change so the webhook sender can announce it.
 */
import type { HubspotProperty } from '../property-wire.js';
import { SandboxAssociations } from './associations.js';
import { ruleProblems, validateProperties, type PropertyProblem, type ValidationRule } from './property-validation.js';
import { standardProperties } from '../standard-properties.js';

export type ObjectType = 'contacts' | 'companies';

/** What a restart of the portal must find again (kept in a file by portal-file.ts). */
export interface PortalData {
  nextId: number;
  /** Read one at a time while the file is written (a portal may hold tens of thousands). */
  objects: Record<
    ObjectType,
    Iterable<{ id: string; properties: Record<string, string>; createdAt: string; updatedAt: string }>
  >;
  customProperties: Record<ObjectType, HubspotProperty[]>;
  groups: Record<ObjectType, PropertyGroup[]>;
  associations: ReturnType<SandboxAssociations['snapshot']>;
}
export const OBJECT_TYPES: readonly ObjectType[] = ['contacts', 'companies'];

/** Path segment to object type: HubSpot accepts the plural, the singular and the type id. */
export function objectTypeOf(segment: string): ObjectType | undefined {
  const s = segment.toLowerCase();
  if (s === 'contacts' || s === 'contact' || s === '0-1') return 'contacts';
  if (s === 'companies' || s === 'company' || s === '0-2') return 'companies';
  return undefined;
}

export interface StoredObject {
  id: string;
  properties: Map<string, string>;
  createdAt: Date;
  updatedAt: Date;
  /** The version search shows while the latest change is not indexed yet (absent: not indexed at all). */
  indexed?: { properties: Map<string, string>; at: number };
}

export interface PropertyGroup {
  name: string;
  label: string;
  displayOrder: number;
  archived: boolean;
}

/**
 * How a change was made, as HubSpot's webhooks say in `changeSource`: CRM_UI for a person in HubSpot,
 * INTEGRATION for an app calling the API (its app id then comes as `sourceId`), IMPORT for the
 * import tool, CRM_UI_BULK_ACTION for a bulk edit in the UI.
 */
export type ChangeSource = 'CRM_UI' | 'INTEGRATION' | 'IMPORT' | 'CRM_UI_BULK_ACTION';

export type ChangeEvent =
  | { kind: 'creation'; objectType: ObjectType; id: string; at: number; source: ChangeSource; appId?: number }
  | {
      kind: 'propertyChange';
      objectType: ObjectType;
      id: string;
      at: number;
      name: string;
      value: string;
      source: ChangeSource;
      appId?: number;
    };

export class ValidationFailure extends Error {
  constructor(readonly problems: PropertyProblem[]) {
    super('Property values were not valid');
  }
}

/** Properties HubSpot returns when the request names none. */
const DEFAULT_RETURNED: Record<ObjectType, string[]> = {
  contacts: ['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname'],
  companies: ['createdate', 'domain', 'hs_lastmodifieddate', 'hs_object_id', 'name'],
};

const DEFAULT_GROUPS: Record<ObjectType, string[]> = {
  contacts: ['contactinformation', 'socialmediainformation', 'emailinformation', 'sales_properties'],
  companies: ['companyinformation', 'socialmediainformation'],
};

export class SandboxObjectStore {
  readonly definitions: Record<ObjectType, Map<string, HubspotProperty>> = {
    contacts: new Map(),
    companies: new Map(),
  };
  readonly groups: Record<ObjectType, Map<string, PropertyGroup>> = { contacts: new Map(), companies: new Map() };
  readonly objects: Record<ObjectType, Map<string, StoredObject>> = { contacts: new Map(), companies: new Map() };
  /** Contact-company associations; `associatedcompanyid` follows the primary one. */
  readonly associations = new SandboxAssociations((contactId, companyId) => {
    const contact = this.objects.contacts.get(contactId);
    if (!contact) return;
    if (companyId) contact.properties.set('associatedcompanyid', companyId);
    else contact.properties.delete('associatedcompanyid');
  });
  private nextId = 1001;
  /** How long a change takes to reach search results (see the server's searchLagMs). */
  searchLagMs = 0;
  /** The portal's validation rules, enforced on API writes of a date-based version (see the server's `require`). */
  rules: Record<ObjectType, ValidationRule[]> = { contacts: [], companies: [] };
  /**
   * Indexes, as HubSpot keeps them: contacts by lower-cased e-mail, and every object in id order.
   * The sandbox shares an event loop with the service in the embedded default, so nothing here may
   * scan all objects per request (15,000 contacts made every create take milliseconds).
   */
  private readonly byEmail = new Map<string, string>();
  private readonly inOrder: Record<ObjectType, StoredObject[]> = { contacts: [], companies: [] };
  /**
   * Objects holding the version search showed before their last change, oldest change first: once
   * the change is indexed that copy is dropped, so only objects changed in the last `searchLagMs`
   * carry two versions (an import's 15,000 contacts would otherwise each keep one for good).
   */
  private lagging: StoredObject[] = [];
  private laggingStart = 0;

  constructor(
    private readonly onChange: (event: ChangeEvent) => void,
    customProperties: Partial<Record<ObjectType, HubspotProperty[]>> = {},
  ) {
    for (const type of OBJECT_TYPES) {
      for (const p of standardProperties(type)) this.definitions[type].set(p.name, p);
      for (const p of customProperties[type] ?? []) this.definitions[type].set(p.name, { hubspotDefined: false, ...p });
      DEFAULT_GROUPS[type].forEach((name, i) =>
        this.groups[type].set(name, { name, label: name, displayOrder: i, archived: false }),
      );
    }
  }

  /**
   * The portal's data as plain values (see portal-file.ts): objects, id counter, custom properties, associations.
   */
  snapshot(): PortalData {
    // The records as they are now: a copy written in slices keeps this set while records come and go.
    const inOrder = { contacts: this.inOrder.contacts.slice(), companies: this.inOrder.companies.slice() };
    function* objects(type: ObjectType) {
      for (const o of inOrder[type])
        yield {
          id: o.id,
          properties: Object.fromEntries(o.properties),
          createdAt: o.createdAt.toISOString(),
          updatedAt: o.updatedAt.toISOString(),
        };
    }
    const custom = (type: ObjectType) => [...this.definitions[type].values()].filter((p) => p.hubspotDefined === false);
    return {
      nextId: this.nextId,
      objects: { contacts: objects('contacts'), companies: objects('companies') },
      customProperties: { contacts: custom('contacts'), companies: custom('companies') },
      groups: { contacts: [...this.groups.contacts.values()], companies: [...this.groups.companies.values()] },
      associations: this.associations.snapshot(),
    };
  }

  /** Takes back a snapshot into an empty store, as it was: no change events are sent for it. */
  restore(data: PortalData): void {
    for (const type of OBJECT_TYPES) {
      for (const p of data.customProperties[type]) this.definitions[type].set(p.name, p);
      for (const g of data.groups[type]) this.groups[type].set(g.name, g);
      const sorted = [...data.objects[type]].sort((a, b) => Number(a.id) - Number(b.id));
      for (const o of sorted) {
        const object: StoredObject = {
          id: o.id,
          properties: new Map(Object.entries(o.properties)),
          createdAt: new Date(o.createdAt),
          updatedAt: new Date(o.updatedAt),
        };
        this.objects[type].set(object.id, object);
        this.inOrder[type].push(object);
        if (type === 'contacts') this.indexEmail(object, undefined);
        this.nextId = Math.max(this.nextId, Number(object.id) + 1);
      }
    }
    this.nextId = Math.max(this.nextId, data.nextId);
    this.associations.restore(data.associations);
  }

  get(type: ObjectType, id: string): StoredObject | undefined {
    return this.objects[type].get(id);
  }

  findContactByEmail(email: string): StoredObject | undefined {
    const id = this.byEmail.get(email.toLowerCase());
    return id === undefined ? undefined : this.objects.contacts.get(id);
  }

  /** Up to `limit` objects with an id above `after`, in id order, and whether more follow. */
  listAfter(type: ObjectType, after: number, limit: number): { page: StoredObject[]; more: boolean } {
    const all = this.inOrder[type];
    let lo = 0;
    let hi = all.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (Number(all[mid]!.id) > after) hi = mid;
      else lo = mid + 1;
    }
    return { page: all.slice(lo, lo + limit), more: lo + limit < all.length };
  }

  private indexEmail(object: StoredObject, previous: string | undefined): void {
    if (previous) {
      const key = previous.toLowerCase();
      if (this.byEmail.get(key) === object.id) this.byEmail.delete(key);
    }
    const email = object.properties.get('email');
    if (email) this.byEmail.set(email.toLowerCase(), object.id);
  }

  /** Checks values without writing; throws ValidationFailure listing every problem. */
  check(type: ObjectType, values: Record<string, unknown>): void {
    const problems = validateProperties(this.definitions[type], values);
    if (problems.length > 0) throw new ValidationFailure(problems);
  }

  /** The validation rules an API write would break (`object`: the record an update changes). */
  ruleProblems(type: ObjectType, values: Record<string, unknown>, object?: StoredObject): PropertyProblem[] {
    return ruleProblems(this.rules[type], values, object?.properties ?? new Map());
  }

  /** `appId`: the app whose token made an INTEGRATION change (its webhooks name it as sourceId). */
  create(
    type: ObjectType,
    values: Record<string, unknown>,
    source: ChangeSource = 'CRM_UI',
    now = Date.now(),
    appId?: number,
  ): StoredObject {
    this.check(type, values);
    const id = String(this.nextId++);
    const at = new Date(now);
    const object: StoredObject = { id, properties: new Map(), createdAt: at, updatedAt: at };
    for (const [k, v] of Object.entries(values))
      if (v !== null && v !== undefined && v !== '') object.properties.set(k, String(v));
    this.stamp(type, object, now, true);
    this.objects[type].set(id, object);
    this.inOrder[type].push(object);
    if (type === 'contacts') this.indexEmail(object, undefined);
    this.onChange({ kind: 'creation', objectType: type, id, at: now, source, ...(appId ? { appId } : {}) });
    return object;
  }

  /**
   * The object as search sees it at `now`: its latest version once indexed, before that the version
   * indexed last (undefined for an object created too recently to be indexed at all).
   */
  searchView(object: StoredObject, now = Date.now()): StoredObject | undefined {
    this.dropIndexedCopies(now);
    if (now - object.updatedAt.getTime() >= this.searchLagMs) return object;
    return (
      object.indexed && { ...object, properties: object.indexed.properties, updatedAt: new Date(object.indexed.at) }
    );
  }

  /** Applies an update already checked; returns the names whose value changed. */
  update(
    type: ObjectType,
    object: StoredObject,
    values: Record<string, unknown>,
    source: ChangeSource = 'CRM_UI',
    now = Date.now(),
    appId?: number,
  ): string[] {
    this.check(type, values);
    // The version search keeps showing until this change is indexed: the current one, if it was indexed by now.
    const before =
      this.searchLagMs > 0 && now - object.updatedAt.getTime() >= this.searchLagMs
        ? { properties: new Map(object.properties), at: object.updatedAt.getTime() }
        : object.indexed;
    const changed: string[] = [];
    const previousEmail = object.properties.get('email');
    for (const [k, raw] of Object.entries(values)) {
      const value = raw === null || raw === undefined ? '' : String(raw);
      if ((object.properties.get(k) ?? '') === value) continue;
      if (value === '') object.properties.delete(k);
      else object.properties.set(k, value);
      changed.push(k);
    }
    if (type === 'contacts' && changed.includes('email')) this.indexEmail(object, previousEmail);
    if (changed.length > 0) {
      if (before) {
        object.indexed = before;
        this.lagging.push(object);
      }
      object.updatedAt = new Date(now);
      this.stamp(type, object, now, false);
      // After the new time is set: the copy just made is needed until this change is indexed.
      this.dropIndexedCopies(now);
      for (const name of changed) {
        this.onChange({
          kind: 'propertyChange',
          objectType: type,
          id: object.id,
          at: now,
          name,
          value: object.properties.get(name) ?? '',
          source,
          ...(appId ? { appId } : {}),
        });
      }
    }
    return changed;
  }

  /** Forgets the pre-change copies of objects whose last change search shows by now. */
  private dropIndexedCopies(now: number): void {
    while (this.laggingStart < this.lagging.length) {
      const object = this.lagging[this.laggingStart]!;
      if (now - object.updatedAt.getTime() < this.searchLagMs) break;
      delete object.indexed;
      this.laggingStart++;
    }
    if (this.laggingStart > 1024 && this.laggingStart * 2 > this.lagging.length) {
      this.lagging = this.lagging.slice(this.laggingStart);
      this.laggingStart = 0;
    }
  }

  /** The wire form of an object: requested properties (null when empty) plus the ones HubSpot always returns. */
  toWire(type: ObjectType, object: StoredObject, requested: string[] | undefined): Record<string, unknown> {
    const names =
      requested && requested.length > 0
        ? [
            ...new Set([
              ...requested,
              'hs_object_id',
              'createdate',
              type === 'contacts' ? 'lastmodifieddate' : 'hs_lastmodifieddate',
            ]),
          ]
        : DEFAULT_RETURNED[type];
    const properties: Record<string, string | null> = {};
    for (const name of names) {
      if (this.definitions[type].has(name)) properties[name] = object.properties.get(name) ?? null;
    }
    return {
      id: object.id,
      properties,
      createdAt: object.createdAt.toISOString(),
      updatedAt: object.updatedAt.toISOString(),
      archived: false,
    };
  }

  private stamp(type: ObjectType, object: StoredObject, now: number, created: boolean): void {
    const iso = new Date(now).toISOString();
    if (created) {
      object.properties.set('hs_object_id', object.id);
      object.properties.set('createdate', iso);
    }
    object.properties.set('hs_lastmodifieddate', iso);
    if (type === 'contacts') object.properties.set('lastmodifieddate', iso);
    if (type === 'contacts') {
      const email = object.properties.get('email');
      if (email?.includes('@')) object.properties.set('hs_email_domain', email.split('@')[1] ?? '');
    }
  }
}
