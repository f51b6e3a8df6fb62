/**
 * The sandbox portal's data: property definitions and groups, contacts and companies, associations.
 * Keeps `hs_object_id`, `createdate` and the last-modified dates as HubSpot does, and reports every
 * creation and property change so the webhook sender can announce it.
 */
import type { HubspotProperty } from '../property-wire.js';
import { SandboxAssociations } from './associations.js';
import { validateProperties, type PropertyProblem } from './property-validation.js';
import { standardProperties } from './standard-properties.js';

export type ObjectType = 'contacts' | 'companies';
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
}

export interface PropertyGroup {
  name: string;
  label: string;
  displayOrder: number;
  archived: boolean;
}

export type ChangeEvent =
  | { kind: 'creation'; objectType: ObjectType; id: string; at: number }
  | { kind: 'propertyChange'; objectType: ObjectType; id: string; at: number; name: string; value: string };

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
  readonly definitions: Record<ObjectType, Map<string, HubspotProperty>> = { contacts: new Map(), companies: new Map() };
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

  get(type: ObjectType, id: string): StoredObject | undefined {
    return this.objects[type].get(id);
  }

  findContactByEmail(email: string): StoredObject | undefined {
    const wanted = email.toLowerCase();
    for (const o of this.objects.contacts.values()) if (o.properties.get('email')?.toLowerCase() === wanted) return o;
    return undefined;
  }

  /** Checks values without writing; throws ValidationFailure listing every problem. */
  check(type: ObjectType, values: Record<string, unknown>): void {
    const problems = validateProperties(this.definitions[type], values);
    if (problems.length > 0) throw new ValidationFailure(problems);
  }

  create(type: ObjectType, values: Record<string, unknown>, now = Date.now()): StoredObject {
    this.check(type, values);
    const id = String(this.nextId++);
    const at = new Date(now);
    const object: StoredObject = { id, properties: new Map(), createdAt: at, updatedAt: at };
    for (const [k, v] of Object.entries(values)) if (v !== null && v !== undefined && v !== '') object.properties.set(k, String(v));
    this.stamp(type, object, now, true);
    this.objects[type].set(id, object);
    this.onChange({ kind: 'creation', objectType: type, id, at: now });
    return object;
  }

  /** Applies an update already checked; returns the names whose value changed. */
  update(type: ObjectType, object: StoredObject, values: Record<string, unknown>, now = Date.now()): string[] {
    this.check(type, values);
    const changed: string[] = [];
    for (const [k, raw] of Object.entries(values)) {
      const value = raw === null || raw === undefined ? '' : String(raw);
      if ((object.properties.get(k) ?? '') === value) continue;
      if (value === '') object.properties.delete(k);
      else object.properties.set(k, value);
      changed.push(k);
    }
    if (changed.length > 0) {
      object.updatedAt = new Date(now);
      this.stamp(type, object, now, false);
      for (const name of changed) {
        this.onChange({ kind: 'propertyChange', objectType: type, id: object.id, at: now, name, value: object.properties.get(name) ?? '' });
      }
    }
    return changed;
  }

  /** The wire form of an object: requested properties (null when empty) plus the ones HubSpot always returns. */
  toWire(type: ObjectType, object: StoredObject, requested: string[] | undefined): Record<string, unknown> {
    const names = requested && requested.length > 0 ? [...new Set([...requested, 'hs_object_id', 'createdate', type === 'contacts' ? 'lastmodifieddate' : 'hs_lastmodifieddate'])] : DEFAULT_RETURNED[type];
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
