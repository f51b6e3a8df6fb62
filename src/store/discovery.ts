/**
 * Discovery's state in Postgres: saved personas, and one claim per partner person so that no run, on
 * any instance, creates the same person twice.
 */
import type { ConnectionAccounts } from './connection-accounts.js';
import type { Db } from './db.js';

export interface PersonaRow {
  name: string;
  description: string | null;
  filters: Record<string, string[]>;
  createdAt: Date;
  updatedAt: Date;
}

export type PersonClaim =
  /** This caller holds the claim: look the person up, then `recordAction` (or `release`). */
  | { kind: 'mine' }
  /** Discovery already acted on this person: created or linked `recordId`. */
  | { kind: 'done'; action: string; recordId: string | null }
  /** Another run holds the claim right now. */
  | { kind: 'held' };

export class DiscoveryStore {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly accounts: ConnectionAccounts,
  ) {}

  async personas(): Promise<PersonaRow[]> {
    const { rows } = await this.db.query<Record<string, unknown>>(
      `SELECT * FROM "${this.schema}".persona ORDER BY name`,
    );
    return rows.map(toPersona);
  }

  async persona(name: string): Promise<PersonaRow | undefined> {
    const { rows } = await this.db.query<Record<string, unknown>>(
      `SELECT * FROM "${this.schema}".persona WHERE name = $1`,
      [name],
    );
    return rows[0] ? toPersona(rows[0]) : undefined;
  }

  /** Creates or replaces a persona; true when it is new. */
  async savePersona(name: string, filters: Record<string, string[]>, description: string | null): Promise<boolean> {
    const { rows } = await this.db.query<{ created: boolean }>(
      `INSERT INTO "${this.schema}".persona (name, filters, description) VALUES ($1, $2::jsonb, $3)
       ON CONFLICT (name) DO UPDATE SET filters = EXCLUDED.filters, description = EXCLUDED.description,
         updated_at = now()
       RETURNING (xmax = 0) AS created`,
      [name, JSON.stringify(filters), description],
    );
    return rows[0]?.created === true;
  }

  async deletePersona(name: string): Promise<boolean> {
    const { rows } = await this.db.query(`DELETE FROM "${this.schema}".persona WHERE name = $1 RETURNING name`, [name]);
    return rows.length > 0;
  }

  /** What discovery did for these people already (created or linked), by person id. */
  async done(
    connection: string,
    personIds: string[],
  ): Promise<Map<string, { action: string; recordId: string | null }>> {
    if (personIds.length === 0) return new Map();
    const { rows } = await this.db.query<{ person_id: string; action: string; record_id: string | null }>(
      `SELECT person_id, action, record_id FROM "${this.schema}".discovered_person
        WHERE connection = $1 AND account = $3 AND person_id = ANY($2::text[]) AND settled_at IS NOT NULL`,
      [connection, personIds, this.accounts.of(connection)],
    );
    return new Map(rows.map((r) => [r.person_id, { action: r.action, recordId: r.record_id }]));
  }

  /** Claims a person for `holder`, taking over an open claim older than `staleMs`. */
  async claim(
    connection: string,
    personId: string,
    objectType: string,
    companyId: string,
    holder: string,
    staleMs: number,
  ): Promise<PersonClaim> {
    const { rows } = await this.db.query(
      `INSERT INTO "${this.schema}".discovered_person AS d
         (connection, account, person_id, object_type, company_id, claimed_by)
       VALUES ($1, $7, $2, $3, $4, $5)
       ON CONFLICT (connection, account, person_id) DO UPDATE SET
         claimed_by = EXCLUDED.claimed_by, claimed_at = now(),
         company_id = EXCLUDED.company_id
         WHERE d.settled_at IS NULL AND d.claimed_at <= now() - make_interval(secs => $6::double precision / 1000)
       RETURNING person_id`,
      [connection, personId, objectType, companyId, holder, staleMs, this.accounts.of(connection)],
    );
    if (rows.length > 0) return { kind: 'mine' };
    const existing = await this.db.query<{ action: string | null; record_id: string | null; settled_at: Date | null }>(
      `SELECT action, record_id, settled_at FROM "${this.schema}".discovered_person
        WHERE connection = $1 AND account = $3 AND person_id = $2`,
      [connection, personId, this.accounts.of(connection)],
    );
    const row = existing.rows[0];
    return row?.settled_at
      ? { kind: 'done', action: row.action ?? 'skipped', recordId: row.record_id }
      : { kind: 'held' };
  }

  /** Records what discovery did with a claimed person: `created`, `linked`, or a skip reason code. */
  async recordAction(
    connection: string,
    personId: string,
    holder: string,
    action: string,
    recordId: string | null,
    persona: string | null,
  ): Promise<void> {
    await this.db.query(
      `UPDATE "${this.schema}".discovered_person SET action = $4, record_id = $5, persona = $6, settled_at = now()
        WHERE connection = $1 AND account = $7 AND person_id = $2 AND claimed_by = $3`,
      [connection, personId, holder, action, recordId, persona, this.accounts.of(connection)],
    );
  }

  /** Gives a claim back open (the run stopped before it spent anything on the person). */
  async release(connection: string, personId: string, holder: string): Promise<void> {
    await this.db.query(
      `DELETE FROM "${this.schema}".discovered_person
        WHERE connection = $1 AND account = $4 AND person_id = $2 AND claimed_by = $3 AND settled_at IS NULL`,
      [connection, personId, holder, this.accounts.of(connection)],
    );
  }
}

function toPersona(r: Record<string, unknown>): PersonaRow {
  return {
    name: String(r.name),
    description: (r.description as string | null) ?? null,
    filters: (typeof r.filters === 'string' ? JSON.parse(r.filters) : r.filters) as Record<string, string[]>,
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}
