/**
 * Which company record a person belongs with, found or created once per employer domain.
 *
 * A person's employer is the partner's current company of the match (also for a person found through a
 * personal e-mail), otherwise the domain of a work e-mail; free-mail domains never name an employer.
 * Each domain is resolved in this order, in batches shared by every record a lane has in hand:
 *   1. companies this connection already created (the Postgres claim table: no search lag, no duplicate);
 *   2. the CRM, by domain: the oldest company wins and any newer one with the domain is reported;
 *   3. when creation is on and the partner knows the employer (the person's current company, or a
 *      company lookup of the domain), one instance claims the domain in Postgres and creates the
 *      company; every other instance and record waits for, then reads, the id it recorded.
 * Found and created companies become one company enrichment job each per refresh period.
 * A resolution that may not spend (`spend: false`: a job change's new employer, named by the person's own
 * lookup) asks the partner nothing: it creates only what the partner named, with the name, domain and
 * partner company id the person's answer carries, and queues no enrichment job.
 */
import { randomUUID } from 'node:crypto';
import type { CompanyKeys, CompanyMatch, CrmConnector, FoundCompany, NewCompany } from '../../core/connector.js';
import { domainOf } from '../../core/domain.js';
import type { Priority } from '../../core/limiter.js';
import { logger } from '../../logger.js';
import { toMarket } from '../../mapping/markets.js';
import type { Market } from '../../partner/schemas.js';
import { queueName } from '../jobs.js';
import type { PartnerLookups } from '../partner-lookups.js';
import type { NewCompanyPlanner, PlannedCompany } from './new-companies.js';
import type { PeopleFirst } from '../lane/people-first.js';
import type { CreatedRecordsPort, EnqueuePort } from '../ports.js';
import { createAsOwn } from '../own-creation.js';

const log = logger('enrich.employers');
const DAY_MS = 86_400_000;

/** A person's employer as far as the partner data and the record tell. */
export interface Employer {
  /** Normalised website domain: lower case, no scheme, `www.`, port or path. */
  domain: string;
  /** The company name the partner gave, used when the company has to be created. */
  name?: string;
  /** The partner's id of the company, found in the CRM once a company was enriched with it. */
  partnerCompanyId?: string;
  /** true when the partner named the employer (the person's current company). */
  fromPartner: boolean;
  /** The market a company lookup of the domain uses. */
  market: Market;
}

/** How one resolution may spend partner credits. */
export interface ResolveOptions {
  /**
   * false: no partner lookup (neither to vouch for an employer only an e-mail names nor to plan a new
   * company's values) and no enrichment job for the company found or created. The company is enriched
   * later on its own (a catch-up, a backfill, on demand). True unless said: several askers of one domain
   * spend when any of them may.
   */
  spend?: boolean;
}

export type EmployerResolution =
  /**
   * `enrichedByCreator`: crm-enrich created the company (here or on another instance) and its creator saw
   * to its enrichment, in the creation or by a job: none is queued for it again.
   */
  { kind: 'found'; companyId: string; reason: string; enrichedByCreator?: boolean } | { kind: 'none'; reason: string };

export interface ClaimsPort {
  created(connection: string, domains: string[]): Promise<Map<string, string>>;
  claim(
    connection: string,
    domains: string[],
    holder: string,
    staleMs: number,
  ): Promise<Map<string, { kind: 'mine' } | { kind: 'created'; companyId: string } | { kind: 'held' }>>;
  settle(connection: string, domain: string, holder: string, companyId: string): Promise<void>;
  release(connection: string, domain: string, holder: string): Promise<void>;
  /** The holder is still at work on these claims: they are not stale. */
  touch(connection: string, domains: string[], holder: string): Promise<void>;
  reportDuplicate(connection: string, domain: string, companyIds: string[]): Promise<void>;
  reportNearMatch(connection: string, domain: string, name: string, companyIds: string[]): Promise<void>;
}

export type EmployerConnector = CrmConnector &
  Required<Pick<CrmConnector, 'findCompaniesByDomain' | 'companyObjectType'>>;

export interface EmployerResolverOptions {
  connector: EmployerConnector;
  claims: ClaimsPort;
  /** Company lookups by domain, for an employer only the e-mail names (cached, budgeted, rate limited). */
  lookups?: PartnerLookups;
  enqueue: EnqueuePort;
  refreshAfterDays: number;
  /** The company property that holds the partner's company id (the company mapping's `by: id` match). */
  partnerIdProperty?: string;
  /** Whether a missing company is created (per connection; on by default). */
  create: boolean;
  /** Plans a new company's enriched values, written by its creation (when a company mapping is active). */
  planner?: NewCompanyPlanner;
  /** Where the ids of created companies are kept, so their creation events are known as the service's own. */
  created?: Pick<CreatedRecordsPort, 'begin' | 'add' | 'abandon'>;
  /** Called once company jobs are stored, to wake the company lane. */
  wake: (objectType: string) => void;
  /**
   * How long a bulk domain waits for others to share its CRM search and company creation (default 5 s,
   * or until a batch waits). Records are written meanwhile; only their company link waits.
   */
  lingerMs?: number;
  /** How long a person's domain waits for others when none is gathering (default 1 s). */
  interactiveLingerMs?: number;
  /**
   * The connection's people-first gate: gathered domains go at a lull in people's work, so their
   * searches and creations do not take the rate-limit slots of people's reads and writes.
   */
  people?: Pick<PeopleFirst, 'lull'>;
  /** How long gathered domains wait for that lull at most (default 5 s). */
  peopleHoldMs?: number;
  /** How long to wait for another instance's creation before giving up for now (the job is retried). */
  claimWaitMs?: number;
  /**
   * A claim whose holder stopped touching it this long ago is taken over: its holder died (default 15 s;
   * a live holder touches its claims every third of that while it looks the companies up and creates them).
   */
  staleClaimMs?: number;
}

interface Pending {
  employer: Employer;
  priority: Priority;
  spend: boolean;
  waiters: { resolve: (r: EmployerResolution) => void; reject: (e: unknown) => void }[];
}

export class EmployerResolver {
  private readonly holder = randomUUID();
  private pending = new Map<string, Pending>();
  /** Domains whose resolution is under way: a colleague arriving meanwhile waits for it rather than searching again. */
  private readonly resolving = new Map<string, Pending>();
  private timer: NodeJS.Timeout | undefined;
  /** When the gathered domains go (while `timer` is set). */
  private dueAt = 0;
  /** The gathered domains are due and wait for a lull in people's work: whatever arrives meanwhile joins them. */
  private awaitingLull = false;
  private readonly running = new Set<Promise<void>>();
  /** Domains resolved lately, so the colleagues of one employer cost one search, not one each. */
  private readonly recent = new Map<string, { companyId: string; reason: string; at: number }>();
  /** Companies already given an enrichment job in this period, by this process. */
  private readonly queued = new Map<string, number>();

  constructor(private readonly options: EmployerResolverOptions) {}

  get connection(): string {
    return this.options.connector.connection;
  }

  /**
   * The company of an employer's domain. Domains gather so that one CRM search, one creation batch and
   * one association batch serve up to a batch of them: a bulk domain waits up to `lingerMs` for others.
   * A person's domain waits `interactiveLingerMs` when nothing is gathering (an idle service), so people
   * created moments apart share the calls; while bulk domains gather, it joins them and goes with them.
   * The person waits only for the enrichment, which is written meanwhile, not for the company link.
   */
  resolve(employer: Employer, priority: Priority, options: ResolveOptions = {}): Promise<EmployerResolution> {
    const spend = options.spend ?? true;
    const cached = this.recent.get(employer.domain);
    if (cached && Date.now() - cached.at < RECENT_MS)
      return Promise.resolve({ kind: 'found', companyId: cached.companyId, reason: cached.reason });
    return new Promise((resolve, reject) => {
      const under = this.resolving.get(employer.domain);
      if (under) {
        under.waiters.push({ resolve, reject });
        return;
      }
      const gathering = this.pending.size > 0;
      const entry = this.pending.get(employer.domain);
      if (entry) {
        entry.waiters.push({ resolve, reject });
        if (priority === 'interactive') entry.priority = 'interactive';
        if (employer.fromPartner && !entry.employer.fromPartner) entry.employer = employer;
        if (spend) entry.spend = true;
      } else {
        this.pending.set(employer.domain, { employer, priority, spend, waiters: [{ resolve, reject }] });
      }
      if (this.pending.size >= this.options.connector.batchSize) this.flushWithin(0);
      else if (priority === 'interactive' && !gathering) this.flushWithin(this.options.interactiveLingerMs ?? 1_000);
      else this.flushWithin(this.options.lingerMs ?? 5_000);
    });
  }

  /** Resolves what is pending now; returns when every resolution under way is done. */
  async drain(): Promise<void> {
    this.flushWithin(0);
    while (this.running.size) await Promise.allSettled([...this.running]);
  }

  /** Sends the gathered domains within `ms`, or sooner if already due sooner. */
  private flushWithin(ms: number): void {
    if (this.awaitingLull) return;
    const dueAt = Date.now() + ms;
    if (this.timer && this.dueAt <= dueAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.dueAt = dueAt;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.awaitingLull = true;
      const lull = this.options.people?.lull(this.options.peopleHoldMs ?? 5_000) ?? Promise.resolve();
      const waited = lull
        .then(() => {
          this.awaitingLull = false;
          const batch = this.pending;
          this.pending = new Map();
          if (batch.size > 0) this.start(batch);
        })
        .finally(() => this.running.delete(waited));
      this.running.add(waited);
    }, ms);
  }

  private start(batch: Map<string, Pending>): void {
    const run = this.run(batch).finally(() => this.running.delete(run));
    this.running.add(run);
  }

  /**
   * Resolves a batch of domains. Its CRM calls and lookups are bulk work whoever waits for them: a person
   * waits for their record's enrichment, written meanwhile, and their next record's read and write must
   * not queue behind company searches and creations at the CRM's rate limit.
   */
  private async run(batch: Map<string, Pending>): Promise<void> {
    const priority: Priority = 'bulk';
    for (const [domain, p] of batch) this.resolving.set(domain, p);
    let results: Map<string, EmployerResolution>;
    let held: Set<string>;
    try {
      ({ results, held } = await this.resolveAll(
        [...batch.values()].map((p) => p.employer),
        priority,
        new Set([...batch].flatMap(([domain, p]) => (p.spend ? [] : [domain]))),
      ));
    } catch (error) {
      for (const [domain, p] of batch) {
        this.resolving.delete(domain);
        for (const w of p.waiters) w.reject(error);
      }
      return;
    }
    for (const domain of batch.keys()) this.resolving.delete(domain);
    for (const [domain, p] of batch) {
      if (held.has(domain)) {
        const error = new Error(
          `another instance is still creating the company for ${domain}; the link is tried again`,
        );
        for (const w of p.waiters) w.reject(error);
        continue;
      }
      const r = results.get(domain) ?? { kind: 'none', reason: `no company could be found for ${domain}` };
      if (r.kind === 'found') this.remember(domain, r.companyId, r.reason);
      for (const w of p.waiters) w.resolve(r);
    }
  }

  private remember(domain: string, companyId: string, reason: string): void {
    if (this.recent.size > 50_000) this.recent.clear();
    this.recent.set(domain, { companyId, reason, at: Date.now() });
  }

  /**
   * `held`: domains another instance is still creating a company for, past the wait: tried again later.
   * `lookupFree`: domains resolved without spending (ResolveOptions).
   */
  private async resolveAll(
    employers: Employer[],
    priority: Priority,
    lookupFree: Set<string>,
  ): Promise<{ results: Map<string, EmployerResolution>; held: Set<string> }> {
    const { connector, claims } = this.options;
    const connection = connector.connection;
    const out = new Map<string, EmployerResolution>();
    const byDomain = new Map(employers.map((e) => [e.domain, e]));
    const domains = [...byDomain.keys()];

    for (const [domain, id] of await claims.created(connection, domains)) {
      out.set(domain, {
        kind: 'found',
        companyId: id,
        reason: `created by crm-enrich for ${domain}`,
        enrichedByCreator: true,
      });
    }
    const toSearch = domains.filter((d) => !out.has(d));
    let found = new Map<string, CompanyMatch>();
    // Where the CRM can, the keys a domain might not find go in the same search (one call, not two).
    let byKeys: FoundCompany[] | undefined;
    if (toSearch.length && connector.findCompanies) {
      ({ byDomain: found, byKeys } = await connector.findCompanies(
        { domains: toSearch, ...this.keysOf(toSearch.map((d) => byDomain.get(d)!)) },
        { priority },
      ));
    } else if (toSearch.length) {
      found = await connector.findCompaniesByDomain(toSearch, { priority });
    }
    for (const [domain, match] of found) {
      out.set(domain, { kind: 'found', companyId: match.id, reason: `matched by domain ${domain}` });
      if (match.others.length) {
        await claims.reportDuplicate(connection, domain, [match.id, ...match.others]);
        log.warn(
          { connection, domain, companies: match.others.length + 1 },
          'several companies share one domain; linking to the oldest',
        );
      }
    }

    await this.findByKeys(
      domains.filter((d) => !out.has(d)).map((d) => byDomain.get(d)!),
      out,
      priority,
      byKeys,
    );
    const missing = domains.filter((d) => !out.has(d));
    if (missing.length && !this.options.create) {
      for (const d of missing)
        out.set(d, {
          kind: 'none',
          reason: `no company with domain ${d}, and company creation is off for this connection`,
        });
    }
    const creatable: (NewCompany & { market: Market })[] = [];
    if (missing.length && this.options.create) {
      for (const d of missing) {
        const employer = byDomain.get(d)!;
        const free = lookupFree.has(d);
        // Without a lookup, only the employer the partner named (the person's current company) is created.
        const known = employer.fromPartner ? employer : free ? undefined : await this.partnerKnows(employer, priority);
        if (known) {
          byDomain.set(d, known);
          creatable.push({
            domain: d,
            name: known.name ?? d,
            market: known.market,
            ...(free ? this.namedProperties(known) : {}),
          });
        } else
          out.set(d, {
            kind: 'none',
            reason: free
              ? `no company with domain ${d}, and the partner did not name one to create (no lookup was spent)`
              : `no company with domain ${d}, and the partner does not know one to create`,
          });
      }
    }
    const held = new Set<string>();
    if (creatable.length) {
      const created = await this.createOnce(creatable, priority, lookupFree);
      for (const [d, r] of created.results) out.set(d, r);
      for (const d of created.held) held.add(d);
    }

    // Companies found in the CRM, and those created here bare, are enriched by a job of their own, unless
    // the resolution may not spend.
    const toEnrich = [...out].flatMap(([domain, r]) =>
      r.kind === 'found' && !r.enrichedByCreator && !lookupFree.has(domain)
        ? [{ companyId: r.companyId, market: byDomain.get(domain)!.market }]
        : [],
    );
    await this.queueEnrichment(toEnrich);
    return { results: out, held };
  }

  /**
   * Employers no domain found: by the partner's company id where a company was enriched with it (its
   * domain in the CRM may differ), and, before one is created, companies of the same name, which are
   * reported as near matches and never linked by name alone. One CRM search for both.
   */
  private async findByKeys(
    employers: Employer[],
    out: Map<string, EmployerResolution>,
    priority: Priority,
    searched?: FoundCompany[],
  ): Promise<void> {
    const { connector, claims } = this.options;
    if (employers.length === 0 || (!searched && !connector.findCompaniesByKeys)) return;
    const keys = this.keysOf(employers);
    if (keys.partnerIds.length === 0 && keys.names.length === 0) return;
    const found = searched ?? (await connector.findCompaniesByKeys!(keys, { priority }));
    for (const e of employers) {
      const byId = e.partnerCompanyId ? found.find((f) => f.partnerId === e.partnerCompanyId) : undefined;
      if (byId) {
        out.set(e.domain, {
          kind: 'found',
          companyId: byId.id,
          reason: `matched by partner company id ${e.partnerCompanyId}`,
        });
        continue;
      }
      const sameName = e.name ? found.filter((f) => f.name?.trim().toLowerCase() === e.name!.toLowerCase()) : [];
      if (sameName.length) {
        await claims.reportNearMatch(
          connector.connection,
          e.domain,
          e.name!,
          sameName.map((f) => f.id),
        );
        log.info(
          { connection: connector.connection, domain: e.domain, companies: sameName.length },
          "a company has the employer's name but not its domain; not linked by name",
        );
      }
    }
  }

  /** The partner ids and (when companies may be created) names the employers can be found by. */
  private keysOf(employers: Employer[]): CompanyKeys {
    const { partnerIdProperty } = this.options;
    return {
      ...(partnerIdProperty ? { partnerIdProperty } : {}),
      partnerIds: partnerIdProperty ? employers.flatMap((e) => (e.partnerCompanyId ? [e.partnerCompanyId] : [])) : [],
      names: this.options.create ? employers.flatMap((e) => (e.name ? [e.name] : [])) : [],
    };
  }

  /** The partner's company id as the person's answer gave it, where the company mapping has a property for it. */
  private namedProperties(employer: Employer): Pick<NewCompany, 'properties'> {
    const { partnerIdProperty } = this.options;
    return partnerIdProperty && employer.partnerCompanyId
      ? { properties: { [partnerIdProperty]: employer.partnerCompanyId } }
      : {};
  }

  /** The partner's company of a domain only an e-mail named: it must exist there to be created here. */
  private async partnerKnows(employer: Employer, priority: Priority): Promise<Employer | undefined> {
    if (!this.options.lookups) return undefined;
    const hit = await this.options.lookups.find(
      'company',
      [{ by: 'fqdn', value: employer.domain }],
      employer.market,
      priority,
    );
    if (!hit) return undefined;
    const name = typeof hit.data.name === 'string' && hit.data.name.trim() ? hit.data.name.trim() : undefined;
    const market =
      toMarket(typeof hit.data.hq_country === 'string' ? hit.data.hq_country : undefined) ?? employer.market;
    return { ...employer, market, ...(name ? { name } : {}) };
  }

  /**
   * Claims each domain, plans the values of the companies this instance won and creates them (with those
   * values), and waits for what others are creating, claiming again as it waits: a claim whose holder
   * died is taken over once it is `staleClaimMs` old. Only the winner looks the company up, so several
   * instances never spend a credit each on one new employer; a `lookupFree` domain's company is created
   * bare. `held`: domains still held past the wait.
   */
  private async createOnce(
    companies: (NewCompany & { market: Market })[],
    priority: Priority,
    lookupFree: Set<string>,
  ): Promise<{ results: Map<string, EmployerResolution>; held: string[] }> {
    const { connector, claims } = this.options;
    const connection = connector.connection;
    const staleMs = this.options.staleClaimMs ?? 15_000;
    const out = new Map<string, EmployerResolution>();
    const byDomain = new Map(companies.map((c) => [c.domain, c]));
    const deadline = Date.now() + (this.options.claimWaitMs ?? 30_000);
    let todo = companies.map((c) => c.domain);
    for (;;) {
      const claimed = await claims.claim(connection, todo, this.holder, staleMs);
      for (const [d, c] of claimed) {
        if (c.kind === 'created')
          out.set(d, {
            kind: 'found',
            companyId: c.companyId,
            reason: `created by crm-enrich for ${d}`,
            enrichedByCreator: true,
          });
      }
      const mine = todo.filter((d) => claimed.get(d)?.kind === 'mine').map((d) => byDomain.get(d)!);
      if (mine.length)
        await this.whileHolding(mine, staleMs, async () =>
          this.create(await this.plan(mine, lookupFree), priority, out),
        );
      todo = todo.filter((d) => claimed.get(d)?.kind === 'held');
      if (todo.length === 0) return { results: out, held: [] };
      // These domains' records have their links tried again with their jobs; the rest of the batch is done.
      if (Date.now() >= deadline) return { results: out, held: todo };
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Runs `work` while touching the claims of `companies` every third of `staleMs`, so they never look stale. */
  private async whileHolding<T>(companies: NewCompany[], staleMs: number, work: () => Promise<T>): Promise<T> {
    const { connector, claims } = this.options;
    const domains = companies.map((c) => c.domain);
    const beat = setInterval(
      () => {
        claims.touch(connector.connection, domains, this.holder).catch((error: unknown) => {
          log.warn({ err: error }, 'could not vouch for company claims; another instance may take them over');
        });
      },
      Math.max(100, staleMs / 3),
    );
    try {
      return await work();
    } finally {
      clearInterval(beat);
    }
  }

  /** Creates companies whose domains this instance claimed, each with the values planned for it. */
  private async create(
    mine: PlannedCompany[],
    priority: Priority,
    out: Map<string, EmployerResolution>,
  ): Promise<void> {
    const { connector, claims } = this.options;
    const connection = connector.connection;
    let results;
    try {
      results = await createAsOwn(
        this.options.created,
        { connection, objectType: connector.companyObjectType },
        () =>
          connector.createCompanies!(
            mine.map((p) => p.company),
            { priority },
          ),
        (created) => created.flatMap((r) => (r.ok ? [r.id] : [])),
      );
    } catch (error) {
      await Promise.all(mine.map((p) => claims.release(connection, p.company.domain, this.holder)));
      throw error;
    }
    const made = mine.flatMap((p, i) => (results[i]?.ok ? [{ companyId: results[i].id, planned: p }] : []));
    for (const [i, { company: c, plan }] of mine.entries()) {
      const r = results[i];
      if (r?.ok) {
        await claims.settle(connection, c.domain, this.holder, r.id);
        out.set(c.domain, {
          kind: 'found',
          companyId: r.id,
          reason: `created for ${c.domain} (${c.name}, known to the partner)`,
          // Created bare (no plan): its enrichment is a job's, queued with the found ones.
          ...(plan ? { enrichedByCreator: true } : {}),
        });
        log.info({ connection, domain: c.domain, companyId: r.id }, 'created a company for a new employer');
      } else {
        await claims.release(connection, c.domain, this.holder);
        out.set(c.domain, {
          kind: 'none',
          reason: `the CRM did not create a company for ${c.domain}: ${r?.error?.message ?? 'no result'}`,
        });
      }
    }
    await this.options.planner?.settle(made);
  }

  /** Each new company's enriched values, planned before its creation; bare without a planner or a lookup to spend. */
  private plan(companies: (NewCompany & { market: Market })[], lookupFree: Set<string>): Promise<PlannedCompany[]> {
    const { planner } = this.options;
    return Promise.all(
      companies.map(({ market, ...company }) =>
        planner && !lookupFree.has(company.domain) ? planner.plan(company, market) : Promise.resolve({ company }),
      ),
    );
  }

  private async queueEnrichment(companies: { companyId: string; market: Market }[]): Promise<void> {
    const { connector } = this.options;
    const period = Math.floor(Date.now() / (this.options.refreshAfterDays * DAY_MS));
    const fresh = new Map(
      companies.filter((c) => this.queued.get(c.companyId) !== period).map((c) => [c.companyId, c.market]),
    );
    if (fresh.size === 0) return;
    if (this.queued.size > 100_000) this.queued.clear();
    for (const id of fresh.keys()) this.queued.set(id, period);
    const objectType = connector.companyObjectType;
    const { inserted } = await this.options.enqueue.enqueue(
      [...fresh].map(([recordId, market]) => ({
        queue: queueName(connector.connection, objectType),
        // One job per company per refresh period, whichever instance or person asks first.
        dedupKey: `company:${connector.connection}:${objectType}:${recordId}:${period}`,
        priority: 'bulk',
        // The person's market stands in while the company record names no country of its own.
        data: { connection: connector.connection, objectType, recordId, reason: 'company', market },
      })),
    );
    if (inserted > 0) this.options.wake(objectType);
  }
}

/** How long a resolved domain answers from memory before the claim table and the CRM are asked again. */
const RECENT_MS = 10 * 60_000;

export interface EmployerSources {
  /** The domain the mapping's `company` entry read from the partner record (its current company's website). */
  partnerDomain?: string;
  /** The partner record of the person, when matched. */
  partner?: Record<string, unknown>;
  /** The record's work e-mail address, when it has one. */
  email?: string;
  market: Market;
  freeMail: { has(domain: string): boolean };
}

/**
 * The employer: the partner's current company of a matched person first (whatever address matched),
 * otherwise the domain of the record's e-mail. A free-mail domain never names an employer.
 */
export function employerOf(sources: EmployerSources): Employer | undefined {
  const { partnerDomain, partner, email, market, freeMail } = sources;
  const partnerName = nameOf(partner);
  const partnerCompanyId = idOf(partner);
  const fromPartner = partnerDomain ? domainOf(partnerDomain) : undefined;
  if (fromPartner && !freeMail.has(fromPartner)) {
    return {
      domain: fromPartner,
      fromPartner: true,
      market,
      ...(partnerName ? { name: partnerName } : {}),
      ...(partnerCompanyId ? { partnerCompanyId } : {}),
    };
  }
  const at = email?.lastIndexOf('@') ?? -1;
  const fromEmail = email && at > 0 ? domainOf(email.slice(at + 1)) : undefined;
  if (fromEmail && !freeMail.has(fromEmail)) return { domain: fromEmail, fromPartner: false, market };
  return undefined;
}

function idOf(partner: Record<string, unknown> | undefined): string | undefined {
  const company = partner?.current_company;
  if (!company || typeof company !== 'object') return undefined;
  const id = (company as Record<string, unknown>).id;
  return typeof id === 'string' && id.trim() ? id.trim() : undefined;
}

function nameOf(partner: Record<string, unknown> | undefined): string | undefined {
  const company = partner?.current_company;
  if (!company || typeof company !== 'object') return undefined;
  const name = (company as Record<string, unknown>).name;
  return typeof name === 'string' && name.trim() ? name.trim().slice(0, 255) : undefined;
}
