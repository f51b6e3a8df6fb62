/**
 * Nothing of its own enriched twice: the companies the service creates for new employers are never read
 * or looked up again because their creation events came first. Here the record of each creation reaches
 * the database well after HubSpot has announced it (as when the embedded database is busy with an import),
 * so the creation's job is claimed while the service cannot yet name the record as its own; the creation's
 * mark, taken before the call, holds the job back until it can. On the embedded database and on the server.
 */
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquirePglite, releasePglite, serverUnavailable } from '../support/db.js';
import { hubspotCalls, schemaQuery, settled } from './probes.js';
import { eventually, partnerPeople, type StackOptions } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping own-creation tests: ${skip}`);

const companyLookups = (stack: ReturnType<typeof useStack>) =>
  stack.sandboxes.partner.stats().byEndpoint['GET /company'] ?? 0;

for (const backend of ['pglite', 'pg'] as const) {
  // The server is needed on both: the test files' schemas are dropped there after the run.
  describe.skipIf(skip)(`the service's own creations (${backend})`, () => {
    const service: StackOptions & { pglite?: PGlite } = {};
    if (backend === 'pglite') {
      beforeAll(async () => {
        service.pglite = await acquirePglite();
      });
      afterAll(() => releasePglite());
    }
    const stack = useStack({ service });

    it('never looks up or reads a company it created, however late the record of its creation is', async () => {
      const { sandboxes, running } = stack;
      const { store } = running.service.parts;
      const add = store.created.add.bind(store.created);
      // The ids of each creation reach the database 1.5 s after HubSpot answered (and announced it).
      store.created.add = async (...args) => {
        await new Promise((r) => setTimeout(r, 1_500));
        return add(...args);
      };
      const companiesBefore = new Set(sandboxes.hubspot.store.objects.companies.keys());
      const readsBefore = hubspotCalls(sandboxes, '/crm/objects/2026-09/companies/batch/read');
      const lookupsBefore = companyLookups(stack);

      // People of 20 employers the CRM does not hold yet, imported by another app.
      const seen = new Set<string>();
      const people = partnerPeople(sandboxes, 1_000, 0)
        .filter((p) => !seen.has(p.employer.domain) && seen.add(p.employer.domain))
        .slice(0, 20);
      const res = await fetch(`${sandboxes.hubspot.url}/crm/v3/objects/contacts/batch/create`, {
        method: 'POST',
        headers: { authorization: 'Bearer sandbox-importer-token', 'content-type': 'application/json' },
        body: JSON.stringify({ inputs: people.map((p) => ({ properties: { email: p.workEmail! } })) }),
      });
      expect(res.status).toBe(201);
      const createdNow = () =>
        [...sandboxes.hubspot.store.objects.companies.keys()].filter((id) => !companiesBefore.has(id));
      await eventually(() => (createdNow().length >= 15 ? true : undefined), 30_000, 'the employers to be created');
      // Their creation events became jobs (the intake could not know them yet), and the jobs are settled.
      await eventually(
        async () => {
          const jobs = await schemaQuery<{ n: number }>(
            running,
            `SELECT count(*)::int AS n FROM $schema.job WHERE name = 'enrich.hubspot.company'`,
          );
          return jobs[0]!.n > 0 ? true : undefined;
        },
        10_000,
        'the creation events to become jobs',
      );
      await settled(stack, 30_000);
      store.created.add = add;
      const created = createdNow();

      // Each company was looked up at most once (for its creation), never read back, never run by a job.
      expect(companyLookups(stack) - lookupsBefore).toBeLessThanOrEqual(created.length);
      expect(hubspotCalls(sandboxes, '/crm/objects/2026-09/companies/batch/read')).toBe(readsBefore);
      const runs = await schemaQuery<{ n: number }>(
        running,
        `SELECT count(*)::int AS n FROM $schema.audit_log
          WHERE object_type = 'company' AND job_id IS NOT NULL AND record_id = ANY($1::text[])`,
        [created],
      );
      expect(runs[0]!.n).toBe(0);
    });
  });
}
