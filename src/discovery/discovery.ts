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
import type { CompanyLinkResult, CrmRecord } from '../core/connector.js';
import { planValues } from '../mapping/index.js';
import type { PersonSearchResult } from '../partner/schemas.js';
import { BudgetExhaustedError, LOOKUPS_COUNTER, type PartnerLookups } from '../enrich/partner-lookups.js';
import type { AuditEntry, CounterPort, LookupCachePort, RecordState, StatePort } from '../enrich/ports.js';
import { appliedHash } from '../enrich/record-plan.js';
import type { DiscoveryStore } from '../store/discovery.js';
import { logger } from '../logger.js';
import { emailProperty, identityValues } from './identity.js';
import { checkCodes, describeFilters, PersonaFilters, searchCombinations, type CatalogueCodes } from './persona-filters.js';
import { DiscoveryError, findExisting, missingProperties, profileHandle, resolveTarget, type DiscoveryTarget, type MappingSource } from './target.js';
import type { CrmConnector } from '../core/connector.js';

const log = logger('discovery');

/** Results per people search page. */
const PAGE_SIZE = 25;
/** Candidates one preview or run looks at, whatever the limit. */
const MAX_CANDIDATES = 200;
/** An unsettled claim older than this belongs to a run that died; another run may take the person. */
const STALE_CLAIM_MS = 10 * 60_000;

export interface DiscoveryRequest {
  crm: string;
  companyId: string;
  /** Persona filters as given (checked against the catalogue), or a saved persona's name. */
  filters?: unknown;
  persona?: string;
  limit?: number;
  /** Leave out people whose phone is on a do-not-disturb register (off unless set). */
  skipDoNotDisturb?: boolean;
}

export type CandidateAction = 'create' | 'link' | 'skip';

export interface Candidate {
  personId: string;
  position: string | null;
  /** The persona's seniority and department the search that found this person asked for. */
  seniority: string | null;
  department: string | null;
  profile: string | null;
  hasEmail: boolean;
  hasPhone: boolean;
  hasMobile: boolean;
  hasDndPhone: boolean;
  action: CandidateAction;
  /** Skip reasons: already_discovered, already_contact, linked_elsewhere, no_email, do_not_disturb, over_limit, over_daily_limit. */
  code: string;
  reason: string;
  /** The CRM record, for link and skip actions that found one. */
  recordId: string | null;
  /** Whether acting on this person spends a credit (a lookup not in the cache). */
  credit: boolean;
}

export interface DiscoveryPreview {
  crm: string;
  company: { id: string; name: string | null; partnerId: string; market: string };
  persona: string | null;
  filters: PersonaFilters;
  description: string;
  limit: number;
  dailyRemaining: number;
  candidates: Candidate[];
  credits: number;
  counts: Record<CandidateAction, number>;
}

export interface DiscoveryOutcome {
  personId: string;
  action: 'created' | 'linked' | 'skipped';
  code: string;
  reason: string;
  recordId: string | null;
}

export interface DiscoveryRunResult {
  crm: string;
  company: DiscoveryPreview['company'];
  created: number;
  linked: number;
  skipped: number;
  credits: number;
  /** Set when the run stopped at a limit before acting on every candidate. */
  stopped: { reason: 'run_limit' | 'daily_limit' | 'budget' | 'partner_error'; message: string } | null;
  people: DiscoveryOutcome[];
}

export interface DiscoveryProgress {
  total: number;
  done: number;
  created: number;
  linked: number;
  skipped: number;
}

export interface DiscoveryPartner {
  searchPeople(request: Record<string, string>, options: { priority?: Priority }): Promise<PersonSearchResult[]>;
  filterOptions(query: { identifiers?: string[] }, options: { priority?: Priority }): Promise<{ filters: { identifier: string; values?: { code: string; label: string }[] }[] }>;
}

export interface DiscoveryOptions {
  connectors: readonly CrmConnector[];
  mappings: MappingSource;
  partner: DiscoveryPartner;
  lookups: PartnerLookups;
  cache: LookupCachePort;
  counters: CounterPort;
  store: DiscoveryStore;
  state: StatePort;
  /** Largest `limit` one run may ask for; the default limit. */
  runMax: number;
  defaultLimit: number;
  /** Records discovery may create per UTC day, across instances. */
  dailyMax: number;
  /** Bulk work stops at this many partner lookups a day (PARTNER_DAILY_LOOKUP_BUDGET); so does discovery. */
  dailyBudget: number;
  refreshAfterDays: number;
  /** This instance, for claims. */
  holder: string;
}

export class Discovery {
  /** Connections and objects whose CRM has discovery's properties (checked once, they are not removed in use). */
  private readonly provisioned = new Set<string>();

  constructor(private readonly options: DiscoveryOptions) {}

  /** The codes the coded persona filters take, from the partner's cached catalogue. */
  async catalogue(): Promise<CatalogueCodes> {
    const { filters } = await this.options.partner.filterOptions({ identifiers: ['seniority', 'department'] }, { priority: 'interactive' });
    return new Map(filters.map((f) => [f.identifier, new Map((f.values ?? []).map((v) => [v.code, v.label]))]));
  }

  /** Checks a persona's filters (shape and codes); throws DiscoveryError naming the field. */
  async checkFilters(input: unknown, field = 'filters'): Promise<PersonaFilters> {
    const parsed = PersonaFilters.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const path = [field, ...issue.path].join('.');
      const message = issue.code === 'unrecognized_keys' ? `${field}: unknown filter ${issue.keys.map((k) => `"${k}"`).join(', ')}; persona filters are seniority, department and position` : `${path}: ${issue.message}`;
      throw new DiscoveryError(400, issue.code === 'unrecognized_keys' ? 'unknown_filter' : 'invalid_request', message, field);
    }
    try {
      checkCodes(parsed.data, await this.catalogue());
    } catch (error) {
      if (error instanceof Error && error.name === 'FilterValueError') throw new DiscoveryError(400, 'unknown_filter_value', error.message, (error as { field?: string }).field ?? field);
      throw error;
    }
    return parsed.data;
  }

  async preview(request: DiscoveryRequest, priority: Priority = 'interactive'): Promise<DiscoveryPreview> {
    return (await this.previewWith(request, priority)).preview;
  }

  private async previewWith(request: DiscoveryRequest, priority: Priority): Promise<{ preview: DiscoveryPreview; target: DiscoveryTarget }> {
    const { target, filters, persona, limit } = await this.prepare(request, priority);
    const found = await this.search(target, filters, limit, priority);
    const dailyRemaining = Math.max(0, this.options.dailyMax - (await this.options.store.createdToday()));
    const candidates = await this.plan(target, found, { limit, dailyRemaining, skipDoNotDisturb: request.skipDoNotDisturb === true }, priority);
    const counts = { create: 0, link: 0, skip: 0 };
    for (const c of candidates) counts[c.action]++;
    const preview = {
      crm: target.connector.kind,
      company: target.company,
      persona,
      filters,
      description: describeFilters(filters, await this.catalogue()),
      limit,
      dailyRemaining,
      candidates,
      credits: candidates.filter((c) => c.credit).length,
      counts,
    };
    return { preview, target };
  }

  async run(request: DiscoveryRequest, onProgress?: (p: DiscoveryProgress) => void, priority: Priority = 'interactive'): Promise<DiscoveryRunResult> {
    const { preview, target } = await this.previewWith(request, priority);
    const acting = preview.candidates.filter((c) => c.action !== 'skip');
    const progress: DiscoveryProgress = { total: acting.length, done: 0, created: 0, linked: 0, skipped: 0 };
    const people: DiscoveryOutcome[] = preview.candidates
      .filter((c) => c.action === 'skip' && c.code !== 'over_limit' && c.code !== 'over_daily_limit')
      .map((c) => ({ personId: c.personId, action: 'skipped', code: c.code, reason: c.reason, recordId: c.recordId }));
    let stopped: DiscoveryRunResult['stopped'] = null;
    const overLimit = preview.candidates.filter((c) => c.code === 'over_limit' || c.code === 'over_daily_limit');
    if (overLimit.length) {
      const daily = overLimit.some((c) => c.code === 'over_daily_limit');
      stopped = daily
        ? { reason: 'daily_limit', message: `stopped at today's discovery limit (DISCOVERY_DAILY_LIMIT ${this.options.dailyMax}); ${overLimit.length} more candidate(s) wait for tomorrow` }
        : { reason: 'run_limit', message: `stopped at this run's limit of ${preview.limit}; ${overLimit.length} more candidate(s) fit the persona` };
    }
    const step = () => {
      progress.done++;
      onProgress?.({ ...progress });
    };
    onProgress?.({ ...progress });

    // People to create: claimed, then looked up one by one (one credit each, unless cached).
    const looked: { candidate: Candidate; person: Record<string, unknown>; identity: Record<string, string> }[] = [];
    const connection = target.connector.connection;
    const skip = (candidate: Candidate, code: string, reason: string, recordId: string | null = null) => {
      people.push({ personId: candidate.personId, action: 'skipped', code, reason, recordId });
      progress.skipped++;
    };
    const claimed: Candidate[] = [];
    for (const candidate of acting.filter((c) => c.action === 'create')) {
      if (stopped && stopped.reason !== 'run_limit' && stopped.reason !== 'daily_limit') break;
      const claim = await this.options.store.claim(connection, candidate.personId, target.person.objectType, target.company.id, this.options.holder, STALE_CLAIM_MS);
      if (claim.kind !== 'mine') {
        skip(candidate, 'already_discovered', claim.kind === 'done' ? `discovery already ${claim.action} this person (record ${claim.recordId ?? 'none'})` : 'another discovery run is adding this person right now', claim.kind === 'done' ? claim.recordId : null);
        step();
        continue;
      }
      claimed.push(candidate);
      const release = () => this.options.store.release(connection, candidate.personId, this.options.holder);
      if (!(await this.bulkBudgetLeft())) {
        await release();
        stopped = { reason: 'budget', message: `stopped at today's partner lookup budget (PARTNER_DAILY_LOOKUP_BUDGET ${this.options.dailyBudget}); the rest can run tomorrow (UTC)` };
        break;
      }
      try {
        const hit = await this.options.lookups.find('person', [{ by: 'id', value: candidate.personId }], target.company.market, priority);
        if (!hit) {
          await this.options.store.settle(connection, candidate.personId, this.options.holder, 'not_found', null, preview.persona);
          skip(candidate, 'not_found', 'the partner found no profile for this person id');
          step();
          continue;
        }
        const identity = identityValues(target.person.mapping, hit.data);
        const emailProp = emailProperty(target.person.mapping);
        if (!emailProp || !identity[emailProp]) {
          await this.options.store.settle(connection, candidate.personId, this.options.holder, 'no_email', null, preview.persona);
          skip(candidate, 'no_email', 'the profile has no e-mail address to create a contact with');
          step();
          continue;
        }
        looked.push({ candidate, person: hit.data, identity });
      } catch (error) {
        await release();
        if (error instanceof BudgetExhaustedError) {
          stopped = { reason: 'budget', message: error.message };
          break;
        }
        log.warn({ err: error, crm: target.connector.kind, company: target.company.id }, 'a discovery lookup failed; the run stops and the rest can run again');
        stopped = { reason: 'partner_error', message: `the partner lookup failed (${(error as Error).message}); nothing was spent on the people left, run again to go on` };
        break;
      }
    }
    for (const c of acting.filter((c) => c.action === 'create' && !claimed.includes(c) && !people.some((p) => p.personId === c.personId))) {
      skip(c, stopped?.reason ?? 'not_run', stopped?.message ?? 'not run');
    }

    // One search for their e-mail addresses: a person the CRM holds under another key is linked, not created twice.
    const emailProp = emailProperty(target.person.mapping)!;
    const links: { candidate: Candidate; record: CrmRecord; by: string }[] = acting
      .filter((c) => c.action === 'link')
      .map((c) => ({ candidate: c, record: { id: c.recordId!, properties: {} }, by: 'partner id or profile' }));
    let toCreate = looked;
    if (looked.length) {
      const held = await target.connector.findRecords!(target.person.objectType, [{ property: emailProp, values: looked.map((l) => l.identity[emailProp]!) }], [emailProp, target.person.linkProperty], { priority });
      const byEmail = new Map(held.map((r) => [(r.properties[emailProp] ?? '').toLowerCase(), r]));
      toCreate = [];
      for (const l of looked) {
        const record = byEmail.get(l.identity[emailProp]!.toLowerCase());
        if (!record) toCreate.push(l);
        else if (record.properties[target.person.linkProperty] === target.company.id) {
          await this.options.store.settle(connection, l.candidate.personId, this.options.holder, 'already_contact', record.id, preview.persona);
          skip(l.candidate, 'already_contact', `already a contact at this company (record ${record.id}, matched by e-mail)`, record.id);
          step();
        } else links.push({ candidate: l.candidate, record, by: 'e-mail' });
      }
    }

    // Create the rest in one batch, through the person mapping, tagged and linked.
    const now = new Date();
    const states: RecordState[] = [];
    const audit: AuditEntry[] = [];
    const why = `discovery at ${target.company.name ?? target.company.id} (${preview.persona ? `persona ${preview.persona}: ` : ''}${preview.description})`;
    if (toCreate.length) {
      const mapping = target.person.mapping;
      const inWrite = target.connector.companyLinkInWrite === true;
      const source = mapping.document.discovery?.source;
      const inputs = toCreate.map((l) => {
        const planned = planValues(mapping, {}, l.person, {}, now);
        const properties = { ...l.identity, ...planned.writes, ...(source ? { [source.target]: source.value } : {}), ...(inWrite ? { [target.person.linkProperty]: target.company.id } : {}) };
        return { l, planned, properties };
      });
      const results = await target.connector.createRecords!(target.person.objectType, inputs.map((i) => i.properties), { priority });
      for (const [i, input] of inputs.entries()) {
        const result = results[i]!;
        const { candidate } = input.l;
        if (result.existingId) {
          links.push({ candidate, record: { id: result.existingId, properties: {} }, by: 'e-mail' });
          continue;
        }
        if (!result.ok) {
          await this.options.store.release(connection, candidate.personId, this.options.holder);
          skip(candidate, 'create_failed', `the CRM refused the new record: ${result.error?.message ?? 'no reason given'}`);
          step();
          continue;
        }
        await this.options.store.settle(connection, candidate.personId, this.options.holder, 'created', result.id, preview.persona);
        const row = { connection, objectType: target.person.objectType, recordId: result.id, jobId: null };
        for (const [property, value] of Object.entries(input.properties)) {
          const decision = input.planned.decisions.find((d) => d.property === property);
          audit.push({ ...row, property, oldValue: null, newValue: value, rule: decision?.rule ?? 'discovery', outcome: 'written', reason: `created by ${why}` });
        }
        states.push({
          ...row,
          partnerId: candidate.personId,
          matchKey: `id:${candidate.personId}`,
          market: target.company.market,
          status: 'enriched',
          lastError: null,
          dataHash: appliedHash(input.l.person, mapping),
          lastWritten: input.planned.writes,
          companyId: target.company.id,
          companyReason: `created by discovery at this company`,
          lastEnrichedAt: now,
          nextRefreshAt: new Date(now.getTime() + this.options.refreshAfterDays * 86_400_000),
        });
        people.push({ personId: candidate.personId, action: 'created', code: 'created', reason: `created by ${why}`, recordId: result.id });
        progress.created++;
        step();
      }
    }

    // Their state goes in at once: the CRM's creation events that follow are then known as our own.
    if (states.length) await this.options.state.settle(states.splice(0), audit.splice(0));

    // Link the new records (where the link is not part of the record) and the people found already there.
    const created = people.filter((p) => p.action === 'created').map((p) => p.recordId!);
    const linkInputs = [
      ...(target.connector.companyLinkInWrite ? [] : created.map((id) => ({ recordId: id, companyId: target.company.id }))),
      ...links.map((l) => ({ recordId: l.record.id, companyId: target.company.id, ...(l.record.properties[target.person.linkProperty] ? { currentPrimary: l.record.properties[target.person.linkProperty]! } : {}) })),
    ];
    const linkResults = await this.link(target, linkInputs, priority);
    for (const l of links) {
      const result = linkResults.get(l.record.id);
      const failed = !result || result.outcome === 'failed';
      await this.options.store.settle(connection, l.candidate.personId, this.options.holder, failed ? 'link_failed' : 'linked', l.record.id, preview.persona);
      audit.push({ connection, objectType: target.person.objectType, recordId: l.record.id, jobId: null, property: target.person.linkProperty, oldValue: l.record.properties[target.person.linkProperty] ?? null, newValue: target.company.id, rule: 'company_link', outcome: failed ? 'link_failed' : (result.outcome === 'already_linked' ? 'already_linked' : result.outcome), reason: `found by ${why}; already in the CRM (matched by ${l.by})${failed ? `; the CRM refused the link: ${result?.error ?? 'no reason given'}` : ''}` });
      if (failed) skip(l.candidate, 'link_failed', `already in the CRM as record ${l.record.id}, but the CRM refused the link: ${result?.error ?? 'no reason given'}`, l.record.id);
      else {
        people.push({ personId: l.candidate.personId, action: 'linked', code: 'linked', reason: `already in the CRM as record ${l.record.id} (matched by ${l.by}); linked with the company`, recordId: l.record.id });
        progress.linked++;
      }
      step();
    }
    for (const id of created) {
      const result = linkResults.get(id);
      if (target.connector.companyLinkInWrite) audit.push({ connection, objectType: target.person.objectType, recordId: id, jobId: null, property: target.person.linkProperty, oldValue: null, newValue: target.company.id, rule: 'company_link', outcome: 'linked_primary', reason: `created at this company by ${why}` });
      else if (result) audit.push({ connection, objectType: target.person.objectType, recordId: id, jobId: null, property: target.person.linkProperty, oldValue: null, newValue: target.company.id, rule: 'company_link', outcome: result.outcome === 'failed' ? 'link_failed' : result.outcome, reason: `created at this company by ${why}${result.error ? `; ${result.error}` : ''}` });
    }
    if (states.length || audit.length) await this.options.state.settle(states, audit);

    const credits = looked.length;
    log.info({ crm: target.connector.kind, company: target.company.id, created: progress.created, linked: progress.linked, skipped: people.filter((p) => p.action === 'skipped').length, stopped: stopped?.reason }, 'discovery run done');
    return {
      crm: target.connector.kind,
      company: target.company,
      created: progress.created,
      linked: progress.linked,
      skipped: people.filter((p) => p.action === 'skipped').length + overLimit.length,
      credits,
      stopped,
      people,
    };
  }

  private async link(target: DiscoveryTarget, links: { recordId: string; companyId: string; currentPrimary?: string }[], priority: Priority): Promise<Map<string, CompanyLinkResult>> {
    const out = new Map<string, CompanyLinkResult>();
    if (links.length === 0) return out;
    const { connector } = target;
    if (connector.companyLinkInWrite) {
      // The link is a field (Salesforce AccountId): written only where it is empty, never replacing a person's choice.
      const empty = links.filter((l) => !l.currentPrimary);
      const results = await connector.writeRecords(target.person.objectType, empty.map((l) => ({ id: l.recordId, properties: { [target.person.linkProperty]: l.companyId } })), { priority });
      empty.forEach((l, i) => out.set(l.recordId, { recordId: l.recordId, companyId: l.companyId, outcome: results[i]?.ok ? 'linked_primary' : 'failed', ...(results[i]?.ok ? {} : { error: results[i]?.error?.message ?? 'not written' }) }));
      return out;
    }
    if (!connector.linkToCompanies) return out;
    for (const r of await connector.linkToCompanies(target.person.objectType, links, { priority })) out.set(r.recordId, r);
    return out;
  }

  private async bulkBudgetLeft(): Promise<boolean> {
    return (await this.options.counters.get(LOOKUPS_COUNTER)) < this.options.dailyBudget;
  }

  private async prepare(request: DiscoveryRequest, priority: Priority) {
    if (request.filters && request.persona) throw new DiscoveryError(400, 'invalid_request', 'persona: give a persona name or filters, not both', 'persona');
    let filtersInput: unknown = request.filters;
    let persona: string | null = null;
    if (request.persona !== undefined) {
      const saved = await this.options.store.persona(request.persona);
      if (!saved) throw new DiscoveryError(404, 'unknown_persona', `persona: no saved persona is called "${request.persona}"`, 'persona');
      filtersInput = saved.filters;
      persona = saved.name;
    }
    if (filtersInput === undefined) throw new DiscoveryError(400, 'invalid_request', 'filters: give filters (seniority, department, position) or a saved persona', 'filters');
    const filters = await this.checkFilters(filtersInput);
    const limit = request.limit ?? this.options.defaultLimit;
    if (!Number.isInteger(limit) || limit < 1 || limit > this.options.runMax) {
      throw new DiscoveryError(400, 'invalid_request', `limit: must be a whole number from 1 to ${this.options.runMax} (DISCOVERY_RUN_LIMIT)`, 'limit');
    }
    const target = await resolveTarget(this.options.connectors, this.options.mappings, request.crm, request.companyId, { priority });
    const key = `${target.connector.connection}:${target.person.objectType}`;
    const missing = this.provisioned.has(key) ? [] : await missingProperties(target);
    if (missing.length === 0) this.provisioned.add(key);
    if (missing.length) {
      throw new DiscoveryError(409, 'discovery_not_provisioned', `crm: ${request.crm} lacks the propert${missing.length === 1 ? 'y' : 'ies'} discovery writes (${missing.join(', ')}); run \`crm-enrich mappings provision\``, 'crm');
    }
    return { target, filters, persona, limit };
  }

  /** The people the persona finds at the company, once each, in the order the searches give them. */
  private async search(target: DiscoveryTarget, filters: PersonaFilters, limit: number, priority: Priority): Promise<{ result: PersonSearchResult; combo: { seniority?: string; department?: string } }[]> {
    const max = Math.min(MAX_CANDIDATES, Math.max(limit * 3, 50));
    const seen = new Map<string, { result: PersonSearchResult; combo: { seniority?: string; department?: string } }>();
    for (const combo of searchCombinations(filters)) {
      for (let from = 0; seen.size < max; from += PAGE_SIZE) {
        const page = await this.options.partner.searchPeople(
          { companyId: target.company.partnerId, selectedCountry: target.company.market, ...combo, from: String(from), size: String(PAGE_SIZE) },
          { priority },
        );
        for (const result of page) if (result.person_id && !seen.has(result.person_id)) seen.set(result.person_id, { result, combo });
        if (page.length < PAGE_SIZE) break;
      }
      if (seen.size >= max) break;
    }
    return [...seen.values()].slice(0, max);
  }

  private async plan(
    target: DiscoveryTarget,
    found: { result: PersonSearchResult; combo: { seniority?: string; department?: string } }[],
    options: { limit: number; dailyRemaining: number; skipDoNotDisturb: boolean },
    priority: Priority,
  ): Promise<Candidate[]> {
    const connection = target.connector.connection;
    const ids = found.map((f) => f.result.person_id!);
    const done = await this.options.store.done(connection, ids);
    const existing = await findExisting(target, found.filter((f) => !done.has(f.result.person_id!)).map((f) => ({ personId: f.result.person_id!, handle: profileHandle(f.result.linkedin) })), { priority });
    const catalogue = await this.catalogue();
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
      const add = (action: CandidateAction, code: string, reason: string, extra: Partial<Candidate> = {}) => out.push({ ...base, action, code, reason, ...extra });
      const previous = done.get(personId);
      const match = existing.get(personId);
      if (previous) {
        add('skip', 'already_discovered', `discovery already ${previous.action === 'created' || previous.action === 'linked' ? previous.action : `looked at (${previous.action})`} this person${previous.recordId ? ` (record ${previous.recordId})` : ''}`, { recordId: previous.recordId });
      } else if (match) {
        const link = match.record.properties[target.person.linkProperty];
        if (link === target.company.id) add('skip', 'already_contact', `already a contact at this company (record ${match.record.id}, matched by ${match.by})`, { recordId: match.record.id });
        else if (link && target.connector.companyLinkInWrite) {
          add('skip', 'linked_elsewhere', `already in the CRM as record ${match.record.id} (matched by ${match.by}), linked with another ${target.companyObject} (${link}); a person's link is never replaced`, { recordId: match.record.id });
        } else if (acting >= options.limit) add('skip', 'over_limit', `over this run's limit of ${options.limit}`, { recordId: match.record.id });
        else {
          acting++;
          add('link', 'link', `already in the CRM as record ${match.record.id} (matched by ${match.by}); will be linked with the company, no credit spent`, { recordId: match.record.id });
        }
      } else if (!base.hasEmail) add('skip', 'no_email', 'the partner holds no e-mail address for this person');
      else if (options.skipDoNotDisturb && base.hasDndPhone) add('skip', 'do_not_disturb', 'the person\'s phone is on a do-not-disturb register, and this run leaves such people out');
      else if (acting >= options.limit) add('skip', 'over_limit', `over this run's limit of ${options.limit}`);
      else if (creating >= options.dailyRemaining) add('skip', 'over_daily_limit', `over today's discovery limit (${options.dailyRemaining} more record(s) may be created today)`);
      else {
        acting++;
        creating++;
        const cached = await this.options.cache.get({ kind: 'person', by: 'id', value: personId, market: '*' });
        add('create', 'create', cached ? 'new to the CRM; the profile is in the lookup cache, so no credit is spent' : 'new to the CRM; one lookup (one credit) for the profile, then created and linked with the company', { credit: !cached });
      }
    }
    return out;
  }
}

export { DiscoveryError } from './target.js';
