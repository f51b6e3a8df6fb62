/**
 * Discovery's limits under parallel runs, against the HubSpot and partner sandboxes through the admin
 * API: twenty runs started at once, at several companies, share today's discovery limit and the partner
 * credit budget without passing either, and what each run reserved and did not use goes back.
 */
import { describe, expect, it } from 'vitest';
import { LOOKUPS_COUNTER } from '../../src/enrich/partner-lookups.js';
import type { DiscoveryRunResult } from '../../src/discovery/discovery.js';
import { DISCOVERY_CREATED_COUNTER } from '../../src/discovery/run.js';
import { serverUnavailable } from '../support/db.js';
import { schemaQuery, settled } from './probes.js';
import { eventually } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping discovery limit tests: ${skip}`);

const DAILY_LIMIT = 5;
const BUDGET = 400;

describe.skipIf(skip)('discovery runs at once', () => {
  const stack = useStack({
    service: { env: { DISCOVERY_DAILY_LIMIT: String(DAILY_LIMIT), PARTNER_DAILY_LOOKUP_BUDGET: String(BUDGET) } },
  });
  const counter = (name: string) => stack.running.service.parts.store.counters.get(name);
  const companies: { id: string; department: string }[] = [];

  /** Four enriched HubSpot companies, each with at least four partner people of one department with e-mail. */
  async function targets() {
    if (companies.length) return companies;
    const { sandboxes } = stack;
    const groups = new Map<string, { domain: string; department: string; n: number }>();
    for (const p of sandboxes.partner.dataset.personRecords) {
      if (!p.workEmail || p.market !== p.employer.home) continue;
      const key = `${String(p.employer.company.id)}|${String(p.departmentId)}`;
      const g = groups.get(key) ?? { domain: p.employer.domain, department: String(p.departmentId), n: 0 };
      g.n++;
      groups.set(key, g);
    }
    const seen = new Set<string>();
    const picked = [...groups.values()]
      .sort((a, b) => b.n - a.n)
      .filter((g) => !seen.has(g.domain) && seen.add(g.domain))
      .slice(0, 4);
    expect(picked.map((g) => g.n >= 4)).toEqual([true, true, true, true]);
    for (const g of picked) {
      const company = sandboxes.hubspot.createCompany({ domain: g.domain });
      await eventually(
        () => sandboxes.hubspot.getCompany(company.id)?.crm_enrich_partner_id || undefined,
        15_000,
        'the company to be enriched',
      );
      companies.push({ id: company.id, department: g.department });
    }
    await settled(stack);
    return companies;
  }

  /** Twenty runs at once, five at each company, each asking for up to three people. */
  async function twentyRuns() {
    const all = await targets();
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => all[i % all.length]!).map((c) =>
        stack.running.admin<DiscoveryRunResult>('POST', '/discovery/run', {
          crm: 'hubspot',
          companyId: c.id,
          filters: { department: [c.department] },
          limit: 3,
        }),
      ),
    );
    for (const r of runs) expect(r.status, JSON.stringify(r.body)).toBe(200);
    return runs.map((r) => r.body);
  }

  async function discoveredContacts(): Promise<number> {
    const rows = await schemaQuery<{ n: number }>(
      stack.running,
      `SELECT count(*)::int AS n FROM $schema.discovered_person WHERE action = 'created'`,
    );
    return rows[0]!.n;
  }

  it('spends no more credits than the budget leaves, and gives back what the runs reserved', async () => {
    await targets();
    const { counters } = stack.running.service.parts.store;
    // Two credits left today.
    await counters.increment(LOOKUPS_COUNTER, BUDGET - 2 - (await counter(LOOKUPS_COUNTER)));
    const runs = await twentyRuns();
    const created = runs.reduce((n, r) => n + r.created, 0);
    expect(runs.reduce((n, r) => n + r.credits, 0)).toBe(2);
    expect(created).toBe(2);
    expect(runs.filter((r) => r.stopped?.reason === 'budget').length).toBeGreaterThan(0);
    // Every run ended: the counters hold what was spent and created, nothing still reserved.
    expect(await counter(LOOKUPS_COUNTER)).toBe(BUDGET);
    expect(await counter(DISCOVERY_CREATED_COUNTER)).toBe(created);
    expect(await discoveredContacts()).toBe(created);
  });

  it("creates no more records than today's discovery limit, however many runs start at once", async () => {
    const { counters } = stack.running.service.parts.store;
    await counters.increment(LOOKUPS_COUNTER, -200);
    const creditsBefore = await counter(LOOKUPS_COUNTER);
    const createdBefore = await counter(DISCOVERY_CREATED_COUNTER);
    expect(createdBefore).toBeLessThan(DAILY_LIMIT);
    const runs = await twentyRuns();
    const created = runs.reduce((n, r) => n + r.created, 0);
    expect(createdBefore + created).toBe(DAILY_LIMIT);
    expect(runs.filter((r) => r.stopped?.reason === 'daily_limit').length).toBeGreaterThan(0);
    expect(await counter(DISCOVERY_CREATED_COUNTER)).toBe(DAILY_LIMIT);
    expect(await discoveredContacts()).toBe(DAILY_LIMIT);
    // Only the lookups the partner served are counted: the credits reserved for people not created went back.
    expect(await counter(LOOKUPS_COUNTER)).toBe(creditsBefore + runs.reduce((n, r) => n + r.credits, 0));
    expect(runs.reduce((n, r) => n + r.credits, 0)).toBe(created);

    // A preview now says nothing more may be created today, and a run creates nobody.
    const c = companies[0]!;
    const preview = await stack.running.admin<{ dailyRemaining: number }>('POST', '/discovery/preview', {
      crm: 'hubspot',
      companyId: c.id,
      filters: { department: [c.department] },
    });
    expect(preview.body.dailyRemaining).toBe(0);
  });
});
