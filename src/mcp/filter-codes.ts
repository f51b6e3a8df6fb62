/**
 * Search filter codes checked against the partner's own catalogue (GET /filter-options, not charged
 * and cached) before a search spends a credit: every unknown filter or code is named at once, with
 * where to find the right ones. Paged filters (industries, locations) are looked up by the code itself.
 */
import type { FilterOptionsQuery, PartnerClient } from '../partner/client.js';
import type { FilterOption } from '../partner/schemas.js';
import { ToolRefusal } from './tool-call.js';

type Catalogue = Pick<PartnerClient, 'filterOptions'>;

const RANGE = /^range:\d+-\d*$/;
const TEXT = /^contains:\S/;

export async function checkFilterCodes(
  partner: Catalogue,
  filters: Record<string, string[]>,
  endpoint = 'people_search',
): Promise<void> {
  const ids = Object.keys(filters);
  if (ids.length === 0) return;
  const { filters: catalogue } = await partner.filterOptions({}, { priority: 'interactive' });
  const usable = catalogue.filter((f) => (f.endpoints as string[]).includes(endpoint));
  const problems: string[] = [];
  for (const id of ids) {
    const def = usable.find((f) => f.identifier === id);
    if (!def) {
      problems.push(
        `filters.${id}: not a filter of the people search; use one of ${usable.map((f) => f.identifier).join(', ')}`,
      );
      continue;
    }
    for (const code of filters[id]!) {
      if (!(await knownCode(partner, def, code)))
        problems.push(`filters.${id}: "${code}" is not one of its codes (${def.accepts}; filter_options lists them)`);
    }
  }
  if (problems.length) throw new ToolRefusal(problems.join('; '));
}

async function knownCode(partner: Catalogue, def: FilterOption, code: string): Promise<boolean> {
  if (def.kind === 'text') return TEXT.test(code);
  if (def.values?.some((v) => v.code === code)) return true;
  if (def.kind === 'list_or_range' && RANGE.test(code)) return true;
  if (!def.page) return false;
  const search = code.slice(0, 100);
  if (await listed(partner, { identifiers: [def.identifier], search }, code)) return true;
  if (def.identifier !== 'industry') return false;
  // Second-level industries are listed only under their top-level code.
  const { filters } = await partner.filterOptions({ identifiers: ['industry'] }, { priority: 'interactive' });
  for (const top of filters[0]?.values ?? []) {
    if (await listed(partner, { identifiers: ['industry'], levelOne: top.code, search }, code)) return true;
  }
  return false;
}

async function listed(partner: Catalogue, query: FilterOptionsQuery, code: string): Promise<boolean> {
  const { filters } = await partner.filterOptions(query, { priority: 'interactive' });
  return filters.some((f) => f.values?.some((v) => v.code === code));
}
