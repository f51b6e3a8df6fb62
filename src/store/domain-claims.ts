/**
 * Per-domain claims on creating a company, shared by every instance through Postgres. Whoever inserts
 * the claim creates the company and records its id; the others read the id, or wait for it. A claim
 * whose holder died before recording an id can be taken over once it is older than the caller's limit.
 */
import type { ConnectionAccounts } from './connection-accounts.js';
import type { Db } from './db.js';

export type ClaimResult =
  /** This caller holds the claim and must create the company, then call `recordCompany` (or `release`). */
  | { kind: 'mine' }
  /** The company exists already: created by whoever held the claim. */
  | { kind: 'created'; companyId: string }
  /** Someone else holds the claim and has not created the company yet. */
  | { kind: 'held' };

export interface DuplicateDomain {
  connection: string;
  domain: string;
  companyIds: string[];
  seenAt: Date;
}

export class DomainClaims {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly accounts: ConnectionAccounts,
  ) {}

  /** Company ids already created for these domains. */
  async created(connection: string, domains: string[]): Promise<Map<string, string>> {
    if (domains.length === 0) return new Map();
    const { rows } = await this.db.query<{ domain: string; company_id: string }>(
      `SELECT domain, company_id FROM "${this.schema}".company_claim
        WHERE connection = $1 AND account = $3 AND domain = ANY($2::text[]) AND company_id IS NOT NULL`,
      [connection, domains, this.accounts.of(connection)],
    );
    return new Map(rows.map((r) => [r.domain, r.company_id]));
  }

  /** Claims each domain for `holder`, taking over claims older than `staleMs` that never got an id. */
  async claim(
    connection: string,
    wanted: string[],
    holder: string,
    staleMs: number,
  ): Promise<Map<string, ClaimResult>> {
    const domains = [...new Set(wanted)];
    const out = new Map<string, ClaimResult>();
    if (domains.length === 0) return out;
    const { rows } = await this.db.query<{
      domain: string;
      company_id: string | null;
      claimed_by: string;
      mine: boolean;
    }>(
      `INSERT INTO "${this.schema}".company_claim AS c (connection, account, domain, claimed_by)
         SELECT $1, $5, d, $3 FROM unnest($2::text[]) AS d
       ON CONFLICT (connection, account, domain) DO UPDATE
         SET claimed_by = EXCLUDED.claimed_by, claimed_at = now()
         WHERE c.company_id IS NULL AND c.claimed_at < now() - make_interval(secs => $4::double precision / 1000)
       RETURNING domain, company_id, claimed_by, true AS mine`,
      [connection, domains, holder, staleMs, this.accounts.of(connection)],
    );
    for (const r of rows) out.set(r.domain, { kind: 'mine' });
    const others = domains.filter((d) => !out.has(d));
    if (others.length) {
      const existing = await this.db.query<{ domain: string; company_id: string | null }>(
        `SELECT domain, company_id FROM "${this.schema}".company_claim
          WHERE connection = $1 AND account = $3 AND domain = ANY($2::text[])`,
        [connection, others, this.accounts.of(connection)],
      );
      for (const r of existing.rows)
        out.set(r.domain, r.company_id ? { kind: 'created', companyId: r.company_id } : { kind: 'held' });
      // A claim that vanished between the two statements (released) is simply held for now: asked again later.
      for (const d of others) if (!out.has(d)) out.set(d, { kind: 'held' });
    }
    return out;
  }

  /** Records the company created under a claim this holder owns. */
  async recordCompany(connection: string, domain: string, holder: string, companyId: string): Promise<void> {
    await this.db.query(
      `UPDATE "${this.schema}".company_claim SET company_id = $4, created_at = now()
        WHERE connection = $1 AND account = $5 AND domain = $2 AND claimed_by = $3`,
      [connection, domain, holder, companyId, this.accounts.of(connection)],
    );
  }

  /**
   * Says the holder is still at work on these claims (looking the companies up, creating them), so no
   * one takes them over as stale while it lives.
   */
  async touch(connection: string, domains: string[], holder: string): Promise<void> {
    if (domains.length === 0) return;
    await this.db.query(
      `UPDATE "${this.schema}".company_claim SET claimed_at = now()
        WHERE connection = $1 AND account = $4 AND domain = ANY($2::text[]) AND claimed_by = $3 AND company_id IS NULL`,
      [connection, domains, holder, this.accounts.of(connection)],
    );
  }

  /** Gives up a claim without a company (the creation failed), so the next caller may try. */
  async release(connection: string, domain: string, holder: string): Promise<void> {
    await this.db.query(
      `DELETE FROM "${this.schema}".company_claim
        WHERE connection = $1 AND account = $4 AND domain = $2 AND claimed_by = $3 AND company_id IS NULL`,
      [connection, domain, holder, this.accounts.of(connection)],
    );
  }

  async reportDuplicate(connection: string, domain: string, companyIds: string[]): Promise<void> {
    await this.db.query(
      `INSERT INTO "${this.schema}".company_duplicate (connection, account, domain, company_ids) VALUES ($1, $4, $2, $3)
       ON CONFLICT (connection, account, domain) DO UPDATE SET company_ids = EXCLUDED.company_ids, seen_at = now()`,
      [connection, domain, companyIds, this.accounts.of(connection)],
    );
  }

  /** Companies created per connection, and records linked with a company. */
  async counts(): Promise<{ created: Record<string, number>; linkedRecords: number }> {
    const created = await this.db.query<{ connection: string; n: number }>(
      `SELECT connection, count(*)::int AS n FROM "${this.schema}".company_claim
        WHERE company_id IS NOT NULL AND account = COALESCE($1::jsonb ->> connection, '') GROUP BY connection`,
      [this.accounts.json()],
    );
    const linked = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${this.schema}".enrichment_state
        WHERE company_id IS NOT NULL AND account = COALESCE($1::jsonb ->> connection, '')`,
      [this.accounts.json()],
    );
    return {
      created: Object.fromEntries(created.rows.map((r) => [r.connection, r.n])),
      linkedRecords: linked.rows[0]?.n ?? 0,
    };
  }

  async reportNearMatch(connection: string, domain: string, name: string, companyIds: string[]): Promise<void> {
    await this.db.query(
      `INSERT INTO "${this.schema}".company_near_match (connection, account, domain, name, company_ids)
       VALUES ($1, $5, $2, $3, $4)
       ON CONFLICT (connection, account, domain) DO UPDATE
         SET name = EXCLUDED.name, company_ids = EXCLUDED.company_ids, seen_at = now()`,
      [connection, domain, name, companyIds, this.accounts.of(connection)],
    );
  }

  async nearMatches(limit = 100): Promise<(DuplicateDomain & { name: string })[]> {
    const { rows } = await this.db.query<{
      connection: string;
      domain: string;
      name: string;
      company_ids: string[];
      seen_at: Date;
    }>(
      `SELECT connection, domain, name, company_ids, seen_at FROM "${this.schema}".company_near_match
        WHERE account = COALESCE($2::jsonb ->> connection, '') ORDER BY seen_at DESC LIMIT $1`,
      [limit, this.accounts.json()],
    );
    return rows.map((r) => ({
      connection: r.connection,
      domain: r.domain,
      name: r.name,
      companyIds: r.company_ids,
      seenAt: new Date(r.seen_at),
    }));
  }

  async duplicates(limit = 100): Promise<DuplicateDomain[]> {
    const { rows } = await this.db.query<{ connection: string; domain: string; company_ids: string[]; seen_at: Date }>(
      `SELECT connection, domain, company_ids, seen_at FROM "${this.schema}".company_duplicate
        WHERE account = COALESCE($2::jsonb ->> connection, '') ORDER BY seen_at DESC LIMIT $1`,
      [limit, this.accounts.json()],
    );
    return rows.map((r) => ({
      connection: r.connection,
      domain: r.domain,
      companyIds: r.company_ids,
      seenAt: new Date(r.seen_at),
    }));
  }
}
