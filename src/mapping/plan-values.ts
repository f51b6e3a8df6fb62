/**
 * The one way a record is planned: its current values, the partner record through the mapping, the
 * values crm-enrich last wrote, the rules, the CRM's length limit and the enriched-at stamp. The
 * enrichment lane, `mappings preview` and the admin preview all plan through here, so a preview shows
 * exactly what a run would write.
 */
import type { CompiledMapping, CrmValues } from './compile.js';
import { plan, type Plan } from './planner.js';

export function planValues(
  mapping: CompiledMapping,
  current: CrmValues,
  partner: Record<string, unknown> | undefined,
  lastWritten: Readonly<Record<string, string | null | undefined>>,
  now: Date,
): Plan {
  return plan({
    current,
    mapped: partner ? mapping.map(partner) : {},
    lastWritten,
    rules: mapping.rules,
    ...(mapping.maxValueLength ? { maxValueLength: mapping.maxValueLength } : {}),
    ...(mapping.stampProperty ? { stamp: { property: mapping.stampProperty, value: mapping.stampValue(now) } } : {}),
  });
}
