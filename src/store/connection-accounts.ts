/**
 * Which CRM account (HubSpot portal, Salesforce org) each connection is on at this start, and the
 * accounts it was on before. Every store class that keeps a connection's state asks `of(connection)`
 * and writes and reads only that account's rows, so record ids that repeat across accounts never mix.
 *
 * Rows made before any account was bound carry the empty account (migration 012); the first bind of a
 * connection gives them its account, so an upgraded database keeps its state when the account is the same.
 */
import type { Db } from './db.js';

/** The account of rows made before the connection's account was known (see the migration). */
export const UNBOUND_ACCOUNT = '';

/** Tables whose rows name a connection's account, each with the connection and account columns. */
export const ACCOUNT_TABLES = [
  'received_event',
  'enrichment_state',
  'audit_log',
  'company_claim',
  'company_duplicate',
  'company_near_match',
  'discovered_person',
  'created_record',
  'pending_write',
  'workflow_callback',
  'record_roles',
  'job_changes',
] as const;

export interface AccountBinding {
  connection: string;
  account: string;
  /** The account the connection's state belonged to before this start, when it was another one. */
  previous?: string;
  /** Rows made before any account was known that now belong to this one (first start after upgrade). */
  adopted: number;
}

export interface SeenAccount {
  connection: string;
  crm: string;
  account: string;
  firstSeen: Date;
  lastSeen: Date;
}

export class ConnectionAccounts {
  private readonly bound = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly schema: string,
  ) {}

  /** The account the connection is bound to; the unbound account before `bind` (tools and tests that never bind). */
  of(connection: string): string {
    return this.bound.get(connection) ?? UNBOUND_ACCOUNT;
  }

  /**
   * The name a setting is kept under. A setting named for a bound connection (`<kind>:<connection>:...`:
   * a sweep's watermark, a backfill's run and cursor) is its account's, kept as `<name>@<account>`.
   */
  settingKey(key: string): string {
    const connection = key.split(':')[1];
    const account = connection === undefined ? UNBOUND_ACCOUNT : this.of(connection);
    return account === UNBOUND_ACCOUNT ? key : `${key}@${account}`;
  }

  /**
   * The bound accounts as a JSON object (connection to account), for statements over every connection:
   * `account = COALESCE($n::jsonb ->> connection, '')` keeps each connection's current account's rows.
   */
  json(): string {
    return JSON.stringify(Object.fromEntries(this.bound));
  }

  /**
   * Records that the connection is on `account` from now on, and says whether it was on another one.
   * At the connection's first bind, rows made before any account was known become this account's.
   */
  async bind(connection: string, crm: string, account: string): Promise<AccountBinding> {
    if (account === UNBOUND_ACCOUNT) throw new Error(`the account of connection ${connection} is empty`);
    const s = `"${this.schema}"`;
    const binding = await this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`crm-enrich account ${this.schema} ${connection}`]);
      const { rows } = await tx.query<{ account: string }>(
        `SELECT account FROM ${s}.connection_account WHERE connection = $1 ORDER BY last_seen DESC LIMIT 1`,
        [connection],
      );
      const previous = rows[0]?.account;
      let adopted = 0;
      if (previous === undefined) {
        for (const table of ACCOUNT_TABLES) {
          const { rows: n } = await tx.query<{ n: number }>(
            `WITH moved AS (UPDATE ${s}.${table} SET account = $2 WHERE connection = $1 AND account = $3 RETURNING 1)
             SELECT count(*)::int AS n FROM moved`,
            [connection, account, UNBOUND_ACCOUNT],
          );
          adopted += n[0]?.n ?? 0;
        }
        const { rows: n } = await tx.query<{ n: number }>(
          `WITH moved AS (UPDATE ${s}.setting SET key = key || '@' || $2
                           WHERE split_part(key, ':', 2) = $1 AND strpos(key, '@') = 0 RETURNING 1)
           SELECT count(*)::int AS n FROM moved`,
          [connection, account],
        );
        adopted += n[0]?.n ?? 0;
      }
      await tx.query(
        `INSERT INTO ${s}.connection_account (connection, crm, account) VALUES ($1, $2, $3)
         ON CONFLICT (connection, account) DO UPDATE SET crm = EXCLUDED.crm, last_seen = now()`,
        [connection, crm, account],
      );
      return { connection, account, adopted, ...(previous && previous !== account ? { previous } : {}) };
    });
    this.bound.set(connection, account);
    return binding;
  }

  /** Every account seen behind each connection, the newest first. */
  async seen(): Promise<SeenAccount[]> {
    const { rows } = await this.db.query<{
      connection: string;
      crm: string;
      account: string;
      first_seen: Date;
      last_seen: Date;
    }>(`SELECT * FROM "${this.schema}".connection_account ORDER BY connection, last_seen DESC`);
    return rows.map((r) => ({
      connection: r.connection,
      crm: r.crm,
      account: r.account,
      firstSeen: new Date(r.first_seen),
      lastSeen: new Date(r.last_seen),
    }));
  }
}
