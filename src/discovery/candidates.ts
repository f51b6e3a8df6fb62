/**
 * The candidates of a preview: the people the persona's searches find at the company, each with what a
 * run would do (create, link or skip), why, and whether it would spend a credit. Nothing here writes.
 */
import type { Priority } from '../core/limiter.js';
import type { PersonSearchResult } from '../partner/schemas.js';
import type { CatalogueCodes } from './persona-filters.js';
import { searchCombinations, type PersonaFilters } from './persona-filters.js';
import { findExisting, profileHandle, type DiscoveryTarget } from './target.js';
import type { Candidate, CandidateAction, DiscoveryOptions, DiscoveryPartner } from './types.js';

/** Results per people search page. */
const PAGE_SIZE = 25;
/** Candidates one preview or run looks at, whatever the limit. */
const MAX_CANDIDATES = 200;

/** The codes the coded persona filters take, from the partner's cached catalogue. */
export async function catalogueOf(partner: DiscoveryPartner): Promise<CatalogueCodes> {
  const { filters } = await partner.filterOptions(
    { identifiers: ['seniority', 'department'] },
    { priority: 'interactive' },
  );
  return new Map(filters.map((f) => [f.identifier, new Map((f.values ?? []).map((v) => [v.code, v.label]))]));
}

/** The people the persona finds at the company, once each, in the order the searches give them. */
export async function searchCandidates(
  options: DiscoveryOptions,
  target: DiscoveryTarget,
  filters: PersonaFilters,
  limit: number,
  priority: Priority,
): Promise<{ result: PersonSearchResult; combo: { seniority?: string; department?: string } }[]> {
  const max = Math.min(MAX_CANDIDATES, Math.max(limit * 3, 50));
  const seen = new Map<string, { result: PersonSearchResult; combo: { seniority?: string; department?: string } }>();
  for (const combo of searchCombinations(filters)) {
    for (let from = 0; seen.size < max; from += PAGE_SIZE) {
      const page = await options.partner.searchPeople(
        {
          companyId: target.company.partnerId,
          selectedCountry: target.company.market,
          ...combo,
          from: String(from),
          size: String(PAGE_SIZE),
        },
        { priority },
      );
      for (const result of page)
        if (result.person_id && !seen.has(result.person_id)) seen.set(result.person_id, { result, combo });
      if (page.length < PAGE_SIZE) break;
    }
    if (seen.size >= max) break;
  }
  return [...seen.values()].slice(0, max);
}

export async function planCandidates(
  parts: DiscoveryOptions,
  target: DiscoveryTarget,
  found: { result: PersonSearchResult; combo: { seniority?: string; department?: string } }[],
  options: { limit: number; dailyRemaining: number; skipDoNotDisturb: boolean },
  priority: Priority,
): Promise<Candidate[]> {
  const connection = target.connector.connection;
  const ids = found.map((f) => f.result.person_id!);
  const done = await parts.store.done(connection, ids);
  const existing = await findExisting(
    target,
    found
      .filter((f) => !done.has(f.result.person_id!))
      .map((f) => ({ personId: f.result.person_id!, handle: profileHandle(f.result.linkedin) })),
    { priority },
  );
  const catalogue = await catalogueOf(parts.partner);
  let acting = 0;
  let creating = 0;
  const out: Candidate[] = [];
  for (const { result, combo } of found) {
    const personId = result.person_id!;
    const base = {
      personId,
      position: result.position ?? null,
      seniority: combo.seniority ? (catalogue.get('seniority')?.get(combo.seniority) ?? combo.seniority) : null,
      department: combo.department ? (catalogue.get('department')?.get(combo.department) ?? combo.department) : null,
      profile: result.linkedin ?? null,
      hasEmail: result.has_email === true,
      hasPhone: result.has_phone === true,
      hasMobile: result.has_mobile === true,
      hasDndPhone: result.has_dnd_phone === true,
      recordId: null as string | null,
      credit: false,
    };
    const add = (action: CandidateAction, code: string, reason: string, extra: Partial<Candidate> = {}) =>
      out.push({ ...base, action, code, reason, ...extra });
    const previous = done.get(personId);
    const match = existing.get(personId);
    if (previous) {
      const what =
        previous.action === 'created' || previous.action === 'linked'
          ? previous.action
          : `looked at (${previous.action})`;
      const record = previous.recordId ? ` (record ${previous.recordId})` : '';
      add('skip', 'already_discovered', `discovery already ${what} this person${record}`, {
        recordId: previous.recordId,
      });
    } else if (match) {
      const link = match.record.properties[target.person.linkProperty];
      if (link === target.company.id)
        add(
          'skip',
          'already_contact',
          `already a contact at this company (record ${match.record.id}, matched by ${match.by})`,
          { recordId: match.record.id },
        );
      else if (link && target.connector.companyLinkInWrite) {
        add(
          'skip',
          'linked_elsewhere',
          `already in the CRM as record ${match.record.id} (matched by ${match.by}), linked with another ` +
            `${target.companyObject} (${link}); a person's link is never replaced`,
          { recordId: match.record.id },
        );
      } else if (acting >= options.limit)
        add('skip', 'over_limit', `over this run's limit of ${options.limit}`, { recordId: match.record.id });
      else {
        acting++;
        add(
          'link',
          'link',
          `already in the CRM as record ${match.record.id} (matched by ${match.by}); will be linked with the ` +
            'company, no credit spent',
          { recordId: match.record.id },
        );
      }
    } else if (!base.hasEmail) add('skip', 'no_email', 'the partner holds no e-mail address for this person');
    else if (options.skipDoNotDisturb && base.hasDndPhone)
      add(
        'skip',
        'do_not_disturb',
        "the person's phone is on a do-not-disturb register, and this run leaves such people out",
      );
    else if (acting >= options.limit) add('skip', 'over_limit', `over this run's limit of ${options.limit}`);
    else if (creating >= options.dailyRemaining)
      add(
        'skip',
        'over_daily_limit',
        `over today's discovery limit (${options.dailyRemaining} more record(s) may be created today)`,
      );
    else {
      acting++;
      creating++;
      const cached = await parts.cache.get({ kind: 'person', by: 'id', value: personId, market: '*' });
      add(
        'create',
        'create',
        cached
          ? 'new to the CRM; the profile is in the lookup cache, so no credit is spent'
          : 'new to the CRM; one lookup (one credit) for the profile, then created and linked with the company',
        { credit: !cached },
      );
    }
  }
  return out;
}
