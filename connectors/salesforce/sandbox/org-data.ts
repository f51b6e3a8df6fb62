/**
 * The sandbox org's records and the checks Salesforce applies when they are written: unknown fields,
 * read-only fields, lengths, restricted picklists, e-mail and number formats, required fields.
 */
import { idSuffix, toId18 } from '../ids.js';
import { fieldsOf, parseSoql, type Condition, type Membership, type SoqlValue } from './soql.js';
import {
  OBJECT_LABELS,
  SANDBOX_OBJECT_TYPES,
  describeField,
  standardFields,
  type DescribeField,
  type SandboxObjectType,
} from '../standard-fields.js';

export type FieldValue = string | number | boolean | null;
export type Fields = Record<string, FieldValue>;

export interface SaveError {
  statusCode: string;
  message: string;
  fields: string[];
}

export interface SaveResult {
  id?: string;
  success: boolean;
  errors: SaveError[];
}

/** A problem with the whole request (Salesforce answers it with 4xx and an error array). */
/**
 * A person's Name as Salesforce keeps it: a compound of its parts, made again whenever one of them
 * changes (an enrichment that fills FirstName after the record was created with LastName alone).
 */
function nameFields(type: SandboxObjectType, fields: Fields): void {
  if (type === 'Lead' || type === 'Contact')
    fields.Name = [fields.FirstName, fields.LastName].filter(Boolean).join(' ');
}

export class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    readonly fields?: string[],
  ) {
    super(message);
  }
}

export interface StoredRecord {
  type: SandboxObjectType;
  id: string;
  fields: Fields;
}

/** What a restart of the org must find again (kept in a file by org-file.ts). */
export interface OrgSnapshot {
  counter: number;
  /** Read one at a time while the file is written. */
  records: Iterable<StoredRecord>;
  customFields: Partial<Record<SandboxObjectType, DescribeField[]>>;
  hiddenFields: Partial<Record<SandboxObjectType, string[]>>;
}

export type RecordChange = { type: SandboxObjectType; id: string; created: boolean; changed: string[] };

const REQUIRED: Record<SandboxObjectType, string[]> = {
  Lead: ['LastName', 'Company'],
  Contact: ['LastName'],
  Account: ['Name'],
  Task: [],
  AccountContactRelation: ['AccountId', 'ContactId'],
};
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Salesforce's datetime wire format: `2024-05-01T12:00:00.000+0000`. */
export function sfDatetime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+0000');
}

export function isSandboxObjectType(type: string): type is SandboxObjectType {
  return (SANDBOX_OBJECT_TYPES as readonly string[]).includes(type);
}

/** What the org has switched on in its settings. */
export interface OrgFeatures {
  /**
   * Contacts to Multiple Accounts (Setup, Account Settings): the AccountContactRelation object, a direct
   * relationship per Contact with its Account, kept by Salesforce as AccountId changes. Off: the object
   * does not exist for the API.
   */
  contactsToMultipleAccounts: boolean;
}

export class OrgData {
  private readonly fields = new Map<SandboxObjectType, DescribeField[]>();
  private readonly records = new Map<string, StoredRecord>();
  private counter = 0;
  /** IN lists converted once per query rather than once per record. */
  private readonly memberships = new WeakMap<Membership, Set<FieldValue>>();

  constructor(
    customFields: Partial<Record<SandboxObjectType, Partial<DescribeField>[]>> = {},
    private readonly onChange: (change: RecordChange) => void = () => {},
    private readonly features: OrgFeatures = { contactsToMultipleAccounts: true },
  ) {
    for (const type of SANDBOX_OBJECT_TYPES) {
      const custom = (customFields[type] ?? []).map((f) =>
        describeField({
          type: 'string',
          label: f.name ?? '',
          name: '',
          ...f,
          custom: true,
          restrictedPicklist: f.restrictedPicklist ?? f.type === 'picklist',
        }),
      );
      this.fields.set(type, [...standardFields(type), ...custom]);
    }
  }

  /**
   * Fields the integration user has no field-level access to: as in Salesforce, describe leaves them
   * out and a query or a save naming them fails with INVALID_FIELD, as if they did not exist.
   */
  private readonly hidden = new Map<SandboxObjectType, Set<string>>();

  hideFields(type: SandboxObjectType, names: string[]): void {
    this.hidden.set(type, new Set([...(this.hidden.get(type) ?? []), ...names.map((n) => n.toLowerCase())]));
  }

  /** Whether the org has the field at all, whether or not the integration user may see it. */
  hasField(type: SandboxObjectType, name: string): boolean {
    const lower = name.toLowerCase();
    return (this.fields.get(type) ?? []).some((f) => f.name.toLowerCase() === lower);
  }

  /**
   * A field created through the Metadata API. As in Salesforce, nobody has field-level access to it
   * yet: it stays out of describe until a permission set of the integration user grants it (grantField).
   */
  addField(type: SandboxObjectType, field: DescribeField): void {
    this.fields.get(type)?.push(field);
    this.hideFields(type, [field.name]);
  }

  /** Field-level security from the integration user's permission set: read shows the field, edit lets it be written. */
  grantField(type: SandboxObjectType, name: string, access: { readable: boolean; editable: boolean }): void {
    const lower = name.toLowerCase();
    const field = (this.fields.get(type) ?? []).find((f) => f.name.toLowerCase() === lower);
    if (!field || !access.readable) return;
    this.hidden.get(type)?.delete(lower);
    field.updateable = access.editable;
    field.createable = access.editable;
  }

  describeFields(type: SandboxObjectType): DescribeField[] {
    const hidden = this.hidden.get(type);
    const all = this.fields.get(type) ?? [];
    return hidden ? all.filter((f) => !hidden.has(f.name.toLowerCase())) : all;
  }

  field(type: SandboxObjectType, name: string): DescribeField | undefined {
    const lower = name.toLowerCase();
    return this.describeFields(type).find((f) => f.name.toLowerCase() === lower);
  }

  /** Whether the API knows the object in this org (AccountContactRelation only with Contacts to Multiple Accounts). */
  serves(type: string): type is SandboxObjectType {
    if (!isSandboxObjectType(type)) return false;
    return type !== 'AccountContactRelation' || this.features.contactsToMultipleAccounts;
  }

  /** The org's records, id counter and custom fields (with who may see them) as plain values. */
  snapshot(): OrgSnapshot {
    const customFields: OrgSnapshot['customFields'] = {};
    const hiddenFields: OrgSnapshot['hiddenFields'] = {};
    for (const type of SANDBOX_OBJECT_TYPES) {
      customFields[type] = (this.fields.get(type) ?? []).filter((f) => f.custom);
      hiddenFields[type] = [...(this.hidden.get(type) ?? [])];
    }
    // The records as they are now: a copy written in slices keeps this set while records come and go.
    return { counter: this.counter, records: [...this.records.values()], customFields, hiddenFields };
  }

  /** Takes back a snapshot as it was, without change events; its custom fields replace those of the same name. */
  restore(snapshot: OrgSnapshot): void {
    for (const type of SANDBOX_OBJECT_TYPES) {
      const kept = snapshot.customFields[type] ?? [];
      const names = new Set(kept.map((f) => f.name.toLowerCase()));
      this.fields.set(type, [
        ...(this.fields.get(type) ?? []).filter((f) => !names.has(f.name.toLowerCase())),
        ...kept,
      ]);
      if (snapshot.hiddenFields[type]) this.hidden.set(type, new Set(snapshot.hiddenFields[type]));
    }
    for (const record of snapshot.records) this.records.set(record.id, record);
    this.counter = Math.max(this.counter, snapshot.counter);
  }

  /** A new 18-character id with the object's key prefix. */
  newId(prefix: string): string {
    const id15 = `${prefix}8d0000${(++this.counter).toString(36).toUpperCase().padStart(6, '0')}`;
    return id15 + idSuffix(id15);
  }

  /** Every record of a type, oldest first. */
  all(type: SandboxObjectType): StoredRecord[] {
    return [...this.records.values()].filter((r) => r.type === type);
  }

  get(type: SandboxObjectType, id: string): StoredRecord | undefined {
    const id18 = toId18(id);
    const record = id18 ? this.records.get(id18) : undefined;
    return record?.type === type ? record : undefined;
  }

  /** Unknown fields fail the whole request, as Salesforce's JSON reader refuses them before saving anything. */
  checkKnownFields(type: SandboxObjectType, values: Record<string, unknown>): void {
    for (const name of Object.keys(values)) {
      if (name === 'attributes' || name === 'Id' || name === 'id') continue;
      if (!this.field(type, name)) {
        throw new RequestError(400, 'INVALID_FIELD', `No such column '${name}' on sobject of type ${type}`, [name]);
      }
    }
  }

  create(type: SandboxObjectType, values: Record<string, unknown>): SaveResult {
    const checked = this.check(type, values, 'create');
    if ('errors' in checked) return { success: false, errors: checked.errors };
    const missing = REQUIRED[type].filter((f) => checked.fields[f] === undefined || checked.fields[f] === null);
    if (missing.length > 0) {
      return {
        success: false,
        errors: [
          {
            statusCode: 'REQUIRED_FIELD_MISSING',
            message: `Required fields are missing: [${missing.join(', ')}]`,
            fields: missing,
          },
        ],
      };
    }
    if (type === 'AccountContactRelation') {
      const existing = this.relation(String(checked.fields.ContactId), String(checked.fields.AccountId));
      if (existing)
        return {
          success: false,
          errors: [
            {
              statusCode: 'DUPLICATE_VALUE',
              message: `duplicate value found: <unknown> duplicates value on record with id: ${existing.id}`,
              fields: [],
            },
          ],
        };
      checked.fields.IsActive ??= true;
      checked.fields.IsDirect = false;
    }
    const id = this.newId(OBJECT_LABELS[type].keyPrefix);
    const now = sfDatetime(this.stamp());
    const fields: Fields = {
      ...checked.fields,
      Id: id,
      IsDeleted: false,
      OwnerId: '005' + '8d0000000001AAA',
      CreatedDate: now,
      LastModifiedDate: now,
      SystemModstamp: now,
    };
    if (type === 'Lead') fields.Status ??= 'Open - Not Contacted';
    if (type === 'Task')
      Object.assign(fields, {
        Status: fields.Status ?? 'Not Started',
        Priority: fields.Priority ?? 'Normal',
        OwnerId: checked.fields.OwnerId ?? fields.OwnerId,
      });
    nameFields(type, fields);
    this.records.set(id, { type, id, fields });
    if (type === 'Contact' && fields.AccountId) this.makeDirect(id, String(fields.AccountId));
    this.onChange({ type, id, created: true, changed: Object.keys(checked.fields) });
    return { id, success: true, errors: [] };
  }

  /** The relationship of a contact with an account, if any. */
  private relation(contactId: string, accountId: string): StoredRecord | undefined {
    return this.all('AccountContactRelation').find(
      (r) => r.fields.ContactId === toId18(contactId) && r.fields.AccountId === toId18(accountId),
    );
  }

  /**
   * As Salesforce keeps a contact's relationships when its AccountId is set: the relationship with the
   * previous primary account is removed ("to remove a direct relationship, change the contact's primary
   * account"), and the new account's becomes the direct one, made if there was none.
   */
  private makeDirect(contactId: string, accountId: string, previous?: string): void {
    if (!this.features.contactsToMultipleAccounts) return;
    if (previous) {
      const old = this.relation(contactId, previous);
      if (old?.fields.IsDirect) this.records.delete(old.id);
    }
    const existing = this.relation(contactId, accountId);
    if (existing) {
      Object.assign(existing.fields, { IsDirect: true, IsActive: true });
      return;
    }
    const id = this.newId(OBJECT_LABELS.AccountContactRelation.keyPrefix);
    const now = sfDatetime(this.stamp());
    this.records.set(id, {
      type: 'AccountContactRelation',
      id,
      fields: {
        Id: id,
        IsDeleted: false,
        AccountId: toId18(accountId) ?? accountId,
        ContactId: toId18(contactId) ?? contactId,
        IsActive: true,
        IsDirect: true,
        Roles: null,
        StartDate: null,
        EndDate: null,
        CreatedDate: now,
        LastModifiedDate: now,
        SystemModstamp: now,
      },
    });
  }

  update(type: SandboxObjectType, id: string, values: Record<string, unknown>): SaveResult {
    const id18 = toId18(id);
    if (!id18 || !id18.startsWith(OBJECT_LABELS[type].keyPrefix)) {
      return {
        id,
        success: false,
        errors: [
          { statusCode: 'MALFORMED_ID', message: `${type} ID: id value of incorrect type: ${id}`, fields: ['Id'] },
        ],
      };
    }
    const record = this.get(type, id18);
    if (!record) {
      return {
        id: id18,
        success: false,
        errors: [{ statusCode: 'ENTITY_IS_DELETED', message: 'entity is deleted', fields: [] }],
      };
    }
    const checked = this.check(type, values, 'update');
    if ('errors' in checked) return { id: id18, success: false, errors: checked.errors };
    const changed = Object.keys(checked.fields).filter((k) => record.fields[k] !== checked.fields[k]);
    const previousAccount = record.fields.AccountId;
    Object.assign(record.fields, checked.fields);
    nameFields(type, record.fields);
    if (type === 'Contact' && changed.includes('AccountId') && record.fields.AccountId)
      this.makeDirect(id18, String(record.fields.AccountId), previousAccount ? String(previousAccount) : undefined);
    const now = sfDatetime(this.stamp());
    record.fields.LastModifiedDate = now;
    record.fields.SystemModstamp = now;
    if (changed.length > 0) this.onChange({ type, id: id18, created: false, changed });
    return { id: id18, success: true, errors: [] };
  }

  /**
   * Runs a SOQL query; answers every matching record (paging is the caller's), the fields it filtered on and
   * whether it asked only for their number (`SELECT COUNT()`).
   */
  query(soql: string): {
    type: SandboxObjectType;
    rows: { id: string; fields: Fields }[];
    filteredOn: string[];
    count: boolean;
  } {
    const query = parseSoql(soql);
    if (!this.serves(query.object)) {
      throw new RequestError(400, 'INVALID_TYPE', `sObject type '${query.object}' is not supported.`);
    }
    const type = query.object;
    const canonical = new Map<string, string>();
    for (const name of fieldsOf(query)) {
      const field = this.field(type, name);
      if (!field) throw new RequestError(400, 'INVALID_FIELD', `No such column '${name}' on entity '${type}'.`, [name]);
      canonical.set(name, field.name);
    }
    for (const field of whereFields(query.where, 'like')) {
      if (!TEXT_TYPES.has(this.field(type, field)?.type ?? '')) {
        throw new RequestError(
          400,
          'INVALID_QUERY_FILTER_OPERATOR',
          `invalid operator on field '${field}': LIKE applies to text fields only.`,
          [field],
        );
      }
    }
    const name = (n: string) => canonical.get(n) ?? n;
    const matches = [...this.records.values()].filter(
      (r) => r.type === type && (!query.where || this.test(r.fields, query.where, name)),
    );
    if (query.orderBy.length > 0) {
      matches.sort((a, b) => {
        for (const o of query.orderBy) {
          const c = compare(a.fields[name(o.field)] ?? null, b.fields[name(o.field)] ?? null);
          if (c !== 0) return o.descending ? -c : c;
        }
        return 0;
      });
    }
    const limited = query.limit === undefined ? matches : matches.slice(0, query.limit);
    return {
      type,
      count: query.count,
      filteredOn: [...new Set(whereFields(query.where).map(name))].sort(),
      rows: limited.map((r) => ({
        id: r.id,
        fields: Object.fromEntries(query.fields.map((f) => [name(f), r.fields[name(f)] ?? null])),
      })),
    };
  }

  private test(fields: Fields, c: Condition, name: (n: string) => string): boolean {
    if (c.kind === 'junction') {
      return c.op === 'and'
        ? this.test(fields, c.left, name) && this.test(fields, c.right, name)
        : this.test(fields, c.left, name) || this.test(fields, c.right, name);
    }
    const field = name(c.field);
    const actual = fields[field] ?? null;
    if (c.kind === 'like') return typeof actual === 'string' && c.pattern.test(actual);
    if (c.kind === 'in') {
      let set = this.memberships.get(c);
      if (!set) {
        set = new Set(c.values.map((v) => this.literal(field, v)));
        this.memberships.set(c, set);
      }
      return set.has(actual) !== c.negated;
    }
    const cmp = compare(actual, this.literal(field, c.value));
    if (actual === null && c.op !== '=' && c.op !== '!=') return false;
    return { '=': cmp === 0, '!=': cmp !== 0, '<': cmp < 0, '<=': cmp <= 0, '>': cmp > 0, '>=': cmp >= 0 }[c.op];
  }

  private literal(field: string, value: SoqlValue): FieldValue {
    if (value !== null && typeof value === 'object') return sfDatetime(value.datetime);
    if ((field === 'Id' || field.endsWith('Id')) && typeof value === 'string') {
      const id18 = toId18(value);
      if (!id18) throw new RequestError(400, 'INVALID_QUERY_FILTER_OPERATOR', `invalid ID field: ${value}`);
      return id18;
    }
    return value;
  }

  private check(
    type: SandboxObjectType,
    values: Record<string, unknown>,
    mode: 'create' | 'update',
  ): { fields: Fields } | { errors: SaveError[] } {
    const out: Fields = {};
    const errors: SaveError[] = [];
    for (const [name, raw] of Object.entries(values)) {
      if (name === 'attributes' || name === 'Id' || name === 'id') continue;
      const field = this.field(type, name);
      if (!field) continue;
      if (mode === 'update' ? !field.updateable : !field.createable) {
        errors.push({
          statusCode: 'INVALID_FIELD_FOR_INSERT_UPDATE',
          message:
            `Unable to create/update fields: ${field.name}. Please check the security settings of this ` +
            'field and verify that it is read/write for your profile or permission set.',
          fields: [field.name],
        });
        continue;
      }
      const value = raw === '' ? null : raw;
      const problem = valueProblem(field, value) ?? this.referenceProblem(field, value);
      if (problem) errors.push(problem);
      else out[field.name] = normalise(field, value as FieldValue);
    }
    return errors.length > 0 ? { errors } : { fields: out };
  }

  /**
   * A lookup must name a record of a type it refers to, as in Salesforce (a Contact's AccountId an existing Account).
   */
  private referenceProblem(field: DescribeField, value: unknown): SaveError | undefined {
    if (field.type !== 'reference' || value === null || value === undefined) return undefined;
    const refersToSandboxObject = field.referenceTo.filter((t): t is SandboxObjectType =>
      (SANDBOX_OBJECT_TYPES as readonly string[]).includes(t),
    );
    if (refersToSandboxObject.length === 0) return undefined;
    const id = toId18(String(value));
    if (!id)
      return {
        statusCode: 'MALFORMED_ID',
        message: `${field.label}: id value of incorrect type: ${String(value)}`,
        fields: [field.name],
      };
    if (refersToSandboxObject.some((t) => this.get(t, id))) return undefined;
    return { statusCode: 'INVALID_CROSS_REFERENCE_KEY', message: 'invalid cross reference id', fields: [field.name] };
  }

  /** Like Salesforce, many records saved in the same millisecond share a LastModifiedDate. */
  private stamp(): number {
    return Date.now();
  }
}

function valueProblem(field: DescribeField, value: unknown): SaveError | undefined {
  const fields = [field.name];
  if (value === null || value === undefined) return undefined;
  if (['int', 'double', 'currency'].includes(field.type)) {
    const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
    if (!Number.isFinite(n) || (field.type === 'int' && !Number.isInteger(n))) {
      return {
        statusCode: 'INVALID_TYPE_ON_FIELD_IN_RECORD',
        message: `${field.label}: value not of required type: ${String(value)}`,
        fields,
      };
    }
    return undefined;
  }
  if (field.type === 'boolean') {
    return typeof value === 'boolean' || value === 'true' || value === 'false'
      ? undefined
      : {
          statusCode: 'INVALID_TYPE_ON_FIELD_IN_RECORD',
          message: `${field.label}: value not of required type: ${String(value)}`,
          fields,
        };
  }
  const text = String(value);
  if (field.length > 0 && text.length > field.length) {
    return {
      statusCode: 'STRING_TOO_LONG',
      message: `${field.label}: data value too large: ${text.slice(0, 40)} (max length=${field.length})`,
      fields,
    };
  }
  if (field.type === 'email' && !EMAIL.test(text)) {
    return { statusCode: 'INVALID_EMAIL_ADDRESS', message: `${field.label}: invalid email address: ${text}`, fields };
  }
  if (
    field.type === 'picklist' &&
    field.restrictedPicklist &&
    !field.picklistValues.some((v) => v.active && v.value === text)
  ) {
    return {
      statusCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
      message: `${field.label}: bad value for restricted picklist field: ${text}`,
      fields,
    };
  }
  return undefined;
}

function normalise(field: DescribeField, value: FieldValue): FieldValue {
  if (value === null) return null;
  if (['int', 'double', 'currency'].includes(field.type)) return Number(value);
  if (field.type === 'boolean') return value === true || value === 'true';
  if (field.type === 'reference' || field.type === 'id') return toId18(String(value)) ?? String(value);
  return String(value);
}

const TEXT_TYPES = new Set(['string', 'email', 'phone', 'url', 'picklist', 'textarea']);

/** The fields a WHERE clause tests, optionally only those tested with one kind of condition. */
function whereFields(c: Condition | undefined, kind?: Condition['kind']): string[] {
  if (!c) return [];
  if (c.kind === 'junction') return [...whereFields(c.left, kind), ...whereFields(c.right, kind)];
  return !kind || c.kind === kind ? [c.field] : [];
}

function compare(a: FieldValue, b: FieldValue): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : 1;
}
