/**
 * Associations between activities (tasks, notes) and records (contacts, companies), as HubSpot keeps
 * them: one HubSpot-defined type per direction (task to contact 204, contact to task 203, ...: the ids
 * of the official client's `AssociationTypes`), readable from either side. An association is one pair,
 * so adding it from the record's side or the activity's gives the same pair.
 */
import type { AssociationType } from './associations.js';

export const ACTIVITY_TYPES = ['tasks', 'notes'] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];
export type RecordType = 'contacts' | 'companies';
export type AnyObjectType = RecordType | ActivityType;

/** HubSpot-defined type ids: from the activity to the record, and back. */
const TYPE_IDS: Record<ActivityType, Record<RecordType, { fromActivity: number; toActivity: number }>> = {
  tasks: { contacts: { fromActivity: 204, toActivity: 203 }, companies: { fromActivity: 192, toActivity: 191 } },
  notes: { contacts: { fromActivity: 202, toActivity: 201 }, companies: { fromActivity: 190, toActivity: 189 } },
};

export const isActivity = (type: AnyObjectType): type is ActivityType =>
  (ACTIVITY_TYPES as readonly string[]).includes(type);

/** The activity and the record of a pair given in either direction, or undefined for another pair. */
export function activityPair(
  from: AnyObjectType,
  to: AnyObjectType,
): { activity: ActivityType; record: RecordType } | undefined {
  if (isActivity(from) && !isActivity(to)) return { activity: from, record: to };
  if (isActivity(to) && !isActivity(from)) return { activity: to, record: from };
  return undefined;
}

/** The HubSpot-defined type from `from` to `to`, for an activity pair. */
export function activityTypeId(from: AnyObjectType, to: AnyObjectType): number | undefined {
  const pair = activityPair(from, to);
  if (!pair) return undefined;
  const ids = TYPE_IDS[pair.activity][pair.record];
  return isActivity(from) ? ids.fromActivity : ids.toActivity;
}

export class ActivityAssociations {
  /** `type:id` -> the `type:id` of everything associated with it, both directions kept. */
  private readonly links = new Map<string, Set<string>>();

  add(from: AnyObjectType, fromId: string, to: AnyObjectType, toId: string): void {
    this.link(`${from}:${fromId}`, `${to}:${toId}`);
    this.link(`${to}:${toId}`, `${from}:${fromId}`);
  }

  /** The objects of type `to` associated with `from` `fromId`, each with its type as seen from `from`. */
  associated(from: AnyObjectType, fromId: string, to: AnyObjectType): Array<{ id: string; types: AssociationType[] }> {
    const typeId = activityTypeId(from, to);
    if (typeId === undefined) return [];
    return [...(this.links.get(`${from}:${fromId}`) ?? [])]
      .filter((key) => key.startsWith(`${to}:`))
      .map((key) => ({
        id: key.slice(to.length + 1),
        types: [{ category: 'HUBSPOT_DEFINED' as const, typeId, label: null }],
      }));
  }

  private link(from: string, to: string): void {
    const set = this.links.get(from) ?? new Set<string>();
    set.add(to);
    this.links.set(from, set);
  }
}
