/**
 * A lane's bookkeeping, in one place: every record it holds and where that record is in its run.
 * Every count the lane and its parts steer by (records held, lookups under way, lookups a person waits
 * for, records waiting for their write or company link) is derived from the phase each record is in,
 * so no path adjusts a counter by hand. When records leave in a way that brings the lane down to its
 * low-water mark, the ledger says so (`room`), and the claim loop claims the next batch.
 */
import { EventEmitter } from 'node:events';
import type { PeopleFirst } from './people-first.js';

/**
 * `reading`: claimed, its CRM read or state not in yet; `planning`: its partner lookups under way;
 * `linking`: planned, waiting for its employer before its write (where the link is a field of the
 * record); `waiting`: its write under way (no lookup of its own is busy); `written`: written, its
 * company link under way.
 */
export type Phase = 'reading' | 'planning' | 'linking' | 'waiting' | 'written';

/** The phases of a record a person waits for: from its claim until its enrichment is written. */
const UNWRITTEN: ReadonlySet<Phase> = new Set(['reading', 'planning', 'linking', 'waiting']);

export interface LedgerLimits {
  /** The claim loop claims again once the weight is at or below this. */
  lowWater: number;
  /** Records waiting for a write or a link that do not weigh on claiming. */
  waitingAllowance: number;
  /** Told when a record a person waits for is taken in hand and when it is written or let go. */
  people?: Pick<PeopleFirst, 'arrive' | 'leave'>;
}

interface Entry {
  phase: Phase;
  interactive: boolean;
}

export class Ledger extends EventEmitter<{ room: []; released: [string[]] }> {
  private readonly records = new Map<string, Entry>();
  private readonly counts: Record<Phase, number> = { reading: 0, planning: 0, linking: 0, waiting: 0, written: 0 };
  private interactivePlanning = 0;
  private interactiveUnwritten = 0;

  constructor(private readonly limits: LedgerLimits) {
    super();
  }

  /** Records held right now (claimed, not yet settled). */
  get held(): number {
    return this.records.size;
  }

  /** Records whose partner lookups are under way: each may still add a write or an employer. */
  get planning(): number {
    return this.counts.planning;
  }

  /** Of those, the ones a person waits for. */
  get urgentPlanning(): number {
    return this.interactivePlanning;
  }

  /** Records a person waits for that are not written yet (a burst of them shares a claim and a read). */
  get peopleWaiting(): number {
    return this.interactiveUnwritten;
  }

  /** Records that may still add a write: planning, or waiting for the employer their write carries. */
  get mayWrite(): number {
    return this.counts.planning + this.counts.linking;
  }

  /** Records claimed whose CRM read or state is not in yet: each will plan, and may add a write. */
  get reading(): number {
    return this.counts.reading;
  }

  has(recordId: string): boolean {
    return this.records.has(recordId);
  }

  /** The phase a held record is in; undefined once it has left the lane. */
  phaseOf(recordId: string): Phase | undefined {
    return this.records.get(recordId)?.phase;
  }

  /** Takes records into the lane, each in its first phase; `interactive`: those a person waits for. */
  hold(recordIds: string[], interactive: ReadonlySet<string> = new Set()): void {
    this.change(() => {
      for (const id of recordIds) this.set(id, { phase: 'reading', interactive: interactive.has(id) });
    });
  }

  /** Moves a held record to its next phase; `interactive` says whether a person waits for it. */
  move(recordId: string, phase: Phase, interactive?: boolean): void {
    const entry = this.records.get(recordId);
    if (!entry) return;
    this.change(() => this.set(recordId, { phase, interactive: interactive ?? entry.interactive }));
  }

  /** Records whose runs are over (settled, failed or put back): the lane no longer holds them. */
  release(recordIds: string[]): void {
    this.change(() => {
      for (const id of recordIds) this.unset(id);
    });
    this.emit('released', recordIds);
  }

  /**
   * Records held as the claim loop counts them: those waiting for their employer, a write or a link keep
   * no lookup of their own busy and do not count, up to the allowance, so the lane claims while a batch
   * fills and employers gather. (Records waiting for their employer counted once: during an import of
   * people the partner does not know, each waited for its e-mail domain's batch, up to five seconds, and
   * held the lane back from claiming while the key stood half idle.)
   */
  claimWeight(): number {
    const waiting = this.counts.linking + this.counts.waiting + this.counts.written;
    return this.records.size - Math.min(waiting, this.limits.waitingAllowance);
  }

  private change(apply: () => void): void {
    const before = this.claimWeight();
    const people = this.interactiveUnwritten;
    apply();
    for (let n = people; n < this.interactiveUnwritten; n++) this.limits.people?.arrive();
    for (let n = this.interactiveUnwritten; n < people; n++) this.limits.people?.leave();
    if (before > this.limits.lowWater && this.claimWeight() <= this.limits.lowWater) this.emit('room');
  }

  private set(id: string, entry: Entry): void {
    this.unset(id);
    this.records.set(id, entry);
    this.counts[entry.phase]++;
    if (entry.phase === 'planning' && entry.interactive) this.interactivePlanning++;
    if (UNWRITTEN.has(entry.phase) && entry.interactive) this.interactiveUnwritten++;
  }

  private unset(id: string): void {
    const old = this.records.get(id);
    if (!old) return;
    this.records.delete(id);
    this.counts[old.phase]--;
    if (old.phase === 'planning' && old.interactive) this.interactivePlanning--;
    if (UNWRITTEN.has(old.phase) && old.interactive) this.interactiveUnwritten--;
  }
}
