/**
 * The cross-instance claim protocol for new companies: before a company is created for an employer's
 * domain, one instance claims the domain in Postgres; only the winner looks the company up and creates it
 * (with its planned values), touching its claims while it works, and records the id; every other
 * instance and record waits for, then reads, that id. A claim whose holder stopped touching it is taken
 * over, so a dead instance holds nothing for long.
 */
import { randomUUID } from 'node:crypto';
import type { CrmConnector, NewCompany } from '../../core/connector.js';
import type { Priority } from '../../core/limiter.js';
import { logger } from '../../logger.js';
import type { Market } from '../../partner/schemas.js';
import { createAsOwn } from '../own-creation.js';
import type { CreatedRecordsPort } from '../ports.js';
import type { EmployerResolution } from './employer-of.js';
import type { NewCompanyPlanner, PlannedCompany } from './new-companies.js';

const log = logger('enrich.employers');

export interface ClaimsPort {
  created(connection: string, domains: string[]): Promise<Map<string, string>>;
  claim(
    connection: string,
    domains: string[],
    holder: string,
    staleMs: number,
  ): Promise<Map<string, { kind: 'mine' } | { kind: 'created'; companyId: string } | { kind: 'held' }>>;
  recordCompany(connection: string, domain: string, holder: string, companyId: string): Promise<void>;
  release(connection: string, domain: string, holder: string): Promise<void>;
  /** The holder is still at work on these claims: they are not stale. */
  touch(connection: string, domains: string[], holder: string): Promise<void>;
  reportDuplicate(connection: string, domain: string, companyIds: string[]): Promise<void>;
  reportNearMatch(connection: string, domain: string, name: string, companyIds: string[]): Promise<void>;
}

export interface CompanyCreationOptions {
  connector: Pick<CrmConnector, 'connection' | 'createCompanies'> & { companyObjectType: string };
  claims: ClaimsPort;
  /** Plans a new company's enriched values, written by its creation (when a company mapping is active). */
  planner?: NewCompanyPlanner | undefined;
  /** Where the ids of created companies are kept, so their creation events are known as the service's own. */
  created?: Pick<CreatedRecordsPort, 'begin' | 'add' | 'abandon'> | undefined;
  /** How long to wait for another instance's creation before giving up for now (default 30 s). */
  claimWaitMs?: number | undefined;
  /** A claim untouched this long is taken over (default 15 s). */
  staleClaimMs?: number | undefined;
}

export class CompanyCreation {
  private readonly holder = randomUUID();

  constructor(private readonly options: CompanyCreationOptions) {}

  /**
   * Claims each domain, plans the values of the companies this instance won and creates them (with those
   * values), and waits for what others are creating, claiming again as it waits: a claim whose holder
   * died is taken over once it is `staleClaimMs` old. Only the winner looks the company up, so several
   * instances never spend a credit each on one new employer; a `lookupFree` domain's company is created
   * bare. `held`: domains still held past the wait.
   */
  async createOnce(
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
        await claims.recordCompany(connection, c.domain, this.holder, r.id);
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
    await this.options.planner?.store(made);
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
}
