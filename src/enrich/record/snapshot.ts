/** When the values a listing returned may stand in for reading the record again. */
import type { CrmRecord } from '../../core/connector.js';
import type { EnrichJob } from '../jobs.js';
import type { PipelineState } from '../ports.js';

const SNAPSHOT_MAX_AGE_MS = 60_000;

/**
 * The listed values of a record when every job about it carries a snapshot young enough to trust.
 * Not after an earlier attempt or a holder that died (either may have written after the listing), nor
 * when we settled the record since the listing: planning on values older than our own write writes it again.
 */
export function freshSnapshot(
  jobs: EnrichJob[],
  state: PipelineState | undefined,
  read: readonly string[],
): CrmRecord | undefined {
  if (jobs.some((j) => j.retryCount > 0 || (j.data.reclaims ?? 0) > 0)) return undefined;
  const snapshots = jobs.map((j) => j.data.snapshot);
  if (snapshots.some((s) => !s || Date.now() - Date.parse(s.at) > SNAPSHOT_MAX_AGE_MS)) return undefined;
  const newest = snapshots.reduce((a, b) => (Date.parse(a!.at) >= Date.parse(b!.at) ? a : b))!;
  if (state?.lastEnrichedAt && state.lastEnrichedAt.getTime() >= Date.parse(newest.at)) return undefined;
  // A listing made under another mapping may lack properties this one plans with.
  if (!read.every((p) => newest.read.includes(p))) return undefined;
  return { id: jobs[0]!.data.recordId, properties: newest.properties };
}
