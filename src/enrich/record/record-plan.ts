/**
 * One CRM record through the mapping: match keys and market from its values, the partner record,
 * then the write plan. Pure apart from the lookup; the lane does the I/O around it.
 */
import { createHash } from 'node:crypto';
import type { CrmRecord } from '../../core/connector.js';
import type { Priority } from '../../core/limiter.js';
import type { Market } from '../../partner/schemas.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import { type Plan } from '../../mapping/planner.js';
import { planValues } from '../../mapping/plan-values.js';
import type { LookupHit, PartnerLookups } from '../partner-lookups.js';
import type { PipelineState } from '../ports.js';

export type RecordPlan =
  | { kind: 'no_key'; reason: string }
  | { kind: 'no_match'; market: string; tried: string[] }
  | { kind: 'planned'; market: string; hit: LookupHit; dataHash: string; plan: Plan };

export async function planRecord(
  record: CrmRecord,
  mapping: CompiledMapping,
  lookups: PartnerLookups,
  state: PipelineState | undefined,
  priority: Priority,
  now: Date,
  marketHint?: Market,
): Promise<RecordPlan> {
  const keys = mapping.matchKeys(record.properties);
  if (keys.length === 0) {
    return {
      kind: 'no_key',
      reason:
        'none of the match properties ' +
        `(${[...new Set(mapping.document.match.map((m) => m.property))].join(', ')}) has a value`,
    };
  }
  const market = mapping.market(record.properties, marketHint);
  const hit = await lookups.find(mapping.source, keys, market, priority);
  if (!hit) return { kind: 'no_match', market, tried: keys.map((k) => k.by) };
  const result = planValues(mapping, record.properties, hit.data, state?.lastWritten ?? {}, now);
  return { kind: 'planned', market, hit, dataHash: appliedHash(hit.data, mapping), plan: result };
}

/**
 * What was applied: the partner data and the mapping that turned it into values. The same hash on a
 * refresh means the same values, so nothing needs reading or writing.
 */
export function appliedHash(data: Record<string, unknown>, mapping: CompiledMapping): string {
  return hashOf({ data, mapping: mapping.document });
}

export function hashOf(data: unknown): string {
  return createHash('sha256').update(stableJson(data)).digest('hex').slice(0, 32);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
