/**
 * Whether the mappings fill the properties a CRM portal requires. From API version 2026-09 HubSpot
 * refuses every create and update that leaves one of a portal's required properties empty, so a
 * property the mapping never fills fails each company the service creates for an employer, each
 * contact discovery creates, and each update of a record that lacks it. HubSpot's properties API does
 * not say which properties a portal requires, so they are named by whoever runs the check.
 */
import type { MappingDocument } from './format.js';

export interface RequiredWarning {
  file: string;
  crm: string;
  object: string;
  property: string;
  message: string;
}

/** Properties the service sets on a record it creates besides the mapping's fields (companies.ts: domain and name). */
const ALWAYS_SET: Record<string, readonly string[]> = { 'hubspot/company': ['domain', 'name'] };

/** What a mapping writes: its field targets, its match properties, and discovery's source tag. */
export function filledBy(document: MappingDocument): Set<string> {
  return new Set([
    ...document.fields.map((f) => f.target),
    ...document.match.map((m) => m.property),
    ...(document.discovery?.source ? [document.discovery.source.target] : []),
    ...(ALWAYS_SET[`${document.crm}/${document.object}`] ?? []),
  ]);
}

/** `required`: property names by `<crm>/<object>`. One warning per required property a mapping leaves empty. */
export function unfilledRequired(
  mappings: readonly { file: string; document: MappingDocument }[],
  required: ReadonlyMap<string, readonly string[]>,
): RequiredWarning[] {
  const warnings: RequiredWarning[] = [];
  for (const { file, document } of mappings) {
    const filled = filledBy(document);
    for (const property of required.get(`${document.crm}/${document.object}`) ?? []) {
      if (filled.has(property)) continue;
      warnings.push({
        file,
        crm: document.crm,
        object: document.object,
        property,
        message:
          `the portal requires ${property} on ${document.object} records, but this mapping does not fill it: ` +
          `${document.crm} refuses the records the service creates (and updates of records without it) until ` +
          'it is added to fields',
      });
    }
  }
  return warnings;
}
