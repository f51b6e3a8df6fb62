/**
 * Discovery: the people at a target company who fit a persona, found through the partner's people
 * search and added to the CRM with the care enrichment takes. A preview says what a run would do for
 * each candidate and what it would cost; a run claims each person in Postgres (so no run, on any
 * instance, creates anyone twice), spends one credit per new person through the same cache, budget
 * and limiter as enrichment, writes them through the person mapping, links them with the company, and
 * leaves state and audit rows like an enrichment does. The CRM is checked first (partner id, profile,
 * then e-mail after the lookup), so no credit goes on a person who is already there.
 */
import type { Priority } from '../core/limiter.js';
import { catalogueOf, planCandidates, searchCandidates } from './candidates.js';
import { checkCodes, describeFilters, PersonaFilters, type CatalogueCodes } from './persona-filters.js';
import { DISCOVERY_CREATED_COUNTER, runDiscovery } from './run.js';
import { DiscoveryError, missingProperties, resolveTarget, type DiscoveryTarget } from './target.js';
import type {
  DiscoveryOptions,
  DiscoveryPreview,
  DiscoveryProgress,
  DiscoveryRequest,
  DiscoveryRunResult,
} from './types.js';

export type { Candidate, DiscoveryPreview, DiscoveryProgress, DiscoveryRunResult } from './types.js';

export class Discovery {
  /** Connections and objects whose CRM has discovery's properties (checked once, they are not removed in use). */
  private readonly provisioned = new Set<string>();

  constructor(private readonly options: DiscoveryOptions) {}

  /** People a run adds at most when the request gives no limit. */
  get defaultLimit(): number {
    return this.options.defaultLimit;
  }

  /** The codes the coded persona filters take, from the partner's cached catalogue. */
  async catalogue(): Promise<CatalogueCodes> {
    return catalogueOf(this.options.partner);
  }

  /** Checks a persona's filters (shape and codes); throws DiscoveryError naming the field. */
  async checkFilters(input: unknown, field = 'filters'): Promise<PersonaFilters> {
    const parsed = PersonaFilters.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const path = [field, ...issue.path].join('.');
      const message =
        issue.code === 'unrecognized_keys'
          ? `${field}: unknown filter ${issue.keys.map((k) => `"${k}"`).join(', ')}; persona filters are ` +
            'seniority, department and position'
          : `${path}: ${issue.message}`;
      throw new DiscoveryError(
        400,
        issue.code === 'unrecognized_keys' ? 'unknown_filter' : 'invalid_request',
        message,
        field,
      );
    }
    try {
      checkCodes(parsed.data, await this.catalogue());
    } catch (error) {
      if (error instanceof Error && error.name === 'FilterValueError')
        throw new DiscoveryError(
          400,
          'unknown_filter_value',
          error.message,
          (error as { field?: string }).field ?? field,
        );
      throw error;
    }
    return parsed.data;
  }

  async preview(request: DiscoveryRequest, priority: Priority = 'interactive'): Promise<DiscoveryPreview> {
    return (await this.previewWith(request, priority)).preview;
  }

  private async previewWith(
    request: DiscoveryRequest,
    priority: Priority,
  ): Promise<{ preview: DiscoveryPreview; target: DiscoveryTarget }> {
    const { target, filters, persona, limit } = await this.prepare(request, priority);
    const found = await searchCandidates(this.options, target, filters, limit, priority);
    // Records created today and those that runs under way hold, on every instance.
    const dailyRemaining = Math.max(
      0,
      this.options.dailyMax - (await this.options.counters.get(DISCOVERY_CREATED_COUNTER)),
    );
    const planned = await planCandidates(
      this.options,
      target,
      found,
      { limit, dailyRemaining, skipDoNotDisturb: request.skipDoNotDisturb === true },
      priority,
    );
    // The search looks further than the limit, to fill it past people it skips; those the limit leaves out
    // are counted, not listed, so a preview shows what a run of this limit looks at.
    const candidates = planned.filter((c) => c.code !== 'over_limit');
    const beyondLimit = planned.length - candidates.length;
    const counts = { create: 0, link: 0, skip: 0 };
    for (const c of candidates) counts[c.action]++;
    const preview = {
      crm: target.connector.crm,
      company: target.company,
      persona,
      filters,
      description: describeFilters(filters, await this.catalogue()),
      limit,
      beyondLimit,
      dailyRemaining,
      candidates,
      credits: candidates.filter((c) => c.credit).length,
      counts,
    };
    return { preview, target };
  }

  async run(
    request: DiscoveryRequest,
    onProgress?: (p: DiscoveryProgress) => void,
    priority: Priority = 'interactive',
  ): Promise<DiscoveryRunResult> {
    const { preview, target } = await this.previewWith(request, priority);
    return runDiscovery(this.options, preview, target, onProgress, priority);
  }

  private async prepare(request: DiscoveryRequest, priority: Priority) {
    if (request.filters && request.persona)
      throw new DiscoveryError(400, 'invalid_request', 'persona: give a persona name or filters, not both', 'persona');
    let filtersInput: unknown = request.filters;
    let persona: string | null = null;
    if (request.persona !== undefined) {
      const saved = await this.options.store.persona(request.persona);
      if (!saved)
        throw new DiscoveryError(
          404,
          'unknown_persona',
          `persona: no saved persona is called "${request.persona}"`,
          'persona',
        );
      filtersInput = saved.filters;
      persona = saved.name;
    }
    if (filtersInput === undefined)
      throw new DiscoveryError(
        400,
        'invalid_request',
        'filters: give filters (seniority, department, position) or a saved persona',
        'filters',
      );
    const filters = await this.checkFilters(filtersInput);
    const limit = request.limit ?? this.options.defaultLimit;
    if (!Number.isInteger(limit) || limit < 1 || limit > this.options.runMax) {
      throw new DiscoveryError(
        400,
        'invalid_request',
        `limit: must be a whole number from 1 to ${this.options.runMax} (DISCOVERY_RUN_LIMIT)`,
        'limit',
      );
    }
    const target = await resolveTarget(this.options.connectors, this.options.mappings, request.crm, request.companyId, {
      priority,
    });
    const key = `${target.connector.connection}:${target.person.objectType}`;
    const missing = this.provisioned.has(key) ? [] : await missingProperties(target);
    if (missing.length === 0) this.provisioned.add(key);
    if (missing.length) {
      throw new DiscoveryError(
        409,
        'discovery_not_provisioned',
        `crm: ${request.crm} lacks the propert${missing.length === 1 ? 'y' : 'ies'} discovery writes ` +
          `(${missing.join(', ')}); run \`crm-enrich mappings provision\``,
        'crm',
      );
    }
    return { target, filters, persona, limit };
  }
}
