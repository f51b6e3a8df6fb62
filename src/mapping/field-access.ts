/** The CRM properties a mapping writes and those it only reads, as a CRM's field-level security needs them. */
import type { MappingDocument } from './format.js';

export interface FieldAccess {
  written: string[];
  /** Match keys, the market property and discovery's persona: read, never written. */
  read: string[];
}

export function fieldAccessOf(mapping: MappingDocument): FieldAccess {
  const written = new Set<string>();
  for (const item of [
    ...mapping.fields,
    ...(mapping.static ?? []),
    ...(mapping.enriched_at ? [mapping.enriched_at] : []),
  ])
    written.add(item.target);
  if (mapping.discovery?.source) written.add(mapping.discovery.source.target);
  const read = new Set(mapping.match.map((m) => m.property));
  if (mapping.market?.property) read.add(mapping.market.property);
  // A person names the persona; discovery only reads it.
  if (mapping.discovery?.persona) read.add(mapping.discovery.persona.target);
  return { written: [...written], read: [...read].filter((p) => !written.has(p)) };
}
