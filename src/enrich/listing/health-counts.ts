/**
 * What a data-health scan counts of one page of CRM records, added to the counts so far. Only numbers are
 * kept: a page's records are dropped once counted, and duplicate company domains are counted by the store
 * (`seenDomains`), so a scan of any size runs in the memory of one page.
 *
 * Per mapped property: `filled` (a non-empty value), `fillable` (empty, and the record has a match key the
 * partner would be asked with) and `credits` (of those, the records the lookup cache does not answer: a
 * cached answer, found or not found, costs nothing; anything else is one lookup). The partner charges per
 * lookup, not per property, so the object's `credits` counts each record once, however many of its
 * properties are empty.
 */
import { z } from 'zod';
import { domainOf } from '../../core/domain.js';
import type { CrmRecord } from '../../core/connector.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import { cacheKeyOf } from '../partner-lookups.js';
import type { CacheKey, PipelineState } from '../ports.js';

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
  /** Records with a mapped property empty that the lookup cache does not answer: at most this many credits. */
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
  states(recordIds: string[]): Promise<Map<string, Pick<PipelineState, 'lastEnrichedAt' | 'partnerId'>>>;
  /** For each key in order: true for a cached hit, false for a cached miss, undefined when not cached. */
  cached(keys: CacheKey[]): Promise<(boolean | undefined)[]>;
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

const isFilled = (value: string | null | undefined): boolean => typeof value === 'string' && value.trim() !== '';

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
  for (const r of records) {
    const state = states.get(r.id);
    if (!state?.partnerId || !state.lastEnrichedAt) counts.neverEnriched++;
    else if (new Date(state.lastEnrichedAt).getTime() < deps.staleBefore.getTime()) counts.stale++;
  }

  // Which records a lookup would answer from the cache: every key of the page in one read.
  const keysOf = records.map((r) => mapping.matchKeys(r.properties));
  const asked: CacheKey[] = [];
  const firstAt: number[] = [];
  records.forEach((record, i) => {
    firstAt[i] = asked.length;
    const market = mapping.market(record.properties);
    for (const k of keysOf[i]!) asked.push(cacheKeyOf(mapping.source, k, market));
  });
  const answers = asked.length ? await deps.cached(asked) : [];

  const domains: string[] = [];
  records.forEach((record, i) => {
    const keys = keysOf[i]!;
    if (keys.length === 0) counts.noMatchKey++;
    // A lookup tries the keys in order until one is found: no credit when a cached hit comes before any
    // key the cache does not know, and none when every key is a cached miss.
    let needsCredit = false;
    for (let k = 0; k < keys.length; k++) {
      const answer = answers[firstAt[i]! + k];
      if (answer === true) break;
      if (answer === undefined) {
        needsCredit = true;
        break;
      }
    }
    let anyEmpty = false;
    for (const p of counts.properties) {
      if (isFilled(record.properties[p.property])) {
        p.filled++;
        continue;
      }
      anyEmpty = true;
      if (keys.length === 0) continue;
      p.fillable++;
      if (needsCredit) p.credits++;
    }
    if (anyEmpty && needsCredit) counts.credits++;

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
