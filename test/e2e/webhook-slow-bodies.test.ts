/**
 * The attack of issue 31 against the service as a process: 300 connections that each declare a 1 MB
 * webhook body with signature headers that look right (so the head alone cannot refuse them) and send
 * it slowly. The process's resident memory grows by at most 50 MB and comes back down once they are
 * gone, the senders the body budget has no room for are told to come back (503, Retry-After), the
 * rest are cut off at the body deadline, and correctly signed deliveries are stored all the while.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signV3 } from '../../connectors/hubspot/signature.js';
import { SERVER_URL, serverUnavailable } from '../support/db.js';
import {
  killAll,
  processSchema,
  residentBytes,
  serviceEnv,
  startServiceProcess,
  type ServiceProcess,
} from './process.js';
import { slowSend, type SlowSend } from './slow-sender.js';
import { eventually, HUBSPOT_SECRET, startSandboxes, type Sandboxes } from './stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping the slow-body test: ${skip}`);

const SENDERS = 300;
const DECLARED = 1_048_000;
const MB = 1024 * 1024;

describe.skipIf(skip)('slow webhook bodies', () => {
  let sandboxes: Sandboxes;
  let service: ServiceProcess;
  const schema = processSchema();
  let eventId = 1;

  beforeAll(async () => {
    sandboxes = await startSandboxes({ people: 200, companies: 50 });
    // A short body deadline keeps the test quick; the default (10 s) is the same mechanism.
    service = await startServiceProcess(
      serviceEnv(sandboxes, schema, { WEBHOOK_BODY_TIMEOUT_SECONDS: '3', LOG_LEVEL: 'error' }),
    );
  });
  afterAll(async () => {
    await killAll([schema]);
    await sandboxes?.close();
  });

  async function deliver(): Promise<number> {
    const url = `${service.url}/webhooks/hubspot`;
    const body = JSON.stringify([
      {
        eventId: eventId++,
        subscriptionId: 4001,
        portalId: sandboxes.hubspot.portalId,
        appId: 1000001,
        occurredAt: Date.now(),
        subscriptionType: 'contact.creation',
        attemptNumber: 0,
        objectId: 70_000 + eventId,
        changeSource: 'CRM',
      },
    ]);
    const timestamp = String(Date.now());
    const res = await fetch(url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-hubspot-request-timestamp': timestamp,
        'x-hubspot-signature-v3': signV3(HUBSPOT_SECRET, 'POST', url, body, timestamp),
      },
    });
    await res.text();
    return res.status;
  }

  async function receivedEvents(): Promise<number> {
    const client = new pg.Client({ connectionString: SERVER_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".received_event`);
      return rows[0]!.n;
    } finally {
      await client.end();
    }
  }

  it(
    `holds at most 50 MB more under ${SENDERS} slow 1 MB bodies, gives it back, ` +
      'and keeps storing valid deliveries',
    async () => {
      // Warm up the paths a delivery takes, so the baseline is the service at work, not at rest.
      for (let i = 0; i < 5; i++) expect(await deliver()).toBe(200);
      const storedBefore = await receivedEvents();
      const baseline = residentBytes(service.pid);

      let peak = baseline;
      const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(service.pid))), 50);
      const headers = {
        'content-type': 'application/json',
        'content-length': String(DECLARED),
        'x-hubspot-request-timestamp': String(Date.now()),
        'x-hubspot-signature-v3': 'bm90IGEgc2lnbmF0dXJlIGF0IGFsbA==',
      };
      // 160 KB a second: a megabyte would take over 6 s, twice the deadline.
      const attack = Promise.all(
        Array.from({ length: SENDERS }, () =>
          slowSend(service.url, '/webhooks/hubspot', {
            headers,
            bodyBytes: DECLARED,
            chunkBytes: 16 * 1024,
            intervalMs: 100,
          }),
        ),
      );
      let finished = false;
      const attackDone = attack.finally(() => (finished = true));
      const valid: number[] = [];
      while (!finished) {
        valid.push(await deliver());
        await new Promise((r) => setTimeout(r, 100));
      }
      const answers: SlowSend[] = await attackDone;
      clearInterval(sampler);

      const statuses = answers.map((a) => a.status);
      // Beyond the budget: refused at once with a time to come back; within it: cut off at the deadline.
      const busy = answers.filter((a) => a.status === 503);
      expect(busy.length).toBeGreaterThan(0);
      expect(busy.every((a) => a.headers['retry-after'] === '10' && JSON.parse(a.body).code === 'busy')).toBe(true);
      // Cut off at the deadline: answered 408, or reset before the answer could be read (the sender was
      // still writing when the connection closed). Never read to the end, never answered as a delivery.
      const tally = JSON.stringify(
        Object.fromEntries([...new Set(statuses)].map((s) => [String(s), statuses.filter((t) => t === s).length])),
      );
      expect(statuses.filter((s) => s === 408).length, tally).toBeGreaterThan(0);
      expect(
        statuses.every((s) => s === 503 || s === 408 || s === undefined),
        tally,
      ).toBe(true);

      expect(valid.length).toBeGreaterThan(3);
      expect(valid.every((s) => s === 200)).toBe(true);
      expect(await receivedEvents()).toBe(storedBefore + valid.length);

      expect(
        peak - baseline,
        `resident memory went from ${(baseline / MB) | 0} MB to ${(peak / MB) | 0} MB`,
      ).toBeLessThanOrEqual(50 * MB);
      await eventually(
        () => (residentBytes(service.pid) - baseline <= 50 * MB ? true : undefined),
        10_000,
        'memory to come back',
      );
    },
  );
});
