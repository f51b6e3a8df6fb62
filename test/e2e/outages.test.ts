/**
 * Postgres goes away under a running service: webhooks answer 503 with Retry-After (the CRMs deliver
 * again), nothing is acknowledged that was not stored, /readyz says why, and once Postgres is back the
 * service carries on by itself: the redelivered event is stored and its record enriched.
 * Redis goes away: /readyz reports the shared limiter down but stays ready (webhooks are still stored).
 * Both are taken away through a TCP proxy, so nothing else using the servers is disturbed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signV3 } from '../../connectors/hubspot/signature.js';
import { SERVER_URL, serverUnavailable } from '../support/db.js';
import { REDIS_URL, redisUnavailable } from '../support/redis.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { dropSchema } from './probes.js';
import {
  ADMIN_TOKEN,
  HUBSPOT_SECRET,
  eventually,
  partnerPeople,
  startSandboxes,
  startService,
  type RunningService,
  type Sandboxes,
} from './stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping the Postgres outage test: ${skip}`);

describe.skipIf(skip)('Postgres outage', () => {
  let sandboxes: Sandboxes;
  let running: RunningService;
  let proxy: TcpProxy;

  beforeAll(async () => {
    const target = new URL(SERVER_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(SERVER_URL);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    sandboxes = await startSandboxes({ people: 500, companies: 100 });
    running = await startService(sandboxes, { databaseUrl: viaProxy.toString() });
  });
  afterAll(async () => {
    proxy?.up();
    await running?.stop().catch(() => undefined);
    await sandboxes?.close();
    await proxy?.close();
    await dropSchema(running?.schema);
  });

  it(
    'answers 503 with Retry-After while Postgres is away, stores nothing it did not acknowledge, ' +
      'and recovers by itself',
    async () => {
      // The sandbox's own deliveries would be retried behind our back; this test sends them itself.
      sandboxes.hubspot.setWebhookUrl(undefined);
      const [person] = partnerPeople(sandboxes, 1, 42);
      const contact = sandboxes.hubspot.createContact({ email: person!.workEmail! });
      const url = `${running.url}/webhooks/hubspot`;
      const body = JSON.stringify([
        {
          eventId: 1,
          subscriptionId: 4001,
          portalId: sandboxes.hubspot.portalId,
          appId: 1000001,
          occurredAt: Date.now(),
          subscriptionType: 'contact.creation',
          attemptNumber: 0,
          objectId: Number(contact.id),
          changeSource: 'CRM_UI',
        },
      ]);
      const deliver = async () => {
        const timestamp = String(Date.now());
        const res = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-hubspot-request-timestamp': timestamp,
            'x-hubspot-signature-v3': signV3(HUBSPOT_SECRET, 'POST', url, body, timestamp),
          },
          body,
        });
        return { status: res.status, retryAfter: res.headers.get('retry-after'), text: await res.text() };
      };

      proxy.down();
      const refused = await deliver();
      expect(refused.status).toBe(503);
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      const ready = await fetch(`${running.url}/readyz`);
      expect(ready.status).toBe(503);
      const readiness = await ready.text();
      expect(JSON.parse(readiness)).toMatchObject({
        status: 'not_ready',
        failed: expect.arrayContaining(['database']),
      });
      // Which check failed, never why: the error text names the database's address.
      expect(readiness).not.toMatch(/ECONN|terminated|127\.0\.0\.1|postgres/i);

      // An admin request that fails unexpectedly says which log entry has the error, and nothing more.
      const stats = await fetch(`${running.url}/admin/api/stats`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(stats.status).toBe(500);
      const failed = (await stats.json()) as {
        error: { code: string; message: string; details: { requestId: string } };
      };
      expect(failed.error.code).toBe('internal');
      expect(failed.error.details.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(stats.headers.get('x-request-id')).toBe(failed.error.details.requestId);
      expect(failed.error.message).not.toMatch(/ECONN|terminated|postgres/i);

      proxy.up();
      await eventually(
        async () => ((await fetch(`${running.url}/readyz`)).status === 200 ? true : undefined),
        20_000,
        '/readyz to recover',
      );
      const accepted = await deliver();
      expect(accepted.status).toBe(200);
      await eventually(
        () => (sandboxes.hubspot.getContact(contact.id)?.crm_enrich_partner_id ? true : undefined),
        20_000,
        'the contact to be enriched after the outage',
      );
      expect(sandboxes.hubspot.getContact(contact.id)?.crm_enrich_partner_id).toBe(person!.person.id);
    },
    60_000,
  );
});

const redisSkip = (await redisUnavailable()) ?? skip;

describe.skipIf(redisSkip)('Redis outage', () => {
  let sandboxes: Sandboxes;
  let running: RunningService;
  let proxy: TcpProxy;

  beforeAll(async () => {
    const target = new URL(REDIS_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    sandboxes = await startSandboxes({ people: 200, companies: 50 });
    running = await startService(sandboxes, { env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` } });
  });
  afterAll(async () => {
    proxy?.up();
    await running?.stop().catch(() => undefined);
    await sandboxes?.close();
    await proxy?.close();
    await dropSchema(running?.schema);
  });

  it('reports the shared limiter down in /readyz and stays ready, then recovers', async () => {
    type Ready = {
      status: string;
      failed: string[];
      checks: { name: string; ok: boolean; required?: boolean; message?: string }[];
    };
    const readyz = async () => {
      const res = await fetch(`${running.url}/readyz`);
      return { status: res.status, body: (await res.json()) as Ready };
    };
    const before = await readyz();
    expect(before.status).toBe(200);
    expect(before.body.checks.find((c) => c.name === 'rate_limiter')).toMatchObject({ ok: true, required: false });

    proxy.down();
    const during = await eventually(
      async () => {
        const r = await readyz();
        return r.body.checks.find((c) => c.name === 'rate_limiter')?.ok === false ? r : undefined;
      },
      15_000,
      'the limiter check to fail',
    );
    expect(during.status).toBe(200);
    expect(during.body.status).toBe('ready');
    expect(during.body.failed).toEqual(['rate_limiter']);
    expect(during.body.checks.find((c) => c.name === 'rate_limiter')?.message).toBeUndefined();

    proxy.up();
    await eventually(
      async () => ((await readyz()).body.checks.find((c) => c.name === 'rate_limiter')?.ok ? true : undefined),
      20_000,
      'the limiter check to recover',
    );
  }, 60_000);
});
