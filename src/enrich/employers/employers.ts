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
import type { CompanyKeys, CompanyMatch, CrmConnector, FoundCompany, NewCompany } from '../../core/connector.js';
import type { Priority } from '../../core/limiter.js';
import { logger } from '../../logger.js';
import { toMarket } from '../../mapping/markets.js';
import type { Market } from '../../partner/schemas.js';
import type { PartnerLookups } from '../partner-lookups.js';
import type { NewCompanyPlanner } from './new-companies.js';
import type { PeopleFirst } from '../lane/people-first.js';
import type { CreatedRecordsPort, EnqueuePort } from '../ports.js';
import { CompanyCreation, type ClaimsPort } from './company-claims.js';
import { CompanyJobs } from './company-jobs.js';
import { Gatherer } from '../gatherer.js';
import type { Employer, EmployerResolution } from './employer-of.js';
import { RecentCompanies } from './recent-companies.js';

export type { ClaimsPort } from './company-claims.js';
export type { Employer, EmployerResolution } from './employer-of.js';

const log = logger('enrich.employers');

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

/** One domain gathering: the employer to resolve, and how (the most urgent and generous of its askers). */
interface Asked {
  employer: Employer;
  priority: Priority;
  spend: boolean;
}

/** A batch's answer: each domain's resolution, and the domains another instance is still creating. */
interface Resolved {
  results: Map<string, EmployerResolution>;
  held: Set<string>;
}

/** A domain asked again merges with the one gathering: a partner's employer and a will to spend win. */
function merged(kept: Asked, added: Asked): Asked {
  return {
    employer: added.employer.fromPartner && !kept.employer.fromPartner ? added.employer : kept.employer,
    priority: added.priority === 'interactive' ? 'interactive' : kept.priority,
    spend: kept.spend || added.spend,
  };
}

export class EmployerResolver {
  /** Domains gathering for one CRM search and one creation batch. */
  private readonly gathering: Gatherer<'domains', Asked, Resolved>;
  /** Domains whose resolution is under way: a colleague arriving meanwhile waits for it rather than searching again. */
  private readonly resolving = new Map<string, Promise<Resolved>>();
  /** Domains resolved lately, so the colleagues of one employer cost one search, not one each. */
  private readonly recent = new RecentCompanies();
  private readonly creation: CompanyCreation;
  private readonly companyJobs: CompanyJobs;

  constructor(private readonly options: EmployerResolverOptions) {
    this.creation = new CompanyCreation({
      connector: options.connector,
      claims: options.claims,
      planner: options.planner,
      created: options.created,
      claimWaitMs: options.claimWaitMs,
      staleClaimMs: options.staleClaimMs,
    });
    this.companyJobs = new CompanyJobs({
      connector: options.connector,
      enqueue: options.enqueue,
      refreshAfterDays: options.refreshAfterDays,
    });
    const people = options.people;
    this.gathering = new Gatherer({
      size: () => options.connector.batchSize,
      linger: () => options.lingerMs ?? 5_000,
      // Gathered domains go at a lull in people's work: their searches and creations do not take the
      // rate-limit slots of people's reads and writes.
      ...(people ? { lull: () => people.lull(options.peopleHoldMs ?? 5_000) } : {}),
      merge: merged,
      send: (_key, asked) => this.run(asked),
    });
  }

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
  async resolve(employer: Employer, priority: Priority, options: ResolveOptions = {}): Promise<EmployerResolution> {
    const { domain } = employer;
    const cached = this.recent.get(domain);
    if (cached) return { kind: 'found', companyId: cached.companyId, reason: cached.reason };
    const under = this.resolving.get(domain);
    const lingerMs =
      priority === 'interactive' && this.gathering.count('domains') === 0
        ? (this.options.interactiveLingerMs ?? 1_000)
        : undefined;
    const resolved = await (under ??
      this.gathering.add('domains', { employer, priority, spend: options.spend ?? true }, { id: domain, lingerMs }));
    if (resolved.held.has(domain))
      throw new Error(`another instance is still creating the company for ${domain}; the link is tried again`);
    return resolved.results.get(domain) ?? { kind: 'none', reason: `no company could be found for ${domain}` };
  }

  /** Resolves what is gathering now; returns when every resolution under way is done. */
  drain(): Promise<void> {
    return this.gathering.drain();
  }

  /**
   * Resolves a batch of domains. Its CRM calls and lookups are bulk work whoever waits for them: a person
   * waits for their record's enrichment, written meanwhile, and their next record's read and write must
   * not queue behind company searches and creations at the CRM's rate limit.
   */
  private run(batch: Asked[]): Promise<Resolved> {
    const run = this.resolveAll(
      batch.map((a) => a.employer),
      'bulk',
      new Set(batch.flatMap((a) => (a.spend ? [] : [a.employer.domain]))),
    ).then((resolved) => {
      for (const [domain, r] of resolved.results)
        if (r.kind === 'found' && !resolved.held.has(domain)) this.recent.remember(domain, r.companyId, r.reason);
      return resolved;
    });
    for (const a of batch) this.resolving.set(a.employer.domain, run);
    const forget = () => {
      for (const a of batch)
        if (this.resolving.get(a.employer.domain) === run) this.resolving.delete(a.employer.domain);
    };
    run.then(forget, forget);
    return run;
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
      // The lookups of a batch's domains go to the limiter together, not one round trip after another: a
      // batch of domains only e-mails name (an import of people the partner does not know) kept the key
      // half idle while the records waiting for their links held the lane back from claiming more.
      const knownOf = await Promise.all(
        missing.map((d) => {
          const employer = byDomain.get(d)!;
          // Without a lookup, only the employer the partner named (the person's current company) is created.
          if (employer.fromPartner) return Promise.resolve(employer);
          return lookupFree.has(d) ? Promise.resolve(undefined) : this.partnerKnows(employer, priority);
        }),
      );
      for (const [i, d] of missing.entries()) {
        const free = lookupFree.has(d);
        const known = knownOf[i];
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
      const created = await this.creation.createOnce(creatable, priority, lookupFree);
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
    await this.companyJobs.queue(toEnrich);
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
}
