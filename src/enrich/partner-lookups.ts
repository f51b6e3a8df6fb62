/**
 * Finds the partner record for a CRM record: tries the mapping's match keys in order, each through
 * the lookup cache (hits and misses both cached: asking again costs a credit), one partner call per
 * key at a time in this process (single flight), and the daily credit budget.
 */
import { EventEmitter } from 'node:events';
import type { Priority } from '../core/limiter.js';
import { AppError } from '../core/errors.js';
import type { Company, Market, Person } from '../partner/schemas.js';
import { logger } from '../logger.js';
import { SingleFlight } from '../store/single-flight.js';
import type { CacheKey, CachedLookup, CounterPort, LookupCachePort } from './ports.js';

export interface PartnerLookupClient {
  lookupPerson(query: { by: never; value: string }, options?: LookupCallOptions): Promise<Person | null>;
  lookupCompany(
    query: { by: never; value: string; country?: Market },
    options?: LookupCallOptions,
  ): Promise<Company | null>;
}

export interface LookupCallOptions {
  priority?: Priority;
  /** Called in the limiter slot right before each request goes out (see CallOptions.beforeSend). */
  beforeSend?: () => Promise<void>;
  /** Called after an attempt the partner did not serve (see CallOptions.unserved). */
  unserved?: () => Promise<void>;
}

export interface LookupKey {
  by: string;
  value: string;
}

export interface LookupHit {
  data: Record<string, unknown>;
  key: LookupKey;
  fromCache: boolean;
}

/** Bulk work stops at the budget; work a person waits for goes on up to the hard cap. */
export class BudgetExhaustedError extends AppError {
  constructor(
    readonly priority: Priority,
    used: number,
    limit: number,
  ) {
    super(
      'partner_budget_exhausted',
      `today's partner lookups (${used}) reached the ` +
        `${priority === 'bulk' ? 'PARTNER_DAILY_LOOKUP_BUDGET' : 'PARTNER_DAILY_LOOKUP_HARD_CAP'} of ${limit}; ` +
        (priority === 'bulk'
          ? 'bulk work resumes tomorrow (UTC) or when the budget is raised'
          : 'raise the hard cap to go on today'),
      'transient',
      { used, limit },
    );
  }
}

export interface PartnerLookupsOptions {
  client: PartnerLookupClient;
  cache: LookupCachePort;
  counters: CounterPort;
  dailyBudget: number;
  hardCap: number;
}

/**
 * Credits a caller reserved before it started (discovery reserves a run's credits at once): a lookup
 * spends one of them instead of reserving its own, and puts it back when the partner did not serve it.
 */
export interface ReservedCredits {
  take(): boolean;
  putBack(): void;
}

export const LOOKUPS_COUNTER = 'partner_lookups';
export const CACHE_HITS_COUNTER = 'lookup_cache_hits';

const log = logger('enrich.lookups');

/** People are not region-specific: their market is not part of the cache key. */
export const cacheKeyOf = (kind: 'person' | 'company', key: LookupKey, market: Market): CacheKey => ({
  kind,
  by: key.by,
  value: key.value,
  market: kind === 'company' ? market : '*',
});

/** How often credits that could not be given back (the store was away) are tried again. */
const OWED_RETRY_MS = 1_000;

export class PartnerLookups extends EventEmitter<{
  lookup: [{ fromCache: boolean; found: boolean }];
  budget: [{ priority: Priority; used: number; limit: number }];
}> {
  private readonly flights = new SingleFlight();
  /** Answers being stored in the cache, by flight key: a lookup of the same key reads the cache after. */
  private readonly storing = new Map<string, Promise<void>>();
  /** Credits to give back that the store could not take when they were due. */
  private owed = 0;
  private owedTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: PartnerLookupsOptions) {
    super();
  }

  /**
   * The first key that matches, or null when none does. Throws partner errors and BudgetExhaustedError.
   * With `credits`, a call to the partner spends one of them, and the budget is met when none is left.
   */
  async find(
    kind: 'person' | 'company',
    keys: LookupKey[],
    market: Market,
    priority: Priority,
    credits?: ReservedCredits,
  ): Promise<LookupHit | null> {
    for (const key of keys) {
      const { entry, fromCache } = await this.resolve(cacheKeyOf(kind, key, market), market, priority, credits);
      if (entry.found) return { data: entry.data, key, fromCache };
    }
    return null;
  }

  /**
   * One key, whether or not the partner has a record for it, and whether the cache answered: a cached
   * miss is an answer from the cache too, which `find` (hits only) cannot say.
   */
  async lookup(
    kind: 'person' | 'company',
    key: LookupKey,
    market: Market,
    priority: Priority,
  ): Promise<{ hit: LookupHit | null; fromCache: boolean }> {
    const { entry, fromCache } = await this.resolve(cacheKeyOf(kind, key, market), market, priority, undefined);
    return { hit: entry.found ? { data: entry.data, key, fromCache } : null, fromCache };
  }

  /**
   * The most credits `find` would spend on these keys now, spending none: each key it would ask the
   * partner (not in the cache), up to the first the cache answers with a record. A cost preview asks
   * this rather than judging the cache itself, so it counts as `find` spends.
   */
  async creditsFor(kind: 'person' | 'company', keys: LookupKey[], market: Market): Promise<number> {
    let credits = 0;
    for (const key of keys) {
      const cached = await this.options.cache.get(cacheKeyOf(kind, key, market));
      if (!cached) credits++;
      else if (cached.found) break;
    }
    return credits;
  }

  private async resolve(
    key: CacheKey,
    market: Market,
    priority: Priority,
    credits: ReservedCredits | undefined,
  ): Promise<{ entry: CachedLookup; fromCache: boolean }> {
    const flight = `${key.kind}|${key.by}|${key.value}|${key.market}`;
    await this.storing.get(flight);
    const cached = await this.options.cache.get(key);
    if (cached) {
      this.emit('lookup', { fromCache: true, found: cached.found });
      void this.options.counters.increment(CACHE_HITS_COUNTER).catch(() => undefined);
      return { entry: cached, fromCache: true };
    }
    const entry = await this.flights.run(flight, () => this.callPartner(key, flight, market, priority, credits));
    return { entry, fromCache: false };
  }

  /**
   * A credit is reserved when the request goes out, not while it waits for the limiter: a lookup
   * queued behind a backlog, or lost with its process, has spent nothing. The reservation is one
   * conditional increment, so concurrent lookups and other instances can neither all pass a check
   * made before any of them counted nor push the count past the limit for a moment.
   */
  private reservation(priority: Priority): () => Promise<void> {
    const limit = priority === 'bulk' ? this.options.dailyBudget : this.options.hardCap;
    return async () => {
      const reserved = await this.options.counters.reserve(LOOKUPS_COUNTER, limit);
      if (reserved !== undefined) return;
      const used = await this.options.counters.get(LOOKUPS_COUNTER);
      this.emit('budget', { priority, used, limit });
      throw new BudgetExhaustedError(priority, used, limit);
    };
  }

  /** Spends one of the caller's reserved credits; none left is the bulk budget met. */
  private fromReserved(credits: ReservedCredits): () => Promise<void> {
    return async () => {
      if (credits.take()) return;
      const used = await this.options.counters.get(LOOKUPS_COUNTER);
      this.emit('budget', { priority: 'bulk', used, limit: this.options.dailyBudget });
      throw new BudgetExhaustedError('bulk', used, this.options.dailyBudget);
    };
  }

  /**
   * The answer goes back as soon as the partner gives it, and is stored in the cache meanwhile: the
   * record's write does not wait for the cache. A store that cannot take it costs a later lookup of
   * the same key a credit, not this one its answer.
   */
  private async callPartner(
    key: CacheKey,
    flight: string,
    market: Market,
    priority: Priority,
    credits: ReservedCredits | undefined,
  ): Promise<CachedLookup> {
    const beforeSend = credits ? this.fromReserved(credits) : this.reservation(priority);
    // A request the partner refused unserved (429, a key it refused) or that never reached it spent nothing.
    const unserved = credits ? async () => credits.putBack() : () => this.giveBack(1);
    const query = { by: key.by as never, value: key.value };
    const data =
      key.kind === 'person'
        ? await this.options.client.lookupPerson(query, { priority, beforeSend, unserved })
        : await this.options.client.lookupCompany({ ...query, country: market }, { priority, beforeSend, unserved });
    const entry: CachedLookup = data ? { found: true, data } : { found: false };
    const stored: Promise<void> = this.options.cache
      .put(key, entry)
      .catch((error: unknown) => log.warn({ err: error }, 'a partner answer could not be kept in the lookup cache'))
      .finally(() => {
        if (this.storing.get(flight) === stored) this.storing.delete(flight);
      });
    this.storing.set(flight, stored);
    this.emit('lookup', { fromCache: false, found: entry.found });
    return entry;
  }

  /**
   * Gives credits back. When the store cannot take the write (Postgres restarting), the credits are
   * kept in memory and given back once it can: the lookup goes on meanwhile, and the day's count
   * still ends equal to what the partner served.
   */
  private async giveBack(credits: number): Promise<void> {
    try {
      await this.options.counters.increment(LOOKUPS_COUNTER, -credits);
    } catch (error) {
      if (this.owed === 0)
        log.warn(
          { err: error },
          'a partner credit could not be given back yet; it is given back once the store answers',
        );
      this.owed += credits;
      this.payOwedSoon();
    }
  }

  /** Tries the owed credits again every OWED_RETRY_MS until the store takes them. */
  private payOwedSoon(): void {
    if (this.owedTimer || this.owed === 0) return;
    this.owedTimer = setTimeout(() => void this.payOwed(), OWED_RETRY_MS);
    this.owedTimer.unref();
  }

  /** Never rejects: a failed payment waits for the next try. */
  private async payOwed(): Promise<void> {
    const credits = this.owed;
    try {
      await this.options.counters.increment(LOOKUPS_COUNTER, -credits);
      this.owed -= credits;
    } catch {
      // Still away: the warning was logged when the first credit fell due.
    }
    this.owedTimer = undefined;
    this.payOwedSoon();
  }
}
