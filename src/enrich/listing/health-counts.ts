/**
 * What a data-health scan counts of one page of CRM records, added to the counts so far. Only numbers are
 * kept: a page's records are dropped once counted, and duplicate company domains are counted by the store
 * (`seenDomains`), so a scan of any size runs in the memory of one page.
 *
 * Per mapped property: `filled` (a non-empty value), `fillable` (empty, and the record has a match key the
 * partner would be asked with) and `credits` (of those, the records whose lookup could bring something new
 * for the property and that the lookup cache does not answer: fill-need.ts). A record enriched lately whose
 * answer held nothing for the property is fillable but costs no credit here: asking again cannot fill it.
 * The partner charges per lookup, not per property, so the object's `credits` counts each record once,
 * however many of its properties would cost one.
 */
import { z } from 'zod';
import { domainOf } from '../../core/domain.js';
import type { CrmRecord } from '../../core/connector.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import { couldFill, isEnriched, lookupCosts, type CachedAnswers, type StateView } from './fill-need.js';
import { isFilled } from './segment.js';

export const PropertyHealth = z.object({
  property: z.string(),
  filled: z.number().int(),
  fillable: z.number().int(),
  credits: z.number().int(),
});
export type PropertyHealth = z.infer<typeof PropertyHealth>;

export const HealthCounts = z.object({
  /** Every record of the object listed so far. */
  records: z.number().int(),
  properties: z.array(PropertyHealth),
  /** Records with a gap a lookup could fill and that the lookup cache does not answer: at most this many credits. */
  credits: z.number().int(),
  /** Records crm-enrich never applied partner data to (none tried, or tried without a match or a key). */
  neverEnriched: z.number().int(),
  /** Records enriched longer ago than the refresh interval. */
  stale: z.number().int(),
  /** Records without any value the partner could be asked with. */
  noMatchKey: z.number().int(),
  /** Person records whose e-mail address is at a free-mail provider (it names no employer). */
  freeMail: z.number().int(),
  /** Person records linked with companies that have none; null for objects not linked with companies. */
  noCompany: z.number().int().nullable(),
  /** Company records whose domain an earlier record of the scan has already; null for person objects. */
  duplicateDomains: z.number().int().nullable(),
});
export type HealthCounts = z.infer<typeof HealthCounts>;

export interface PageCountDeps {
  /** crm-enrich's state of these records (absent: never enriched). */
  states(recordIds: string[]): Promise<Map<string, StateView>>;
  cached: CachedAnswers;
  /** Adds company domains to the scan's; how many of them it had seen before. */
  seenDomains(domains: string[]): Promise<number>;
  freeMail: { has(domain: string): boolean };
  /** Enriched before this time: stale. */
  staleBefore: Date;
  /** The property naming a person's company, when the object is linked with companies. */
  linkProperty?: string;
}

export function emptyCounts(mapping: CompiledMapping, linked: boolean): HealthCounts {
  return {
    records: 0,
    properties: mappedProperties(mapping).map((property) => ({ property, filled: 0, fillable: 0, credits: 0 })),
    credits: 0,
    neverEnriched: 0,
    stale: 0,
    noMatchKey: 0,
    freeMail: 0,
    noCompany: mapping.source === 'person' && linked ? 0 : null,
    duplicateDomains: mapping.source === 'company' ? 0 : null,
  };
}

/** The properties the mapping writes, in its order. */
export function mappedProperties(mapping: CompiledMapping): string[] {
  return Object.keys(mapping.rules);
}

const PERSON_EMAIL = new Set(['work_email', 'personal_email']);
const COMPANY_DOMAIN = new Set(['fqdn', 'website']);

export async function countPage(
  deps: PageCountDeps,
  mapping: CompiledMapping,
  records: readonly CrmRecord[],
  before: HealthCounts,
): Promise<HealthCounts> {
  const counts: HealthCounts = { ...before, properties: before.properties.map((p) => ({ ...p })) };
  counts.records += records.length;
  const states = await deps.states(records.map((r) => r.id));
  const staleBefore = deps.staleBefore.getTime();
  for (const r of records) {
    const state = states.get(r.id);
    if (!isEnriched(state)) counts.neverEnriched++;
    else if (new Date(state!.lastEnrichedAt!).getTime() < staleBefore) counts.stale++;
  }

  const keysOf = records.map((r) => mapping.matchKeys(r.properties));
  const costs = await lookupCosts(deps.cached, mapping, records);
  const domains: string[] = [];
  records.forEach((record, i) => {
    const keys = keysOf[i]!;
    const state = states.get(record.id);
    if (keys.length === 0) counts.noMatchKey++;
    let costsCredit = false;
    for (const p of counts.properties) {
      if (isFilled(record.properties[p.property])) {
        p.filled++;
        continue;
      }
      if (keys.length === 0) continue;
      p.fillable++;
      if (costs[i] && couldFill(state, p.property, deps.staleBefore)) {
        p.credits++;
        costsCredit = true;
      }
    }
    if (costsCredit) counts.credits++;

    if (mapping.source === 'person') {
      const email = keys.find((k) => PERSON_EMAIL.has(k.by))?.value;
      const at = email?.lastIndexOf('@') ?? -1;
      const domain = email && at > 0 ? domainOf(email.slice(at + 1)) : undefined;
      if (domain && deps.freeMail.has(domain)) counts.freeMail++;
      if (counts.noCompany !== null && deps.linkProperty && !isFilled(record.properties[deps.linkProperty]))
        counts.noCompany++;
    } else {
      const raw = keys.find((k) => COMPANY_DOMAIN.has(k.by))?.value;
      const domain = raw ? domainOf(raw) : undefined;
      if (domain) domains.push(domain);
    }
  });
  if (counts.duplicateDomains !== null && domains.length) counts.duplicateDomains += await deps.seenDomains(domains);
  return counts;
}
