/**
 * Tells work a person waits for from bulk work, per delivery, so an import or a sync never stands
 * in front of the contact someone just typed in. A new or changed record is interactive when the
 * CRM says a person made it (HubSpot's changeSource CRM_UI, the mobile apps, a form), and bulk when
 * it says a machine did (IMPORT, API, INTEGRATION, CRM_UI_BULK_ACTION and the like). When the CRM
 * does not say (Salesforce, other HubSpot sources), it is interactive unless:
 *
 * - it comes in a large delivery (HubSpot batches up to 100 events per call, Salesforce up to 100
 *   notifications per message): a person creates records one or two at a time;
 * - the connection has already sent more such events in the last few seconds than a team types in.
 *
 * Bulk work still runs at full speed; it only yields to interactive work at the limiter and the queue.
 */
import type { RecordEvent } from '../core/connector.js';
import type { Priority } from '../core/limiter.js';

/** HubSpot changeSource values of changes no person is waiting for. */
export const BULK_CHANGE_SOURCES: ReadonlySet<string> = new Set([
  'IMPORT',
  'API',
  'INTEGRATION',
  'CRM_UI_BULK_ACTION',
  'BATCH_UPDATE',
  'BULK',
  'MIGRATION',
  'DATA_SYNC',
  'WORKFLOWS',
  'AUTOMATION_PLATFORM',
]);

/** HubSpot changeSource values of changes a person made and may be waiting on. */
export const PERSON_CHANGE_SOURCES: ReadonlySet<string> = new Set(['CRM_UI', 'MOBILE_IOS', 'MOBILE_ANDROID', 'FORM', 'CONVERSATIONS', 'CHAT']);

export interface TriageOptions {
  /** A delivery with more interactive candidates than this, for one connection, is bulk (default 10). */
  deliveryLimit?: number;
  /** More interactive events than this per connection within `windowMs` are bulk (default 60). */
  rateLimit?: number;
  windowMs?: number;
  now?: () => number;
}

export class Triage {
  private readonly deliveryLimit: number;
  private readonly rateLimit: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  /** Times of recent interactive events, per connection (bounded by rateLimit each). */
  private readonly recent = new Map<string, number[]>();

  constructor(options: TriageOptions = {}) {
    this.deliveryLimit = options.deliveryLimit ?? 10;
    this.rateLimit = options.rateLimit ?? 60;
    this.windowMs = options.windowMs ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * The priority of each event of one delivery, given the priority its kind would have alone
   * (`base`): bulk stays bulk; interactive becomes bulk by the rules above.
   */
  classify(events: RecordEvent[], base: (event: RecordEvent) => Priority): Priority[] {
    const result = events.map((event) => (base(event) === 'bulk' || isMachineChange(event) ? 'bulk' : 'interactive') as Priority);
    const byConnection = new Map<string, number[]>();
    for (const [i, event] of events.entries()) {
      // A person's own change stays interactive even in a delivery full of an import's events.
      if (result[i] !== 'interactive' || isPersonChange(event)) continue;
      const key = `${event.source}:${event.connection}`;
      byConnection.set(key, [...(byConnection.get(key) ?? []), i]);
    }
    const now = this.now();
    for (const [key, indexes] of byConnection) {
      if (indexes.length > this.deliveryLimit) {
        for (const i of indexes) result[i] = 'bulk';
        continue;
      }
      const times = (this.recent.get(key) ?? []).filter((t) => t > now - this.windowMs);
      for (const i of indexes) {
        if (times.length >= this.rateLimit) result[i] = 'bulk';
        else times.push(now);
      }
      this.recent.set(key, times);
    }
    return result;
  }
}

function isPersonChange(event: RecordEvent): boolean {
  return event.changeSource !== undefined && PERSON_CHANGE_SOURCES.has(event.changeSource.toUpperCase());
}

function isMachineChange(event: RecordEvent): boolean {
  return event.changeSource !== undefined && BULK_CHANGE_SOURCES.has(event.changeSource.toUpperCase());
}
