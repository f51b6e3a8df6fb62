/**
 * Our own writes come back as change events (HubSpot property changes, Salesforce outbound messages
 * on watched fields). Only a change of identity (a match property) calls for a new lookup; one whose
 * match values are what we wrote, or still resolve to the key that matched, needs nothing at all.
 */
import type { CompiledMapping } from '../../mapping/index.js';

export interface KnownWrites {
  matchKey?: string | null;
  lastWritten: Readonly<Record<string, string>>;
}

export function isOwnChange(
  changes: Readonly<Record<string, string | null>>,
  mapping: CompiledMapping,
  known: KnownWrites | undefined,
): boolean {
  if (!known) return false;
  const matchProperties = new Set(mapping.document.match.map((m) => m.property));
  return Object.entries(changes).every(([property, value]) => {
    if (!matchProperties.has(property) || known.lastWritten[property] === value) return true;
    return (
      !!known.matchKey && mapping.matchKeys({ [property]: value }).some((k) => `${k.by}:${k.value}` === known.matchKey)
    );
  });
}
