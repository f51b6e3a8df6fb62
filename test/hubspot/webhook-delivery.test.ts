import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordEvent } from '../../src/core/connector.js';
import { createHubspotWebhookHandler } from '../../connectors/hubspot/webhook.js';
import { startHubspotSandbox, type HubspotSandbox } from '../../connectors/hubspot/sandbox/server.js';

const SECRET = 'delivery-secret';

interface Delivery {
  attempt: number[];
  status: number;
  events: RecordEvent[];
  error?: string;
}

/** A small receiver that runs the real handler on the raw body, as the service's route does. */
let receiver: Server;
let receiverUrl: string;
const deliveries: Delivery[] = [];
/** Every event as it came over the wire. */
const wireEvents: Record<string, unknown>[] = [];
let answer: (n: number) => { status: number; delayMs?: number } = () => ({ status: 200 });
const handler = createHubspotWebhookHandler({ clientSecret: SECRET });
let sandbox: HubspotSandbox;

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting for webhook deliveries');
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const result = handler.parse({
        method: req.method ?? 'POST',
        url: new URL(req.url ?? '/', receiverUrl).href,
        headers: req.headers as Record<string, string>,
        rawBody,
      });
      wireEvents.push(...(JSON.parse(rawBody.toString()) as Record<string, unknown>[]));
      const planned = answer(deliveries.length);
      deliveries.push({
        attempt: (JSON.parse(rawBody.toString()) as { attemptNumber: number }[]).map((e) => e.attemptNumber),
        status: planned.status,
        events: result.ok ? result.events : [],
        error: result.ok ? undefined : result.error.message,
      });
      setTimeout(() => res.writeHead(planned.status).end(), planned.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/hubspot`;
  sandbox = await startHubspotSandbox({
    clientSecret: SECRET,
    webhookUrl: receiverUrl,
    webhookDelaysMs: [30, 60],
    webhookTimeoutMs: 300,
  });
});

afterAll(async () => {
  await sandbox.close();
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
});

describe('HubSpot sandbox webhook delivery to the handler', () => {
  it('delivers a signed creation event that becomes one record event; a redelivery keeps its dedup key', async () => {
    deliveries.length = 0;
    answer = (n) => ({ status: n === 0 ? 500 : 200 });
    const contact = sandbox.createContact({ email: 'new@delivery.example' });
    await until(() => deliveries.length >= 2);
    const [first, second] = deliveries;
    expect(first?.error).toBeUndefined();
    expect(first?.events).toEqual([
      expect.objectContaining({ kind: 'created', objectType: 'contact', recordId: contact.id, crm: 'hubspot' }),
    ]);
    expect(second?.attempt).toEqual([1]);
    expect(second?.events).toHaveLength(1);
    expect(second?.events[0]?.dedupKey).toBe(first?.events[0]?.dedupKey);
    await new Promise((r) => setTimeout(r, 150));
    expect(deliveries).toHaveLength(2);
    expect(sandbox.stats().webhooks).toMatchObject({ delivered: 1, redelivered: 1 });
  });

  it('redelivers when the receiver is slower than the timeout', async () => {
    deliveries.length = 0;
    answer = (n) => ({ status: 200, delayMs: n === 0 ? 600 : 0 });
    sandbox.createCompany({ name: 'Slow answer', domain: 'slow.example' });
    await until(() => deliveries.length >= 2);
    expect(deliveries.map((d) => d.attempt[0])).toEqual([0, 1]);
  });

  it('announces a change of a subscribed property and not of others', async () => {
    await sandbox.webhooksIdle();
    deliveries.length = 0;
    answer = () => ({ status: 200 });
    const contact = sandbox.createContact({ firstname: 'Ann' });
    await until(() => deliveries.length >= 1);
    sandbox.updateRecord('contacts', contact.id, { lastname: 'Lee', email: 'ann@changed.example' });
    await until(() => deliveries.length >= 2);
    await sandbox.webhooksIdle();
    const changed = deliveries.flatMap((d) => d.events).filter((e) => e.kind === 'changed');
    expect(changed).toEqual([
      expect.objectContaining({ recordId: contact.id, changedProperties: { email: 'ann@changed.example' } }),
    ]);
  });

  it('batches a burst into deliveries of at most 100 events', async () => {
    await sandbox.webhooksIdle();
    deliveries.length = 0;
    for (let i = 0; i < 150; i++) sandbox.createContact({ email: `burst${i}@delivery.example` });
    await until(() => deliveries.reduce((s, d) => s + d.events.length, 0) >= 150);
    expect(deliveries.every((d) => d.attempt.length <= 100)).toBe(true);
    expect(deliveries.length).toBeGreaterThanOrEqual(2);
  });

  it(
    'says how each record was made: CRM_UI for a person, INTEGRATION with the app id for the API, ' +
      'CREATED on creation',
    async () => {
      deliveries.length = 0;
      answer = () => ({ status: 200 });
      const ui = sandbox.createContact({ email: 'typed-in@example.com' });
      const viaUiRoute = (await (
        await fetch(`${sandbox.url}/__sandbox/ui/contacts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ properties: { email: 'ui-route@example.com' } }),
        })
      ).json()) as { id: string };
      const api = (await (
        await fetch(`${sandbox.url}/crm/v3/objects/contacts`, {
          method: 'POST',
          headers: { authorization: 'Bearer sandbox-token', 'content-type': 'application/json' },
          body: JSON.stringify({ properties: { email: 'by-an-app@example.com' } }),
        })
      ).json()) as { id: string };
      // Wait for these three records' events themselves: a redelivery left over from an earlier test may come too.
      const seen = () => new Set(deliveries.flatMap((d) => d.events).map((e) => e.recordId));
      await until(() => [ui.id, viaUiRoute.id, api.id].every((id) => seen().has(id)));
      const actors = new Map(deliveries.flatMap((d) => d.events).map((e) => [e.recordId, e.actor]));
      expect(actors.get(ui.id)).toBe('person');
      expect(actors.get(viaUiRoute.id)).toBe('person');
      // sandbox-token is the app the deliveries are for: its creations are the service's own.
      expect(actors.get(api.id)).toBe('this_service');
      const raw = wireEvents.filter((e) => e.subscriptionType === 'contact.creation');
      expect(raw.find((e) => String(e.objectId) === api.id)).toMatchObject({
        changeFlag: 'CREATED',
        changeSource: 'INTEGRATION',
        sourceId: expect.stringMatching(/^\d+$/),
      });
      expect(raw.find((e) => String(e.objectId) === ui.id)).not.toHaveProperty('sourceId');
    },
  );
});
