/**
 * Tells work a person waits for from bulk work, by who made each change and how they behave, so an
 * import never stands in front of the contact someone just typed in or a web form just sent:
 *
 * - a change a person made in the CRM's own app is interactive;
 * - one the CRM calls bulk (an import, a bulk action, a migration) is bulk;
 * - anything else (another app through the API, a script, a CRM that does not say) is judged by its
 *   actor's behaviour: interactive, unless one delivery carries more than `deliveryLimit` of that
 *   actor's events (a batch API call), or the actor sent more than `rateLimit` within `windowMs`
 *   (a stream of single calls). A web form or a sales tool creating one record at a time stays
 *   interactive; a script looping over a list turns bulk after its first few.
 *
 * Each actor (an app, a user id) is counted per connection, so one app's import never turns another app's
 * form bulk, nor one connection's stream another connection's. Bulk work still runs at full speed; it only yields to
 * interactive work at the limiter and the queue.
 */
import type { RecordEvent } from '../../core/connector.js';
import type { Priority } from '../../core/limiter.js';

export interface TriageOptions {
  /** A delivery with more events than this from one actor, for one connection, is bulk (default 10). */
  deliveryLimit?: number;
  /** More events than this from one actor within `windowMs` are bulk (default 60 in 10 s). */
  rateLimit?: number;
  windowMs?: number;
  now?: () => number;
}

export const TRIAGE_DEFAULTS = { deliveryLimit: 10, rateLimit: 60, windowMs: 10_000 } as const;

export class Triage {
  private readonly deliveryLimit: number;
  private readonly rateLimit: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  /** Times of recent interactive events, per connection and actor (at most rateLimit each). */
  private readonly recent = new Map<string, number[]>();

  constructor(options: TriageOptions = {}) {
    this.deliveryLimit = options.deliveryLimit ?? TRIAGE_DEFAULTS.deliveryLimit;
    this.rateLimit = options.rateLimit ?? TRIAGE_DEFAULTS.rateLimit;
    this.windowMs = options.windowMs ?? TRIAGE_DEFAULTS.windowMs;
    this.now = options.now ?? Date.now;
  }

  /**
   * The priority of each event of one delivery, given the priority its kind would have alone
   * (`base`): bulk stays bulk; interactive becomes bulk by the rules above.
   */
  classify(events: RecordEvent[], base: (event: RecordEvent) => Priority): Priority[] {
    const result = events.map((event): Priority =>
      base(event) === 'bulk' || event.actor === 'bulk' ? 'bulk' : 'interactive',
    );
    const byActor = new Map<string, number[]>();
    for (const [i, event] of events.entries()) {
      if (result[i] !== 'interactive' || event.actor === 'person') continue;
      const key = actorKey(event);
      byActor.set(key, [...(byActor.get(key) ?? []), i]);
    }
    const now = this.now();
    for (const [key, indexes] of byActor) {
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
    this.forgetQuiet(now);
    return result;
  }

  /** Actors silent for a whole window need no entry: the map stays as small as the active actors. */
  private forgetQuiet(now: number): void {
    if (this.recent.size < 1_000) return;
    for (const [key, times] of this.recent) if ((times.at(-1) ?? 0) <= now - this.windowMs) this.recent.delete(key);
  }
}

function actorKey(event: RecordEvent): string {
  return `${event.crm}:${event.connection}:${event.actor ?? 'unknown'}:${event.actorId ?? ''}`;
}
