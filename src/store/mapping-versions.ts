/**
 * Every saved mapping document, per CRM object, with author, time and comment. Exactly one version
 * per object is active (a partial unique index holds that); rolling back is activating an older one.
 */
import type { Db } from './db.js';
import { StoreError } from './errors.js';

export interface MappingVersion {
  id: number;
  crm: string;
  objectType: string;
  /** 1, 2, 3 ... per CRM object. */
  version: number;
  document: string;
  format: 'yaml' | 'json';
  author: string;
  comment: string;
  createdAt: Date;
  active: boolean;
}

export interface SaveMappingInput {
  crm: string;
  objectType: string;
  document: string;
  format?: 'yaml' | 'json';
  author: string;
  comment?: string;
  /** Make it the active version at once (default true). */
  activate?: boolean;
}

interface Row {
  id: string;
  crm: string;
  object_type: string;
  version: number;
  document: string;
  format: 'yaml' | 'json';
  author: string;
  comment: string;
  created_at: Date;
  active: boolean;
}

const toVersion = (r: Row): MappingVersion => ({
  id: Number(r.id),
  crm: r.crm,
  objectType: r.object_type,
  version: r.version,
  document: r.document,
  format: r.format,
  author: r.author,
  comment: r.comment,
  createdAt: new Date(r.created_at),
  active: r.active,
});

export class MappingVersions {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
  ) {}

  private get table(): string {
    return `"${this.schema}".mapping_version`;
  }

  async save(input: SaveMappingInput): Promise<MappingVersion> {
    for (const field of ['crm', 'objectType', 'document', 'author'] as const) {
      if (!input[field]?.trim())
        throw new StoreError('invalid_input', `mapping version needs a non-empty ${field}.`, { field });
    }
    return this.db.transaction(async (tx) => {
      // Serialises saves of one object so two admins saving at once get versions n and n+1.
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
        `mapping ${this.schema} ${input.crm} ${input.objectType}`,
      ]);
      const activate = input.activate ?? true;
      if (activate) {
        await tx.query(`UPDATE ${this.table} SET active = false WHERE crm = $1 AND object_type = $2 AND active`, [
          input.crm,
          input.objectType,
        ]);
      }
      const { rows } = await tx.query<Row>(
        `INSERT INTO ${this.table} (crm, object_type, version, document, format, author, comment, active)
         SELECT $1, $2, coalesce(max(version), 0) + 1, $3, $4, $5, $6, $7
           FROM ${this.table} WHERE crm = $1 AND object_type = $2
         RETURNING *`,
        [
          input.crm,
          input.objectType,
          input.document,
          input.format ?? 'yaml',
          input.author,
          input.comment ?? '',
          activate,
        ],
      );
      return toVersion(rows[0] as Row);
    });
  }

  /** Versions of one CRM object, newest first. */
  async list(crm: string, objectType: string): Promise<MappingVersion[]> {
    const { rows } = await this.db.query<Row>(
      `SELECT * FROM ${this.table} WHERE crm = $1 AND object_type = $2 ORDER BY version DESC`,
      [crm, objectType],
    );
    return rows.map(toVersion);
  }

  async active(crm: string, objectType: string): Promise<MappingVersion | undefined> {
    const { rows } = await this.db.query<Row>(
      `SELECT * FROM ${this.table} WHERE crm = $1 AND object_type = $2 AND active`,
      [crm, objectType],
    );
    return rows[0] ? toVersion(rows[0]) : undefined;
  }

  /** Every active version, one per CRM object (start-up loads these). */
  async allActive(): Promise<MappingVersion[]> {
    const { rows } = await this.db.query<Row>(`SELECT * FROM ${this.table} WHERE active ORDER BY crm, object_type`);
    return rows.map(toVersion);
  }

  async get(crm: string, objectType: string, version: number): Promise<MappingVersion | undefined> {
    const { rows } = await this.db.query<Row>(
      `SELECT * FROM ${this.table} WHERE crm = $1 AND object_type = $2 AND version = $3`,
      [crm, objectType, version],
    );
    return rows[0] ? toVersion(rows[0]) : undefined;
  }

  /** Makes `version` the active one (a rollback when it is older than the current one). */
  async activate(crm: string, objectType: string, version: number): Promise<MappingVersion> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`mapping ${this.schema} ${crm} ${objectType}`]);
      const { rows: target } = await tx.query<Row>(
        `SELECT * FROM ${this.table} WHERE crm = $1 AND object_type = $2 AND version = $3`,
        [crm, objectType, version],
      );
      if (!target[0]) {
        throw new StoreError(
          'not_found',
          `${crm} ${objectType} has no mapping version ${version}; list the versions to pick one that exists.`,
          { crm, objectType, version },
        );
      }
      await tx.query(`UPDATE ${this.table} SET active = false WHERE crm = $1 AND object_type = $2 AND active`, [
        crm,
        objectType,
      ]);
      const { rows } = await tx.query<Row>(`UPDATE ${this.table} SET active = true WHERE id = $1 RETURNING *`, [
        target[0].id,
      ]);
      return toVersion(rows[0] as Row);
    });
  }
}
