import type { CompiledMapping } from '../../mapping/compile.js';
import type { Market } from '../../partner/schemas.js';
import type { EnrichJob } from '../jobs.js';
import type { PartnerLookups } from '../partner-lookups.js';
import type { PipelineState } from '../ports.js';
import { appliedHash } from './record-plan.js';

/**
 * A refresh first asks the partner by the key that matched last time: when the data and the
 * mapping are what was applied before, the record needs no CRM read and no write.
 */
export async function unchangedRefreshes(
  byRecord: Map<string, EnrichJob[]>,
  states: Map<string, PipelineState>,
  mapping: CompiledMapping,
  lookups: PartnerLookups,
): Promise<string[]> {
  const candidates = [...byRecord.entries()].filter(([id, jobs]) => {
    const state = states.get(id);
    return (
      jobs.every((j) => j.data.reason === 'refresh') &&
      state?.status === 'enriched' &&
      state.matchKey &&
      state.dataHash &&
      state.market
    );
  });
  const unchanged = await Promise.all(
    candidates.map(async ([id]) => {
      const state = states.get(id)!;
      const split = state.matchKey!.indexOf(':');
      const key = { by: state.matchKey!.slice(0, split), value: state.matchKey!.slice(split + 1) };
      try {
        const hit = await lookups.find(mapping.source, [key], state.market as Market, 'bulk');
        return hit && appliedHash(hit.data, mapping) === state.dataHash ? id : undefined;
      } catch {
        return undefined; // the full path below meets the same error and settles the job with it
      }
    }),
  );
  return unchanged.filter((id): id is string => id !== undefined);
}
