/**
 * What the end-to-end tests look at from outside the service: calls the sandboxes served, the rows
 * the service stored in its schema, and a moment when no work is left in flight.
 */
import pg from 'pg';
import { SERVER_URL } from '../support/db.js';
import type { SandboxWrite } from '../../connectors/hubspot/sandbox/server.js';
import { eventually, type RunningService, type Sandboxes } from './stack.js';
import type { Stack } from './use-stack.js';

/** HubSpot sandbox calls whose endpoint ends with `suffix`, e.g. `contacts/batch/update`. */
export function hubspotCalls(sandboxes: Sandboxes, suffix: string): number {
  return Object.entries(sandboxes.hubspot.stats().byEndpoint)
    .filter(([endpoint]) => endpoint.endsWith(suffix))
    .reduce((n, [, calls]) => n + calls, 0);
}

/** Requests the partner sandbox answered (injected failures included), over every key. */
export function partnerServed(sandboxes: Sandboxes): number {
  return Object.values(sandboxes.partner.stats().keys).reduce((n, k) => n + k.served, 0);
}

/**
 * Property values written to one HubSpot record more than once with the same value (a change written
 * twice), among `writes`, of one object type or all; the enrichment time stamp, new on every write, aside.
 */
export function duplicateWrites(writes: SandboxWrite[], objectType?: SandboxWrite['objectType']): number {
  const keys = writes
    .filter((w) => !objectType || w.objectType === objectType)
    .flatMap((w) =>
      Object.entries(w.properties)
        .filter(([p]) => p !== 'crm_enrich_enriched_at')
        .map(([p, v]) => `${w.id} ${p}=${String(v)}`),
    );
  return keys.length - new Set(keys).size;
}

/** Runs SQL against the service's own schema (table names unqualified). */
export async function schemaQuery<T extends Record<string, unknown> = Record<string, unknown>>(
  running: RunningService,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const { rows } = await running.service.parts.store.db.query<T>(
    sql.replaceAll('$schema', `"${running.schema}"`),
    params,
  );
  return rows;
}

/** Jobs waiting or claimed on the enrichment queues (the dead letter left out). */
export async function jobsInFlight(running: RunningService): Promise<number> {
  const counts = await running.service.parts.store.queue.counts();
  return counts.filter((q) => q.queue !== 'dead_letter').reduce((n, q) => n + q.depth + q.active, 0);
}

/** Waits until the CRM sandboxes have delivered their webhooks and the service has no job left. */
export async function settled({ running, sandboxes }: Stack, timeoutMs = 10_000): Promise<void> {
  await sandboxes.hubspot.webhooksIdle();
  await eventually(
    async () => ((await jobsInFlight(running)) === 0 ? true : undefined),
    timeoutMs,
    'the queues to drain',
  );
}

/** Drops the schema a test file's service used, so the shared server does not fill with them. */
export async function dropSchema(schema: string | undefined): Promise<void> {
  if (!schema) return;
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Waits until a record's enrichment state has `status`, and returns that state. */
export function stateReaches(
  running: RunningService,
  key: { connection: string; objectType: string; recordId: string },
  status: string,
  timeoutMs = 10_000,
) {
  return eventually(
    async () => {
      const state = await running.service.parts.store.state.get(key);
      return state?.status === status ? state : undefined;
    },
    timeoutMs,
    `${key.objectType} ${key.recordId} to be ${status}`,
  );
}
