/**
 * The app's webhooks journal as HubSpot keeps it (webhooks-journal 2026-03): the portal's changes that
 * match the app's journal subscriptions (and their filters), published in order as entries, each with
 * an offset (a UUID) and a file of events; an entry is kept three days, then it and its offset are gone.
 * Snapshots of CRM objects are written to the journal like changes. The journal's clock is an option,
 * and `age` makes the entries kept older, so a test can let days pass without waiting for them.
 */
import { randomUUID } from 'node:crypto';
import type { ChangeEvent, ChangeSource, ObjectType } from './object-store.js';

export const JOURNAL_RETENTION_MS = 3 * 86_400_000;
/** HubSpot's object type ids, which journal subscriptions and events name. */
export const JOURNAL_OBJECT_TYPES: Record<string, ObjectType> = { '0-1': 'contacts', '0-2': 'companies' };
const TYPE_IDS: Record<ObjectType, string> = { contacts: '0-1', companies: '0-2' };

export const JOURNAL_ACTIONS = [
  'CREATE',
  'UPDATE',
  'DELETE',
  'MERGE',
  'RESTORE',
  'ASSOCIATION_ADDED',
  'ASSOCIATION_REMOVED',
  'SNAPSHOT',
  'APP_INSTALL',
  'APP_UNINSTALL',
  'ADDED_TO_LIST',
  'REMOVED_FROM_LIST',
  'GDPR_DELETE',
] as const;
export type JournalAction = (typeof JOURNAL_ACTIONS)[number];

export const FILTER_OPERATORS = [
  'CONTAINS',
  'ENDS_WITH',
  'EQ',
  'GT',
  'GTE',
  'IN',
  'IS_EMPTY',
  'IS_NOT_EMPTY',
  'LT',
  'LTE',
  'N_EQ',
  'NOT_IN',
  'STARTS_WITH',
] as const;

export interface JournalSubscription {
  id: number;
  appId: number;
  portalId: number;
  subscriptionType: 'OBJECT';
  objectTypeId: string;
  actions: JournalAction[];
  /** Properties whose change is journaled as UPDATE; empty: every property. */
  properties: string[];
  /** Objects the subscription is limited to; empty: every object of the type. */
  objectIds: number[];
  createdAt: string;
  updatedAt: string;
}

export interface FilterCondition {
  filterType: 'CRM_OBJECT_PROPERTY';
  operator: (typeof FILTER_OPERATORS)[number];
  property: string;
  value?: string;
  values?: string[];
}

export interface JournalFilter {
  id: number;
  subscriptionId: number;
  createdAt: number;
  filter: { conditions: FilterCondition[] };
}

export interface JournalEvent {
  eventId: number;
  subscriptionId: number;
  portalId: number;
  appId: number;
  occurredAt: number;
  action: JournalAction;
  objectTypeId: string;
  objectId: number;
  changeSource: ChangeSource;
  sourceId?: string;
  /** UPDATE: the changed properties and their new values. SNAPSHOT: the requested properties. */
  propertyChanges?: Record<string, string>;
}

export interface JournalEntry {
  offset: string;
  publishedAt: number;
  events: JournalEvent[];
}

export interface SnapshotRequest {
  objectId: number;
  objectTypeId: string;
  portalId: number;
  properties: string[];
}

export interface SnapshotStatus {
  id: string;
  initiatedAt: number;
  completedAt?: number;
  status: 'SUCCESS' | 'FAILED';
  errorCode?: 'VALIDATION_ERROR';
  message?: string;
}

/** What the portal file keeps of the journal (portal-file.ts), so a restarted sandbox still holds offsets read. */
export interface JournalData {
  entries: JournalEntry[];
  subscriptions: JournalSubscription[];
  filters: JournalFilter[];
  nextIds: { subscription: number; filter: number; event: number };
}

export interface SandboxJournalOptions {
  portalId: number;
  appId: number;
  /** The journal changed (an entry published, a subscription or filter made or deleted): the portal file is due. */
  changed?: () => void;
  /** An object's current properties, for filters and snapshots. */
  properties: (type: ObjectType, id: string) => Map<string, string> | undefined;
  now?: () => number;
}

export class SandboxJournal {
  private entries: JournalEntry[] = [];
  private pending: JournalEvent[] = [];
  private publishScheduled = false;
  private readonly subscriptions = new Map<number, JournalSubscription>();
  private readonly filters = new Map<number, JournalFilter>();
  private readonly snapshots = new Map<string, SnapshotStatus>();
  private nextSubscriptionId = 1;
  private nextFilterId = 1;
  private nextEventId = 1;

  constructor(private readonly options: SandboxJournalOptions) {}

  now(): number {
    return (this.options.now ?? Date.now)();
  }

  /**
   * Makes every entry kept `ms` older, as if that time had passed since it was published; those now
   * older than three days are dropped. Events keep their occurredAt, which webhooks carry too.
   */
  age(ms: number): void {
    this.publish();
    for (const entry of this.entries) entry.publishedAt -= ms;
    this.prune();
  }

  /** A change in the portal: journaled once for each subscription it matches. */
  record(change: ChangeEvent): void {
    const typeId = TYPE_IDS[change.objectType];
    const action: JournalAction = change.kind === 'creation' ? 'CREATE' : 'UPDATE';
    for (const sub of this.subscriptions.values()) {
      if (sub.objectTypeId !== typeId || !sub.actions.includes(action)) continue;
      if (sub.objectIds.length > 0 && !sub.objectIds.includes(Number(change.id))) continue;
      if (change.kind === 'propertyChange' && sub.properties.length > 0 && !sub.properties.includes(change.name))
        continue;
      if (!this.passesFilters(sub.id, change.objectType, change.id)) continue;
      this.pending.push({
        eventId: this.nextEventId++,
        subscriptionId: sub.id,
        portalId: this.options.portalId,
        appId: this.options.appId,
        occurredAt: change.at,
        action,
        objectTypeId: typeId,
        objectId: Number(change.id),
        changeSource: change.source,
        ...(change.source === 'INTEGRATION' ? { sourceId: String(change.appId ?? this.options.appId) } : {}),
        ...(change.kind === 'propertyChange' ? { propertyChanges: { [change.name]: change.value } } : {}),
      });
    }
    this.schedulePublish();
  }

  /** Snapshots of objects, written to the journal as SNAPSHOT events with the requested properties. */
  snapshot(requests: SnapshotRequest[]): { request: SnapshotRequest; statusId: string }[] {
    return requests.map((request) => {
      const id = randomUUID();
      const type = JOURNAL_OBJECT_TYPES[request.objectTypeId];
      const found = type ? this.options.properties(type, String(request.objectId)) : undefined;
      const initiatedAt = this.now();
      if (!found || request.portalId !== this.options.portalId) {
        this.snapshots.set(id, {
          id,
          initiatedAt,
          completedAt: initiatedAt,
          status: 'FAILED',
          errorCode: 'VALIDATION_ERROR',
          message: `No object ${request.objectTypeId}/${request.objectId} in portal ${request.portalId}`,
        });
        return { request, statusId: id };
      }
      this.pending.push({
        eventId: this.nextEventId++,
        subscriptionId: 0,
        portalId: this.options.portalId,
        appId: this.options.appId,
        occurredAt: initiatedAt,
        action: 'SNAPSHOT',
        objectTypeId: request.objectTypeId,
        objectId: request.objectId,
        changeSource: 'INTEGRATION',
        propertyChanges: Object.fromEntries(request.properties.map((p) => [p, found.get(p) ?? ''])),
      });
      this.snapshots.set(id, { id, initiatedAt, completedAt: initiatedAt, status: 'SUCCESS' });
      this.schedulePublish();
      return { request, statusId: id };
    });
  }

  /** What the portal file keeps. */
  data(): JournalData {
    this.publish();
    return {
      entries: this.entries.slice(),
      subscriptions: [...this.subscriptions.values()],
      filters: [...this.filters.values()],
      nextIds: { subscription: this.nextSubscriptionId, filter: this.nextFilterId, event: this.nextEventId },
    };
  }

  restore(data: JournalData): void {
    this.entries = data.entries;
    for (const s of data.subscriptions) this.subscriptions.set(s.id, s);
    for (const f of data.filters) this.filters.set(f.id, f);
    this.nextSubscriptionId = data.nextIds.subscription;
    this.nextFilterId = data.nextIds.filter;
    this.nextEventId = data.nextIds.event;
    this.prune();
  }

  snapshotStatus(id: string): SnapshotStatus | undefined {
    return this.snapshots.get(id);
  }

  earliest(count = 1): JournalEntry[] {
    this.publish();
    return this.entries.slice(0, count);
  }

  latest(count = 1): JournalEntry[] {
    this.publish();
    return this.entries.slice(-count);
  }

  /** Up to `count` entries after `offset`, oldest first; undefined when the journal does not hold `offset`. */
  after(offset: string, count = 1): JournalEntry[] | undefined {
    this.publish();
    const at = this.entries.findIndex((e) => e.offset === offset);
    return at < 0 ? undefined : this.entries.slice(at + 1, at + 1 + count);
  }

  /** The entry at `offset`, while it is kept. */
  at(offset: string): JournalEntry | undefined {
    this.publish();
    return this.entries.find((e) => e.offset === offset);
  }

  /** Every entry kept, oldest first (tests). */
  list(): JournalEntry[] {
    this.publish();
    return structuredClone(this.entries);
  }

  upsertSubscription(
    appId: number,
    input: Pick<JournalSubscription, 'portalId' | 'objectTypeId' | 'actions' | 'properties' | 'objectIds'>,
  ): JournalSubscription {
    // One subscription per app, portal and object type: a second upsert changes it.
    const existing = [...this.subscriptions.values()].find(
      (s) => s.appId === appId && s.portalId === input.portalId && s.objectTypeId === input.objectTypeId,
    );
    const at = new Date(this.now()).toISOString();
    const subscription: JournalSubscription = {
      id: existing?.id ?? this.nextSubscriptionId++,
      appId,
      subscriptionType: 'OBJECT',
      ...input,
      createdAt: existing?.createdAt ?? at,
      updatedAt: at,
    };
    this.subscriptions.set(subscription.id, subscription);
    this.options.changed?.();
    return subscription;
  }

  subscriptionsOf(appId: number): JournalSubscription[] {
    return [...this.subscriptions.values()].filter((s) => s.appId === appId);
  }

  subscription(appId: number, id: number): JournalSubscription | undefined {
    const found = this.subscriptions.get(id);
    return found?.appId === appId ? found : undefined;
  }

  deleteSubscription(appId: number, id: number): boolean {
    if (!this.subscription(appId, id)) return false;
    this.subscriptions.delete(id);
    for (const [filterId, f] of this.filters) if (f.subscriptionId === id) this.filters.delete(filterId);
    this.options.changed?.();
    return true;
  }

  deletePortalSubscriptions(appId: number, portalId: number): void {
    for (const s of this.subscriptionsOf(appId)) if (s.portalId === portalId) this.deleteSubscription(appId, s.id);
  }

  createFilter(subscriptionId: number, conditions: FilterCondition[]): JournalFilter {
    const filter = { id: this.nextFilterId++, subscriptionId, createdAt: this.now(), filter: { conditions } };
    this.filters.set(filter.id, filter);
    this.options.changed?.();
    return filter;
  }

  filter(appId: number, id: number): JournalFilter | undefined {
    const found = this.filters.get(id);
    return found && this.subscription(appId, found.subscriptionId) ? found : undefined;
  }

  filtersOf(subscriptionId: number): JournalFilter[] {
    return [...this.filters.values()].filter((f) => f.subscriptionId === subscriptionId);
  }

  deleteFilter(appId: number, id: number): boolean {
    if (!this.filter(appId, id)) return false;
    this.filters.delete(id);
    this.options.changed?.();
    return true;
  }

  /** An object passes when the subscription has no filter, or when every condition of one of them holds. */
  private passesFilters(subscriptionId: number, type: ObjectType, id: string): boolean {
    const filters = this.filtersOf(subscriptionId);
    if (filters.length === 0) return true;
    const properties = this.options.properties(type, id) ?? new Map<string, string>();
    return filters.some((f) => f.filter.conditions.every((c) => holds(c, properties.get(c.property) ?? '')));
  }

  private schedulePublish(): void {
    if (this.publishScheduled || this.pending.length === 0) return;
    this.publishScheduled = true;
    // The changes of one request (a batch update) make one entry, as HubSpot gathers events into files.
    setImmediate(() => this.publish());
  }

  private publish(): void {
    this.publishScheduled = false;
    this.prune();
    if (this.pending.length === 0) return;
    this.entries.push({ offset: randomUUID(), publishedAt: this.now(), events: this.pending });
    this.pending = [];
    this.options.changed?.();
  }

  private prune(): void {
    const oldest = this.now() - JOURNAL_RETENTION_MS;
    const kept = this.entries.findIndex((e) => e.publishedAt >= oldest);
    if (kept !== 0) this.entries = kept < 0 ? [] : this.entries.slice(kept);
  }
}

function holds(condition: FilterCondition, value: string): boolean {
  const wanted = condition.value ?? '';
  const list = condition.values ?? wanted.split(',').map((v) => v.trim());
  const numbers = [Number(value), Number(wanted)] as const;
  switch (condition.operator) {
    case 'EQ':
      return value === wanted;
    case 'N_EQ':
      return value !== wanted;
    case 'CONTAINS':
      return value.includes(wanted);
    case 'STARTS_WITH':
      return value.startsWith(wanted);
    case 'ENDS_WITH':
      return value.endsWith(wanted);
    case 'IN':
      return list.includes(value);
    case 'NOT_IN':
      return !list.includes(value);
    case 'IS_EMPTY':
      return value === '';
    case 'IS_NOT_EMPTY':
      return value !== '';
    case 'LT':
      return numbers[0] < numbers[1];
    case 'LTE':
      return numbers[0] <= numbers[1];
    case 'GT':
      return numbers[0] > numbers[1];
    case 'GTE':
      return numbers[0] >= numbers[1];
  }
}
