/**
 * Partner answers keyed by what was asked: subject (person or company), identifier type, normalised value and market.
 * A miss is kept too (asking again costs a credit), for a shorter time than a hit.
 */
import type { Db } from './db.js';
import { StoreError } from './errors.js';
import { SingleFlight } from './single-flight.js';

/**
 * Whether a lookup asks about a person or a company (not to be
 * confused with the mapping's LookupKind, the identifier it goes by).
 */
export type LookupSubject = 'person' | 'company';

export interface LookupKey {
  kind: LookupSubject;
  /** e.g. `email`, `domain`, `linkedin`, `registry_number`. */
  idType: string;
  value: string;
  /** Market code, or omitted when the lookup is not market-specific. */
  market?: string;
}

export type CacheEntry =
  | { key: LookupKey; hit: true; response: unknown; fetchedAt: Date; expiresAt: Date }
  | { key: LookupKey; hit: false; fetchedAt: Date; expiresAt: Date };

export interface CacheTtls {
  hitSeconds: number;
  missSeconds: number;
}

export const defaultCacheTtls: CacheTtls = { hitSeconds: 30 * 86_400, missSeconds: 7 * 86_400 };

/** Identifiers compare without case or surrounding space; callers normalise anything finer (www., scheme). */
export function normaliseLookupKey(key: LookupKey): Required<LookupKey> {
  return {
    kind: key.kind,
    idType: key.idType.trim().toLowerCase(),
    value: key.value.trim().toLowerCase(),
    market: (key.market ?? '').trim().toLowerCase(),
  };
}

export function lookupKeyString(key: LookupKey): string {
  const k = normaliseLookupKey(key);
  return `${k.kind}\u0000${k.idType}\u0000${k.value}\u0000${k.market}`;
}

export class LookupCache {
  private readonly flights = new SingleFlight();
  private counts = { hits: 0, misses: 0, negativeHits: 0 };

  constructor(
    private readonly db: Db,
    private readonly schema: string,
    readonly ttls: CacheTtls = defaultCacheTtls,
  ) {}

  private get table(): string {
    return `"${this.schema}".lookup_cache`;
  }

  /** Fresh entries for the keys that have one, by lookupKeyString. An absent key means: ask the partner. */
  async getMany(keys: LookupKey[], now = new Date()): Promise<Map<string, CacheEntry>> {
    if (keys.length === 0) return new Map();
    const wanted = keys.map(normaliseLookupKey);
    const { rows } = await this.db.query<{
      kind: LookupSubject;
      id_type: string;
      value: string;
      market: string;
      hit: boolean;
      response: unknown;
      fetched_at: Date;
      expires_at: Date;
    }>(
      `SELECT c.* FROM jsonb_to_recordset($1::jsonb) AS k(kind text, "idType" text, value text, market text)
       JOIN ${this.table} c ON c.kind = k.kind AND c.id_type = k."idType" AND c.value = k.value AND c.market = k.market
       WHERE c.expires_at > $2::timestamptz`,
      [JSON.stringify(wanted), now.toISOString()],
    );
    const found = new Map<string, CacheEntry>();
    for (const r of rows) {
      const key: LookupKey = { kind: r.kind, idType: r.id_type, value: r.value, market: r.market };
      const base = { key, fetchedAt: new Date(r.fetched_at), expiresAt: new Date(r.expires_at) };
      found.set(lookupKeyString(key), r.hit ? { ...base, hit: true, response: r.response } : { ...base, hit: false });
    }
    for (const k of wanted) {
      const entry = found.get(lookupKeyString(k));
      if (!entry) this.counts.misses++;
      else if (entry.hit) this.counts.hits++;
      else this.counts.negativeHits++;
    }
    return found;
  }

  async get(key: LookupKey, now = new Date()): Promise<CacheEntry | undefined> {
    return (await this.getMany([key], now)).get(lookupKeyString(key));
  }

  /** Stores answers; `response: undefined` (or `hit: false`) stores a miss with the miss TTL. */
  async putMany(entries: { key: LookupKey; hit: boolean; response?: unknown }[], now = new Date()): Promise<void> {
    if (entries.length === 0) return;
    const rows = entries.map((e) => {
      if (e.hit && e.response === undefined) {
        throw new StoreError(
          'invalid_input',
          `cache entry for ${e.key.kind} ${e.key.idType} is a hit without a response.`,
          { field: 'response' },
        );
      }
      const ttl = e.hit ? this.ttls.hitSeconds : this.ttls.missSeconds;
      return {
        ...normaliseLookupKey(e.key),
        hit: e.hit,
        response: e.hit ? e.response : null,
        expires_at: new Date(now.getTime() + ttl * 1000).toISOString(),
      };
    });
    const unique = [...new Map(rows.map((r) => [lookupKeyString(r), r])).values()];
    await this.db.query(
      `INSERT INTO ${this.table} (kind, id_type, value, market, hit, response, fetched_at, expires_at)
       SELECT kind, "idType", value, market, hit, response, $2::timestamptz, expires_at
       FROM jsonb_to_recordset($1::jsonb) AS r(kind text, "idType" text, value text, market text,
         hit boolean, response jsonb, expires_at timestamptz)
       ON CONFLICT (kind, id_type, value, market) DO UPDATE SET
         hit = EXCLUDED.hit, response = EXCLUDED.response,
         fetched_at = EXCLUDED.fetched_at, expires_at = EXCLUDED.expires_at`,
      [JSON.stringify(unique), now.toISOString()],
    );
  }

  /**
   * Makes these entries stale now, so the next lookup asks the partner (a job-change sweep wants the
   * partner's answer of today, not one cached before the person moved). Returns how many there were.
   */
  async expire(keys: LookupKey[], now = new Date()): Promise<number> {
    if (keys.length === 0) return 0;
    const { rows } = await this.db.query<{ n: number }>(
      `WITH gone AS (
         UPDATE ${this.table} c SET expires_at = $2::timestamptz
         FROM jsonb_to_recordset($1::jsonb) AS k(kind text, "idType" text, value text, market text)
         WHERE c.kind = k.kind AND c.id_type = k."idType" AND c.value = k.value
           AND c.market = k.market AND c.expires_at > $2::timestamptz
         RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [JSON.stringify(keys.map(normaliseLookupKey)), now.toISOString()],
    );
    return rows[0]?.n ?? 0;
  }

  /** Runs `fn` once for concurrent callers of the same key (in this process). */
  singleFlight<T>(key: LookupKey | string, fn: () => Promise<T>): Promise<T> {
    return this.flights.run(typeof key === 'string' ? key : lookupKeyString(key), fn);
  }

  /** Removes expired entries; returns how many. */
  async prune(now = new Date()): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM ${this.table} WHERE expires_at <= $1::timestamptz RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [now.toISOString()],
    );
    return rows[0]?.n ?? 0;
  }

  /** Lookups answered from the cache (hits, negativeHits) and not (misses) since start. */
  stats(): { hits: number; negativeHits: number; misses: number } {
    return { ...this.counts };
  }
}
