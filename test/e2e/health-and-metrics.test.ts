/**
 * Health, readiness and Prometheus metrics of a running service: each metric the operators watch
 * moves with the work the service did.
 */
import { describe, expect, it } from 'vitest';
import { serverUnavailable } from '../support/db.js';
import { settled } from './probes.js';
import { eventually, partnerPeople } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping health and metrics tests: ${skip}`);

function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith(name) &&
        !l.startsWith('#') &&
        wanted.every((w) => l.includes(w)) &&
        (wanted.length > 0 || /^\S+ /.test(l)),
    );
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe.skipIf(skip)('health and metrics', () => {
  // Employers' companies are created and counted in employers.test.ts; this file counts contacts alone.
  const stack = useStack({
    service: { env: { HUBSPOT_CREATE_COMPANIES: 'false', SALESFORCE_CREATE_ACCOUNTS: 'false' } },
  });

  it('answers liveness and readiness with the state of the database, queue and mappings', async () => {
    const health = await fetch(`${stack.running.url}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${stack.running.url}/readyz`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { status: string; checks: { name: string; ok: boolean }[] };
    expect(body.status).toBe('ready');
    expect(body.checks.map((c) => c.name).sort()).toEqual(['database', 'mappings', 'queue']);
    expect(body.checks.every((c) => c.ok)).toBe(true);
  });

  it('counts events, jobs, partner calls, CRM calls, cache use and latency as the work happens', async () => {
    const { sandboxes, running } = stack;
    const before = await (await fetch(`${running.url}/metrics`)).text();
    const [person] = partnerPeople(sandboxes, 1, 40);
    const { id } = sandboxes.hubspot.createContact({ email: person!.workEmail! });
    await eventually(
      () => sandboxes.hubspot.getContact(id)?.crm_enrich_enriched_at,
      5_000,
      'the contact to be enriched',
    );
    await settled(stack);
    const after = await (await fetch(`${running.url}/metrics`)).text();

    const grew = (name: string, labels: Record<string, string> = {}) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(grew('crm_enrich_events_received_total', { crm: 'hubspot', outcome: 'stored' })).toBeGreaterThanOrEqual(1);
    expect(grew('crm_enrich_jobs_total', { outcome: 'enriched' })).toBe(1);
    expect(grew('crm_enrich_partner_calls_total', { status: '200' })).toBeGreaterThanOrEqual(1);
    expect(grew('crm_enrich_crm_calls_total', { crm: 'hubspot', operation: 'batch_update' })).toBe(1);
    expect(grew('crm_enrich_lookup_cache_total', { result: 'miss' })).toBeGreaterThanOrEqual(1);
    expect(grew('crm_enrich_webhook_to_write_seconds_count')).toBe(1);
    expect(after).toMatch(/crm_enrich_queue_depth\{queue="enrich.hubspot.contact"\} 0/);
  });
});
