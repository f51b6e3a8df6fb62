/**
 * The write step: a batch of planned writes in one CRM call. The match-property values about to be
 * written are kept in Postgres first: the CRM announces them as changes, possibly before the write is
 * settled, and the intake must know them for the service's own. Returns the records written (a record
 * with only a company link to make counts as written) and, apart, each record the CRM refused and why;
 * a call that fails as a whole throws.
 */
import type { CrmConnector } from '../../core/connector.js';
import type { Priority } from '../../core/limiter.js';
import type { CompiledMapping } from '../../mapping/compile.js';
import type { JobFailure, PendingWritesPort } from '../ports.js';

export interface WriteContext {
  connector: Pick<CrmConnector, 'connection' | 'writeRecords'>;
  objectType: string;
  /** Where the identity values of a write are kept until it is settled (the intake tells their echoes). */
  writing?: Pick<PendingWritesPort, 'add'> | undefined;
}

export interface Written<T> {
  written: T[];
  refused: { item: T; failure: JobFailure }[];
}

export async function writeBatch<T extends { recordId: string; properties: Record<string, string> }>(
  ctx: WriteContext,
  items: T[],
  mapping: CompiledMapping,
  priority: Priority,
): Promise<Written<T>> {
  // A record that only needs its company link (HubSpot association) has nothing to update.
  const updates = items.filter((w) => Object.keys(w.properties).length > 0);
  if (updates.length === 0) return { written: items, refused: [] };
  await keepIdentityWrites(ctx, updates, mapping);
  const results = await ctx.connector.writeRecords(
    ctx.objectType,
    updates.map((w) => ({ id: w.recordId, properties: w.properties })),
    { priority },
  );
  const resultOf = new Map(updates.map((w, i) => [w, results[i]]));
  const out: Written<T> = { written: [], refused: [] };
  for (const item of items) {
    const result = resultOf.get(item);
    if (!resultOf.has(item) || result?.ok) {
      out.written.push(item);
      continue;
    }
    out.refused.push({
      item,
      failure: {
        code: result?.error?.code ?? 'write_failed',
        message: result?.error?.message ?? 'the CRM gave no result for this record',
        retryable: result?.error?.retryable ?? true,
      },
    });
  }
  return out;
}

async function keepIdentityWrites(
  ctx: WriteContext,
  updates: { recordId: string; properties: Record<string, string> }[],
  mapping: CompiledMapping,
): Promise<void> {
  if (!ctx.writing) return;
  const identity = new Set(mapping.document.match.map((m) => m.property));
  const values = updates.flatMap((w) => {
    const kept = Object.entries(w.properties).filter(([property]) => identity.has(property));
    return kept.length ? [{ recordId: w.recordId, values: Object.fromEntries(kept) }] : [];
  });
  await ctx.writing.add(ctx.connector.connection, ctx.objectType, values);
}
