/**
 * Which rows of a file the CRM already holds: the rows' e-mail addresses, domains and partner ids are
 * looked for through the connector's record finder, a chunk of rows in one search, and each distinct
 * row is asked about once per file (its answer kept by the row's identity, which a duplicate shares).
 */
import type { CrmConnector } from '../../../core/connector.js';
import type { CompiledMapping } from '../../../mapping/compile.js';
import { resolveMatchValue } from '../../../mapping/match-keys.js';
import type { LookupKind } from '../../../mapping/format.js';
import type { FileRow } from './file-rows.js';

/** Keys the CRM holds as they are typed, and a record finder can search for. */
const FINDABLE = new Set<string>(['work_email', 'personal_email', 'fqdn', 'website', 'id']);

export class RowsInCrm {
  /** By row identity: the CRM record holding one of its keys, or null when none does. */
  private readonly known = new Map<string, string | null>();

  constructor(
    private readonly connector: CrmConnector,
    private readonly objectType: string,
    private readonly mapping: CompiledMapping,
  ) {}

  /** Whether the connector can look records up at all; without it no row is found in the CRM. */
  get searchable(): boolean {
    return !!this.connector.findRecords;
  }

  /** The record id of each row the CRM holds (by identity), asking the CRM about rows not asked about yet. */
  async check(rows: readonly FileRow[]): Promise<void> {
    if (!this.connector.findRecords) return;
    const asking = rows.filter((r) => !r.invalid && !this.known.has(r.identity));
    const byProperty = new Map<string, Set<string>>();
    const kinds = new Map<string, LookupKind>();
    for (const row of asking) {
      for (const key of row.keys) {
        if (!FINDABLE.has(key.by)) continue;
        const property = this.mapping.document.match.find((m) => m.by === key.by)?.property;
        if (!property) continue;
        kinds.set(property, key.by as LookupKind);
        const values = byProperty.get(property) ?? new Set<string>();
        values.add(key.value);
        byProperty.set(property, values);
      }
    }
    if (byProperty.size === 0) {
      for (const row of asking) this.known.set(row.identity, null);
      return;
    }
    const found = await this.connector.findRecords(
      this.objectType,
      [...byProperty].map(([property, values]) => ({ property, values: [...values] })),
      [...byProperty.keys()],
      { priority: 'bulk' },
    );
    // A key value (as the lookup normalises it) -> the oldest record holding it: the one the CRM shows first.
    const holders = new Map<string, string>();
    for (const record of found) {
      for (const [property, by] of kinds) {
        const value = resolveMatchValue(by, record.properties[property]);
        if (value !== undefined && !holders.has(`${property}|${value}`)) holders.set(`${property}|${value}`, record.id);
      }
    }
    for (const row of asking) {
      let id: string | null = null;
      for (const key of row.keys) {
        const property = this.mapping.document.match.find((m) => m.by === key.by)?.property;
        id = (property && holders.get(`${property}|${key.value}`)) || null;
        if (id) break;
      }
      this.known.set(row.identity, id);
    }
  }

  /** The record holding the row, once `check` has seen it; null when none does. */
  recordOf(row: FileRow): string | null {
    return this.known.get(row.identity) ?? null;
  }
}
