/**
 * JOB_CHANGE_CRON: two instances on one database, each with the schedule on, sweep the actions file's
 * segments at most once per tick between them (the Postgres run coordinator elects one instance per
 * tick), and stop sweeping when they stop.
 */
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { SERVER_URL, serverUnavailable } from '../support/db.js';
import { dropSchema, hubspotCalls } from './probes.js';
import { startSandboxes, startService, type RunningService, type Sandboxes } from './stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping the job-change schedule test: ${skip}`);

const SEGMENT_SEARCH = '/crm/objects/2026-09/contacts/search';

describe.skipIf(skip)('job-change sweep schedule', () => {
  it('runs each tick once across two instances, and not after they stop', async () => {
    const sandboxes: Sandboxes = await startSandboxes({ people: 200, companies: 40 });
    const env = { JOB_CHANGE_CRON: '* * * * * *' };
    let a: RunningService | undefined;
    let b: RunningService | undefined;
    try {
      a = await startService(sandboxes, { env, schedule: true });
      b = await startService(sandboxes, { env, schedule: true, schema: a.schema });
      const searchesBefore = hubspotCalls(sandboxes, SEGMENT_SEARCH);
      await new Promise((r) => setTimeout(r, 4_500));
      await Promise.all([a.stop(), b.stop()]);
      const db = new pg.Client({ connectionString: SERVER_URL });
      await db.connect();
      const { rows: claims } = await db
        .query<{ key: string }>(`SELECT key FROM "${a.schema}".cron_claim WHERE key LIKE 'crm-enrich-job-changes:%'`)
        .finally(() => db.end());
      const searches = hubspotCalls(sandboxes, SEGMENT_SEARCH) - searchesBefore;
      // Each tick is claimed by one instance and swept by it alone: one search of the HubSpot segment (the
      // shipped file's customers) per claimed tick at most, where two unclaimed schedules would make two.
      // A claimed tick may go unswept: one still overlapping its predecessor, or one the stop cut short.
      expect(claims.length).toBeGreaterThanOrEqual(3);
      expect(searches).toBeLessThanOrEqual(claims.length);
      expect(searches).toBeGreaterThanOrEqual(2);
      await new Promise((r) => setTimeout(r, 1_500));
      expect(hubspotCalls(sandboxes, SEGMENT_SEARCH) - searchesBefore, 'no sweep after stop').toBe(searches);
    } finally {
      await a?.stop().catch(() => undefined);
      await sandboxes.close();
      await dropSchema(a?.schema);
    }
  }, 120_000);
});
