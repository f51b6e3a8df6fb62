/**
 * The two questions a gap in a record raises, answered once for the data-health report, the fill's cost
 * preview and the fill itself, so the three agree: would asking the partner bring something new for this
 * property, and would the ask cost a credit?
 */
import type { CrmRecord } from '../../core/connector.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import { cacheKeyOf } from '../partner-lookups.js';
import type { CacheKey, PipelineState } from '../ports.js';
import { isFilled } from './segment.js';

export type StateView = Pick<PipelineState, 'lastEnrichedAt' | 'partnerId' | 'lastWritten'>;

/** For each key in order: true for a cached hit, false for a cached miss, undefined when not cached. */
export type CachedAnswers = (keys: CacheKey[]) => Promise<(boolean | undefined)[]>;

export const isEnriched = (state: StateView | undefined): boolean => !!state?.partnerId && !!state.lastEnrichedAt;

/**
 * Whether a lookup could fill `property`: the record was never enriched, or was enriched before
 * `staleBefore`, or the answer it was enriched with held a value for it (we wrote one; it is empty now).
 * A record enriched lately whose answer had nothing for the property gets the same answer again.
 */
export function couldFill(state: StateView | undefined, property: string, staleBefore: Date): boolean {
  if (!state || !isEnriched(state)) return true;
  if (new Date(state.lastEnrichedAt!).getTime() < staleBefore.getTime()) return true;
  return isFilled(state.lastWritten[property]);
}

/**
 * For each record, whether looking it up would cost a credit: every key of the page in one cache read. A
 * lookup tries the keys in order until one is found: no credit when a cached hit comes before any key the
 * cache does not know, and none when every key is a cached miss (nor when the record has no key).
 */
export async function lookupCosts(
  cached: CachedAnswers,
  mapping: CompiledMapping,
  records: readonly CrmRecord[],
): Promise<boolean[]> {
  const keysOf = records.map((r) => mapping.matchKeys(r.properties));
  const asked: CacheKey[] = [];
  const firstAt: number[] = [];
  records.forEach((record, i) => {
    firstAt[i] = asked.length;
    const market = mapping.market(record.properties);
    for (const k of keysOf[i]!) asked.push(cacheKeyOf(mapping.source, k, market));
  });
  const answers = asked.length ? await cached(asked) : [];
  return records.map((_, i) => {
    for (let k = 0; k < keysOf[i]!.length; k++) {
      const answer = answers[firstAt[i]! + k];
      if (answer === true) return false;
      if (answer === undefined) return true;
    }
    return false;
  });
}
