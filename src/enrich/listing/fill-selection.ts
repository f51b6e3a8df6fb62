/**
 * Which records of a listed page a backfill enqueues, for the backfill and its dry run alike. Without a
 * segment: those with a match key that crm-enrich holds no state for. With one: those meeting its `where`
 * conditions and, for `missing`, those the data-health report counts as fillable for the property (empty,
 * with a match key) whose lookup could fill it (fill-need.ts); so the dry run's credits for a property are
 * the report's credits for it on the same records.
 */
import type { CrmRecord } from '../../core/connector.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import type { StalePort } from '../ports.js';
import { couldFill, lookupCosts, type CachedAnswers, type StateView } from './fill-need.js';
import { isFilled, meetsAll, type Segment } from './segment.js';

export interface SelectionDeps {
  stale: Pick<StalePort, 'known'>;
  states(connection: string, objectType: string, recordIds: string[]): Promise<Map<string, StateView>>;
  cached: CachedAnswers;
  /** Records enriched longer ago than this are stale: a lookup may bring something new. */
  refreshAfterDays: number;
  now?: () => Date;
}

export interface Selection {
  todo: CrmRecord[];
  /** Of `todo`, the records whose lookup the cache does not answer (counted only when asked for). */
  credits: number;
}

const DAY_MS = 86_400_000;

export async function selectForBackfill(
  deps: SelectionDeps,
  target: { connection: string; objectType: string; mapping: CompiledMapping },
  segment: Segment | null,
  records: readonly CrmRecord[],
  countCredits: boolean,
): Promise<Selection> {
  const { connection, objectType, mapping } = target;
  const inSegment = segment ? records.filter((r) => meetsAll(r.properties, segment.where)) : records;
  const withKey = inSegment.filter((r) => mapping.matchKeys(r.properties).length > 0);
  let todo: CrmRecord[];
  const missing = segment?.missing ?? null;
  if (missing !== null) {
    const gaps = withKey.filter((r) => !isFilled(r.properties[missing]));
    const states = gaps.length
      ? await deps.states(
          connection,
          objectType,
          gaps.map((r) => r.id),
        )
      : new Map<string, StateView>();
    const staleBefore = new Date((deps.now?.() ?? new Date()).getTime() - deps.refreshAfterDays * DAY_MS);
    todo = gaps.filter((r) => couldFill(states.get(r.id), missing, staleBefore));
  } else {
    const known = await deps.stale.known(
      connection,
      objectType,
      withKey.map((r) => r.id),
    );
    todo = withKey.filter((r) => !known.has(r.id));
  }
  const credits = countCredits ? (await lookupCosts(deps.cached, mapping, todo)).filter(Boolean).length : 0;
  return { todo, credits };
}
