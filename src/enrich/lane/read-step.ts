/**
 * The read step: what a claimed batch's records start from, in as few reads as it can. One state read and
 * one look at the service's own creations for the whole batch; refreshes whose partner data and mapping
 * are unchanged need nothing more; the rest come from the listing that enqueued them when it is fresh
 * (backfill, sweep), otherwise from one CRM read. Returns the records to run and, apart, those that are
 * finished already or could not be read, for the lane to settle.
 */
import type { CrmConnector, CrmRecord } from '../../core/connector.js';
import type { Priority } from '../../core/limiter.js';
import { logger } from '../../logger.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import type { EnrichJob } from '../jobs.js';
import { OWN_CREATION_MARK_MS } from '../own-creation.js';
import type { PartnerLookups } from '../partner-lookups.js';
import type { CreatedRecordsPort, PipelineState, StatePort } from '../ports.js';
import { propertiesToRead } from '../record/read-properties.js';
import { unchangedRefreshes } from '../record/refresh-shortcut.js';
import { runOutcome, type SettledRun } from '../record/run-outcome.js';
import { freshSnapshot } from '../record/snapshot.js';
import type { Work } from './work.js';

const log = logger('enrich.lane');

export interface ReadContext {
  connector: CrmConnector;
  objectType: string;
  state: Pick<StatePort, 'getMany'>;
  lookups: PartnerLookups;
  /** Records the service created: their creation events are its own doings, never enriched again. */
  created?: Pick<CreatedRecordsPort, 'has' | 'underWay'> | undefined;
}

export interface ReadBatch {
  /** The records to run. */
  works: Work[];
  /** The service's own creations: finished as echoes, with no read and no lookup. */
  ours: string[];
  /**
   * Creations not known yet while a creation of this object type is under way on some instance (the CRM
   * announced it before the service recorded it): put back, to be looked at again shortly.
   */
  undecided: string[];
  /** Records finished without a run: refreshes that found what was applied last time, records gone. */
  done: SettledRun[];
  /** Records that could not be read, and why. */
  failed: { recordIds: string[]; error: unknown }[];
  /**
   * Jobs made with the service's token whose records are to be enriched: not a creation of its own, not a
   * refresh with nothing to do. That is a script reusing the token. Counted on the first claim only, so a
   * retry or a reclaim does not count a change again.
   */
  foreignToken: number;
}

export async function readBatch(
  ctx: ReadContext,
  byRecord: Map<string, EnrichJob[]>,
  mapping: CompiledMapping,
): Promise<ReadBatch> {
  const out: ReadBatch = { works: [], ours: [], undecided: [], done: [], failed: [], foreignToken: 0 };
  const ids = [...byRecord.keys()];
  let states: Map<string, PipelineState>;
  let own: { ours: Set<string>; undecided: Set<string> };
  try {
    [states, own] = await Promise.all([
      ctx.state.getMany(ctx.connector.connection, ctx.objectType, ids),
      ownCreations(ctx, byRecord),
    ]);
  } catch (error) {
    out.failed.push({ recordIds: ids, error });
    return out;
  }
  out.ours = [...own.ours];
  out.undecided = [...own.undecided];
  const running = new Map([...byRecord].filter(([id]) => !own.ours.has(id) && !own.undecided.has(id)));
  const unchanged = new Set(await unchangedRefreshes(running, states, mapping, ctx.lookups));
  for (const id of unchanged)
    out.done.push(runOutcome({ recordId: id, jobs: byRecord.get(id)!, state: states.get(id) }, 'unchanged'));
  const toRead = [...running.keys()].filter((id) => !unchanged.has(id));
  out.foreignToken = toRead
    .flatMap((id) => byRecord.get(id)!)
    .filter((j) => j.data.byThisService && j.retryCount === 0 && !j.data.reclaims).length;
  if (toRead.length === 0) return out;

  const priority: Priority = toRead.some((id) => isPerson(byRecord.get(id)!)) ? 'interactive' : 'bulk';
  const read = propertiesToRead(ctx.connector, ctx.objectType, mapping);
  const records = new Map<string, CrmRecord>();
  for (const id of toRead) {
    const snapshot = freshSnapshot(byRecord.get(id)!, states.get(id), read);
    if (snapshot) records.set(id, snapshot);
  }
  const reads = toRead.filter((id) => !records.has(id));
  log.debug(
    { objectType: ctx.objectType, claimed: ids.length, reading: reads.length, fromSnapshot: records.size },
    'reading a batch',
  );
  let gone: string[] = [];
  if (reads.length) {
    try {
      const found = await ctx.connector.readRecords(ctx.objectType, reads, read, { priority });
      for (const r of found) records.set(r.id, r);
      gone = reads.filter((id) => !records.has(id));
    } catch (error) {
      out.failed.push({ recordIds: reads, error });
    }
  }
  const skipped = { kind: 'no_key' as const, reason: 'the record no longer exists in the CRM' };
  for (const id of gone) out.done.push(runOutcome({ recordId: id, jobs: byRecord.get(id)! }, skipped));
  for (const id of toRead) {
    const record = records.get(id);
    if (!record) continue;
    const jobs = byRecord.get(id)!;
    out.works.push({ jobs, record, state: states.get(id), priority: isPerson(jobs) ? 'interactive' : 'bulk' });
  }
  return out;
}

const isPerson = (jobs: EnrichJob[]): boolean => jobs.some((j) => j.priority === 'interactive');

/**
 * Records known only by their creation events: `ours`, those the service itself created (an employer's
 * company, a discovered person), which cost no read and no lookup a second time; `undecided`, those not
 * known yet while a creation of this object type is under way. A creation the CRM says another maker made
 * is never held.
 */
async function ownCreations(
  ctx: ReadContext,
  byRecord: Map<string, EnrichJob[]>,
): Promise<{ ours: Set<string>; undecided: Set<string> }> {
  const { created, connector, objectType } = ctx;
  const creations = [...byRecord].filter(([, jobs]) => jobs.every((j) => j.data.reason === 'created'));
  if (!created || creations.length === 0) return { ours: new Set(), undecided: new Set() };
  const ours = await created.has(
    connector.connection,
    objectType,
    creations.map(([id]) => id),
  );
  const unknown = creations.filter(([id, jobs]) => !ours.has(id) && !jobs.some((j) => j.data.byAnother));
  const waiting =
    unknown.length > 0 && (await created.underWay(connector.connection, objectType, OWN_CREATION_MARK_MS));
  return { ours, undecided: new Set(waiting ? unknown.map(([id]) => id) : []) };
}
