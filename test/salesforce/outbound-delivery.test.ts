import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startSalesforceSandbox, type SalesforceSandbox } from '../../connectors/salesforce/sandbox/server.js';
import { createSalesforceWebhookHandler } from '../../connectors/salesforce/webhook.js';
import { WebhookError, type RecordEvent, type WebhookHandler } from '../../src/core/connector.js';

const SECRET = 'outbound-test-secret';

/** Runs the webhook handler on the raw body, keeping one event per dedup key as the store does. */
class Receiver {
  readonly stored = new Map<string, RecordEvent>();
  readonly deliveries: { status: number; keys: string[] }[] = [];
  failNext = 0;
  private server: Server | undefined;
  url = '';

  constructor(private readonly handler: WebhookHandler) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const parsed = this.handler.parse({
          method: req.method ?? 'POST',
          url: `http://127.0.0.1${req.url ?? ''}`,
          headers: { 'content-type': req.headers['content-type'] },
          rawBody: Buffer.concat(chunks),
          params: { secret: decodeURIComponent((req.url ?? '').split('/').pop() ?? '') },
        });
        let reply;
        if (!parsed.ok) reply = this.handler.errorReply(parsed.error);
        else if (this.failNext > 0) {
          this.failNext -= 1;
          reply = this.handler.errorReply(new WebhookError(503, 'store_unavailable', 'could not store the events'));
        } else {
          for (const e of parsed.events) if (!this.stored.has(e.dedupKey)) this.stored.set(e.dedupKey, e);
          reply = this.handler.ackReply(parsed.events);
        }
        this.deliveries.push({ status: reply.status, keys: parsed.ok ? parsed.events.map((e) => e.dedupKey) : [] });
        res.writeHead(reply.status, { 'content-type': reply.contentType }).end(reply.body);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}/webhooks/salesforce/`;
  }

  reset(): void {
    this.stored.clear();
    this.deliveries.length = 0;
    this.failNext = 0;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

let sandbox: SalesforceSandbox;
let receiver: Receiver;

beforeAll(async () => {
  sandbox = await startSalesforceSandbox({ outboundDelaysMs: [20, 40], outboundBatchWindowMs: 10 });
  receiver = new Receiver(createSalesforceWebhookHandler({ orgId: sandbox.orgId, secret: SECRET }));
  await receiver.start();
  sandbox.setOutboundUrl(receiver.url + SECRET);
});

beforeEach(async () => {
  await vi.waitFor(() => expect(sandbox.stats().outbound.pending).toBe(0));
  receiver.reset();
});

afterAll(async () => {
  await sandbox.close();
  await receiver.close();
});

describe('Salesforce outbound messages from the sandbox', () => {
  it('a new Lead arrives as one record event', async () => {
    const id = sandbox.createRecord('Lead', { LastName: 'Doe', Company: 'Acme', Email: 'jane@acme.example' });
    await vi.waitFor(() => expect(receiver.stored.size).toBe(1));
    const [event] = [...receiver.stored.values()];
    expect(event).toMatchObject({ crm: 'salesforce', objectType: 'Lead', recordId: id, kind: 'created' });
    expect(event?.values).toMatchObject({ Email: 'jane@acme.example', Company: 'Acme' });
    expect(event?.dedupKey).toMatch(/^salesforce:om:04l/);
    expect(receiver.deliveries).toEqual([{ status: 200, keys: [event?.dedupKey] }]);
  });

  it('a change to a watched field sends a message; other changes do not', async () => {
    const id = sandbox.createRecord('Contact', { LastName: 'Roe', Email: 'old@example.com' });
    await vi.waitFor(() => expect(receiver.stored.size).toBe(1));
    sandbox.updateRecord('Contact', id, { Title: 'CTO' });
    sandbox.updateRecord('Contact', id, { Email: 'new@example.com' });
    await vi.waitFor(() => expect(receiver.stored.size).toBe(2));
    const changed = [...receiver.stored.values()][1];
    expect(changed).toMatchObject({
      objectType: 'Contact',
      recordId: id,
      kind: 'changed',
      values: expect.objectContaining({ Email: 'new@example.com' }),
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(receiver.stored.size).toBe(2);
  });

  it('redelivers what could not be stored, and the redelivery is deduplicated', async () => {
    receiver.failNext = 1;
    const acked = sandbox.stats().outbound.acked;
    sandbox.createRecord('Lead', { LastName: 'Poe', Company: 'Raven', Email: 'poe@raven.example' });
    await vi.waitFor(() => expect(sandbox.stats().outbound.acked).toBe(acked + 1));
    expect(receiver.deliveries.map((d) => d.status)).toEqual([503, 200]);
    expect(receiver.deliveries[1]?.keys).toEqual(receiver.deliveries[0]?.keys);
    expect(receiver.stored.size).toBe(1);
    expect(sandbox.stats().outbound.redelivered).toBeGreaterThanOrEqual(1);
  });

  it('batches at most 100 notifications per message', async () => {
    for (let i = 0; i < 150; i++) sandbox.createRecord('Lead', { LastName: `Bulk ${i}`, Company: 'Import Co' });
    await vi.waitFor(() => expect(receiver.stored.size).toBe(150));
    expect(receiver.deliveries.map((d) => d.keys.length).sort((a, b) => b - a)).toEqual([100, 50]);
  });

  it('keeps redelivering to an endpoint that refuses the secret, and nothing is stored until it is fixed', async () => {
    sandbox.setOutboundUrl(`${receiver.url}wrong-secret`);
    sandbox.createRecord('Account', { Name: 'Globex', Website: 'globex.example' });
    await vi.waitFor(() => expect(receiver.deliveries.length).toBeGreaterThanOrEqual(2));
    expect(receiver.deliveries.every((d) => d.status === 403)).toBe(true);
    expect(receiver.stored.size).toBe(0);
    sandbox.setOutboundUrl(receiver.url + SECRET);
    await vi.waitFor(() => expect(receiver.stored.size).toBe(1));
    expect([...receiver.stored.values()][0]).toMatchObject({
      objectType: 'Account',
      values: expect.objectContaining({ Website: 'globex.example' }),
    });
  });
});
