/**
 * The one place an incoming event becomes work. For each delivery, in order:
 *
 * 1. events about objects no active mapping enriches are dropped (a privacy deletion always goes on:
 *    our own state may hold the person whatever the mappings say now);
 * 2. the service's own doings are dropped, judged once, from what Postgres holds (so every instance
 *    judges alike): a creation event of a record the service created, or a change that only echoes
 *    values it wrote or is writing (a lane keeps the identity values of a write in Postgres before it
 *    sends it, since the CRM's change event may come back before the write is settled). Anything else
 *    made with the service's token (a script that reuses it) is work like any other; its job says so, and
 *    the lane counts it once it has checked again that the record is not one the service just created.
 *    A change event delivered with the record's creation event adds
 *    nothing either (a CRM announces the values a record was created with as changes too): the
 *    creation's run reads the record as it is;
 * 3. each remaining event is interactive or bulk by who made it and how that actor behaves (Triage);
 * 4. the jobs are stored in one round trip per queue (the acknowledgement waits for it), and the lanes
 *    are woken.
 */
import { forPerson } from '../../core/person-waiting.js';
import type { RecordEvent } from '../../core/connector.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import { isOwnChange } from './echo.js';
import { EVENT_REASONS, jobFromEvent, priorityOf, queueName } from '../jobs.js';
import type { CreatedRecordsPort, EnqueuePort, NewJob, PendingWritesPort, PipelineState, StatePort } from '../ports.js';
import { Triage } from './triage.js';

/** What became of a delivery's events: stored as jobs, already stored before, or needing nothing. */
export interface IntakeResult {
  stored: number;
  duplicates: number;
  ignored: number;
}

export interface IntakeOptions {
  /** The active compiled mapping of a CRM object, or undefined when that object is not enriched. */
  mapping: (crm: string, objectType: string) => CompiledMapping | undefined;
  state: Pick<StatePort, 'getMany'>;
  created: Pick<CreatedRecordsPort, 'has'>;
  writing: Pick<PendingWritesPort, 'get'>;
  /** Stores the jobs; storing them wakes their lanes (waking-enqueue.ts). */
  enqueue: EnqueuePort;
  triage?: Triage;
  now?: () => Date;
}

export class Intake {
  private readonly triage: Triage;

  constructor(private readonly options: IntakeOptions) {
    this.triage = options.triage ?? new Triage();
  }

  async receive(events: RecordEvent[]): Promise<IntakeResult> {
    const mapped = events.filter((e) => e.kind === 'privacy_deletion' || this.options.mapping(e.crm, e.objectType));
    const own = await this.ownDoings(mapped);
    const creations = new Set(mapped.filter((e) => e.kind === 'created').map(recordKey));
    const wanted = mapped.filter((e) => !own.has(e) && !(e.kind === 'changed' && creations.has(recordKey(e))));

    const now = (this.options.now ?? (() => new Date()))();
    const priorities = this.triage.classify(wanted, (e) => priorityOf(EVENT_REASONS[e.kind]));
    const jobs: NewJob[] = wanted.map((event, i) => ({
      ...jobFromEvent(event, now, priorities[i]),
      queue: queueName(event.connection, event.objectType),
    }));
    const person = jobs.some((j) => j.priority === 'interactive');
    const result = jobs.length
      ? await forPerson(person, () => this.options.enqueue.enqueue(jobs))
      : { inserted: 0, duplicates: 0 };
    return { stored: result.inserted, duplicates: result.duplicates, ignored: events.length - wanted.length };
  }

  /**
   * Events that only report what the service did: creations of records it created (whoever's token
   * the CRM names), and changes whose values are what it wrote or still resolve to the key that matched.
   * One read of the created records and one of the states per object type and delivery.
   */
  private async ownDoings(events: RecordEvent[]): Promise<Set<RecordEvent>> {
    const own = new Set<RecordEvent>();
    const groups = new Map<string, RecordEvent[]>();
    for (const e of events) {
      // A creation whose maker the CRM does not name (a Salesforce outbound message) may be the service's too.
      const maybeOurs = e.actor === 'this_service' || e.actor === undefined;
      if (e.kind !== 'changed' && !(e.kind === 'created' && maybeOurs)) continue;
      const key = `${e.crm}\u0000${e.connection}\u0000${e.objectType}`;
      groups.set(key, [...(groups.get(key) ?? []), e]);
    }
    for (const group of groups.values()) {
      const { connection, objectType, crm } = group[0]!;
      const creations = group.filter((e) => e.kind === 'created');
      const changes = group.filter((e) => e.kind === 'changed');
      const ids = (list: RecordEvent[]) => [...new Set(list.map((e) => e.recordId))];
      const [created, states, writing] = await Promise.all([
        this.options.created.has(connection, objectType, ids(creations)),
        changes.length
          ? this.options.state.getMany(connection, objectType, ids(changes))
          : new Map<string, PipelineState>(),
        changes.length
          ? this.options.writing.get(connection, objectType, ids(changes))
          : new Map<string, Record<string, string>>(),
      ]);
      for (const e of creations) if (created.has(e.recordId)) own.add(e);
      const mapping = this.options.mapping(crm, objectType);
      for (const e of changes) {
        const state = states.get(e.recordId);
        const pending = writing.get(e.recordId);
        const values = e.changedProperties ?? e.values;
        const enriched = state?.status === 'enriched' ? state : undefined;
        const known =
          enriched || pending
            ? { matchKey: enriched?.matchKey ?? null, lastWritten: { ...enriched?.lastWritten, ...pending } }
            : undefined;
        if (mapping && values && isOwnChange(values, mapping, known)) own.add(e);
      }
    }
    return own;
  }
}

function recordKey(e: RecordEvent): string {
  return `${e.crm}\u0000${e.connection}\u0000${e.objectType}\u0000${e.recordId}`;
}
