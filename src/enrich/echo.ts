/**
 * Our own writes come back as change events (HubSpot property changes, Salesforce outbound messages
 * on watched fields). Only a change of identity (a match property) calls for a new lookup; one whose
 * match values are what we wrote, or still resolve to the key that matched, needs nothing at all.
 */
import type { CompiledMapping } from '../mapping/index.js';
import type { EnrichJob } from './jobs.js';
import type { RecordState } from './ports.js';

export interface KnownWrites {
  matchKey?: string | null;
  lastWritten: Readonly<Record<string, string>>;
}

export function isOwnChange(changes: Readonly<Record<string, string | null>>, mapping: CompiledMapping, known: KnownWrites | undefined): boolean {
  if (!known) return false;
  const matchProperties = new Set(mapping.document.match.map((m) => m.property));
  return Object.entries(changes).every(([property, value]) => {
    if (!matchProperties.has(property) || known.lastWritten[property] === value) return true;
    return !!known.matchKey && mapping.matchKeys({ [property]: value }).some((k) => `${k.by}:${k.value}` === known.matchKey);
  });
}

/** How long after we made a record its creation event may still arrive (HubSpot retries for a day). */
const CREATION_ECHO_MS = 86_400_000;

/**
 * Every job about the record only echoes what we did: a change event carrying what we wrote, or the
 * creation event of a record we created and enriched ourselves (discovery) a short while ago.
 */
export function isEcho(jobs: EnrichJob[], state: RecordState | undefined, mapping: CompiledMapping, now = Date.now()): boolean {
  const enriched = state?.status === 'enriched' ? state : undefined;
  return jobs.every((job) => {
    if (job.data.reason === 'created') return !!enriched?.lastEnrichedAt && now - enriched.lastEnrichedAt.getTime() < CREATION_ECHO_MS && enriched.companyReason?.startsWith('created by discovery') === true;
    return job.data.reason === 'changed' && job.data.changes !== undefined && isOwnChange(job.data.changes, mapping, enriched);
  });
}
