/**
 * How many of the records crm-enrich has worked on have each mapped property filled, before its first
 * run and now, as far as its own trail shows. Before: the value the first audit row of the property
 * found. Now: what the newest row left (the value written, or the one kept). A property without audit
 * rows counts as filled when crm-enrich holds it as written (it was already what the partner says).
 * A property nobody wrote and crm-enrich never held is unknown and counts as empty, so both shares
 * are lower bounds.
 */
import type { ConnectionAccounts } from './connection-accounts.js';
import type { Db } from './db.js';

export interface CoverageRow {
  property: string;
  /** Records crm-enrich has state for (every status). */
  records: number;
  before: number;
  after: number;
}

export class FieldCoverage {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly accounts: ConnectionAccounts,
  ) {}

  async of(connection: string, objectType: string, properties: readonly string[]): Promise<CoverageRow[]> {
    if (properties.length === 0) return [];
    const s = `"${this.schema}"`;
    const { rows } = await this.db.query<{ property: string; records: number; before: number; after: number }>(
      `WITH firsts AS (
         SELECT DISTINCT ON (record_id, property) record_id, property, old_value AS value
         FROM ${s}.audit_log
         WHERE connection = $1 AND account = $4 AND object_type = $2 AND property = ANY($3::text[])
         ORDER BY record_id, property, id),
       lasts AS (
         SELECT DISTINCT ON (record_id, property) record_id, property,
           CASE WHEN outcome = 'write' THEN new_value ELSE old_value END AS value
         FROM ${s}.audit_log
         WHERE connection = $1 AND account = $4 AND object_type = $2 AND property = ANY($3::text[])
         ORDER BY record_id, property, id DESC)
       SELECT p.property, count(r.record_id)::int AS records,
         count(*) FILTER (WHERE COALESCE(
           CASE WHEN f.record_id IS NULL THEN r.written->>p.property ELSE f.value END, '') <> '')::int AS before,
         count(*) FILTER (WHERE COALESCE(
           CASE WHEN l.record_id IS NULL THEN r.written->>p.property ELSE l.value END, '') <> '')::int AS after
       FROM unnest($3::text[]) AS p(property)
       JOIN ${s}.enrichment_state r ON r.connection = $1 AND r.account = $4 AND r.object_type = $2
       LEFT JOIN firsts f ON f.record_id = r.record_id AND f.property = p.property
       LEFT JOIN lasts l ON l.record_id = r.record_id AND l.property = p.property
       GROUP BY p.property`,
      [connection, objectType, [...properties], this.accounts.of(connection)],
    );
    const byProperty = new Map(rows.map((r) => [r.property, r]));
    // A property of an object with no records yet still gets its row (all zero), in the mapping's order.
    return properties.map((property) => {
      const r = byProperty.get(property);
      return { property, records: r?.records ?? 0, before: r?.before ?? 0, after: r?.after ?? 0 };
    });
  }
}
