/**
 * The HubSpot sandbox's webhooks journal over HTTP, as HubSpot's 2026-03 description has it, read with
 * the service's own journal client where it has a call for it (the official client has none): the
 * client-credentials token and its scopes, subscriptions and filters, entries in order from an offset,
 * files behind expiring links, batch reads with 207 for unknown offsets, snapshots, and three-day
 * retention, after which an old offset is gone.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JournalClient } from '../../connectors/hubspot/journal-client.js';
import { journalRecordEvents } from '../../connectors/hubspot/journal-events.js';
import { startHubspotSandbox, SANDBOX_APP_ID, type HubspotSandbox } from '../../connectors/hubspot/sandbox/server.js';
import { JOURNAL_RETENTION_MS } from '../../connectors/hubspot/sandbox/journal.js';
import { FeedPositionLost } from '../../src/core/event-feed.js';

const SECRET = 'journal-test-secret';
const CLIENT_ID = 'journal-test-client';
let clock = Date.now();
let sandbox: HubspotSandbox;
let client: JournalClient;

beforeAll(async () => {
  sandbox = await startHubspotSandbox({
    port: 0,
    clientSecret: SECRET,
    clientId: CLIENT_ID,
    journalNow: () => clock,
  });
  client = new JournalClient({ baseUrl: sandbox.url, clientId: CLIENT_ID, clientSecret: SECRET });
});
afterAll(async () => {
  await sandbox?.close();
});
afterEach(() => {
  clock = Date.now();
});

async function token(scope: string): Promise<string> {
  const res = await fetch(`${sandbox.url}/oauth/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: SECRET, scope }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

const api = (path: string, bearer: string, init: RequestInit = {}) =>
  fetch(`${sandbox.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', ...init.headers },
  });

const J = '/webhooks-journal/journal/2026-03';
const subscribe = (properties = ['email']) =>
  client.upsertSubscription(sandbox.portalId, { objectTypeId: '0-1', actions: ['CREATE', 'UPDATE'], properties });

/** Entries published after the last one seen: the journal publishes a change's entry on the next turn. */
const settle = () => new Promise((r) => setImmediate(r));

describe('the journal token', () => {
  it('refuses reads without a client-credentials token, or with one lacking the read scope', async () => {
    expect((await fetch(`${sandbox.url}${J}/earliest`)).status).toBe(401);
    // The app's static token is the CRM's, not the journal's.
    expect((await api(`${J}/earliest`, 'sandbox-token')).status).toBe(401);
    const subscriptionsOnly = await token('developer.webhooks_journal.subscriptions.read');
    const refused = await api(`${J}/earliest`, subscriptionsOnly);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ category: 'MISSING_SCOPES', correlationId: expect.any(String) });
  });

  it('is refused to a wrong client secret', async () => {
    const wrong = new JournalClient({ baseUrl: sandbox.url, clientId: CLIENT_ID, clientSecret: 'not-it' });
    await expect(wrong.entries(sandbox.portalId, undefined, 1)).rejects.toMatchObject({
      code: 'auth',
      message: expect.stringContaining('HUBSPOT_CLIENT_ID'),
    });
  });
});

describe('subscriptions', () => {
  it('are upserted per portal and object type, listed, and refused with the field named when malformed', async () => {
    await subscribe(['email']);
    await subscribe(['email', 'hs_linkedin_url']);
    const read = await token('developer.webhooks_journal.subscriptions.read');
    const list = (await (await api('/webhooks-journal/subscriptions/2026-03', read)).json()) as {
      results: { id: number; objectTypeId: string; properties: string[]; appId: number }[];
    };
    const contacts = list.results.filter((s) => s.objectTypeId === '0-1');
    expect(contacts).toHaveLength(1);
    expect(contacts[0]).toMatchObject({ appId: SANDBOX_APP_ID, properties: ['email', 'hs_linkedin_url'] });

    const write = await token('developer.webhooks_journal.subscriptions.write');
    const bad = await api('/webhooks-journal/subscriptions/2026-03', write, {
      method: 'POST',
      body: JSON.stringify({ subscriptionType: 'OBJECT', portalId: sandbox.portalId, objectTypeId: '0-1' }),
    });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { category: string; message: string };
    expect(body.category).toBe('VALIDATION_ERROR');
    expect(body.message).toContain('actions');
  });
});

describe('entries', () => {
  it('are read in order from an offset, with the events of subscribed changes only', async () => {
    await subscribe(['email']);
    const start = sandbox.journal.list().at(-1)?.offset;
    const contact = sandbox.createContact({ email: 'first@journal.example' });
    await settle();
    sandbox.updateRecord('contacts', contact.id, { jobtitle: 'Not watched' });
    await settle();
    sandbox.updateRecord('contacts', contact.id, { email: 'second@journal.example' });
    await settle();

    const links = await client.entries(sandbox.portalId, start, 10);
    const files = (await Promise.all(links.map((l) => client.file(l)))) as {
      journalEvents: { action: string; objectId: number; propertyChanges?: Record<string, string> }[];
    }[];
    const events = files.flatMap((f) => f.journalEvents).filter((e) => e.objectId === Number(contact.id));
    expect(events.map((e) => [e.action, e.propertyChanges])).toEqual([
      ['CREATE', undefined],
      ['UPDATE', { email: 'second@journal.example' }],
    ]);
    // At the newest entry there is nothing next yet.
    const read = await token('developer.webhooks_journal.read');
    const atHead = await api(`${J}/offset/${links.at(-1)!.currentOffset}/next`, read);
    expect(atHead.status).toBe(204);
    // A file's events become the record events a webhook would have given.
    const recordEvents = files.flatMap((f) =>
      journalRecordEvents(f, { connection: 'hubspot', portalId: sandbox.portalId }),
    );
    expect(recordEvents.filter((e) => e.recordId === contact.id).map((e) => e.kind)).toEqual(['created', 'changed']);
  });

  it('answers a batch read of a kept and an unknown offset with 207, naming the unknown one', async () => {
    await subscribe();
    sandbox.createContact({ email: 'batch@journal.example' });
    await settle();
    const kept = sandbox.journal.list().at(-1)!.offset;
    const read = await token('developer.webhooks_journal.read');
    const res = await api(`${J}/batch/read`, read, {
      method: 'POST',
      body: JSON.stringify({ inputs: [kept, '00000000-0000-0000-0000-000000000000'] }),
    });
    expect(res.status).toBe(207);
    const body = (await res.json()) as {
      status: string;
      results: { currentOffset: string }[];
      numErrors: number;
      errors: { context: { offset: string[] } }[];
    };
    expect(body.status).toBe('COMPLETE');
    expect(body.results.map((r) => r.currentOffset)).toEqual([kept]);
    expect(body.numErrors).toBe(1);
    expect(body.errors[0]!.context.offset).toEqual(['00000000-0000-0000-0000-000000000000']);
  });

  it("keeps a file's link only until it expires", async () => {
    await subscribe();
    sandbox.createContact({ email: 'link@journal.example' });
    await settle();
    const link = (await client.entries(sandbox.portalId, undefined, 100)).at(-1);
    expect(Date.parse(link!.expiresAt)).toBeGreaterThan(clock);
    clock = Date.parse(link!.expiresAt) + 1;
    const res = await fetch(link!.url);
    expect(res.status).toBe(403);
  });

  it('leaves out a portal the app is not installed in, in the local journal', async () => {
    const read = await token('developer.webhooks_journal.read');
    const res = await api(`/webhooks-journal/journal-local/2026-03/earliest?installPortalId=1`, read);
    expect(res.status).toBe(404);
  });
});

describe('filters and snapshots', () => {
  it('journal only the objects a subscription filter lets through', async () => {
    const subscription = sandbox.journal.subscriptionsOf(SANDBOX_APP_ID).find((s) => s.objectTypeId === '0-1');
    const id = subscription?.id ?? (await subscribe(), sandbox.journal.subscriptionsOf(SANDBOX_APP_ID)[0]!.id);
    const write = await token('developer.webhooks_journal.subscriptions.write');
    const created = await api('/webhooks-journal/subscriptions/2026-03/filters', write, {
      method: 'POST',
      body: JSON.stringify({
        subscriptionId: id,
        filter: {
          conditions: [
            { filterType: 'CRM_OBJECT_PROPERTY', operator: 'ENDS_WITH', property: 'email', value: '@keep.example' },
          ],
        },
      }),
    });
    expect(created.status).toBe(200);
    const { filterId } = (await created.json()) as { filterId: number };
    const kept = sandbox.createContact({ email: 'a@keep.example' });
    const left = sandbox.createContact({ email: 'b@other.example' });
    await settle();
    const journaled = sandbox.journal.list().flatMap((e) => e.events.map((ev) => String(ev.objectId)));
    expect(journaled).toContain(kept.id);
    expect(journaled).not.toContain(left.id);
    expect(
      (await api(`/webhooks-journal/subscriptions/2026-03/filters/${filterId}`, write, { method: 'DELETE' })).status,
    ).toBe(204);
  });

  it('write a snapshot of an object to the journal and report its status', async () => {
    const contact = sandbox.createContact({ email: 'snap@journal.example', jobtitle: 'Buyer' });
    const write = await token('developer.webhooks_journal.snapshots.write developer.webhooks_journal.snapshots.read');
    const res = await api('/webhooks-journal/snapshots/2026-03/crm', write, {
      method: 'POST',
      body: JSON.stringify({
        snapshotRequests: [
          { objectId: Number(contact.id), objectTypeId: '0-1', portalId: sandbox.portalId, properties: ['jobtitle'] },
        ],
      }),
    });
    const { snapshotResponses } = (await res.json()) as { snapshotResponses: { snapshotStatusId: string }[] };
    const status = await api(`${J}/status/${snapshotResponses[0]!.snapshotStatusId}`, write);
    expect(await status.json()).toMatchObject({ status: 'SUCCESS' });
    await settle();
    const snapshot = sandbox.journal
      .list()
      .flatMap((e) => e.events)
      .find((e) => e.action === 'SNAPSHOT' && e.objectId === Number(contact.id));
    expect(snapshot?.propertyChanges).toEqual({ jobtitle: 'Buyer' });
  });
});

describe('retention', () => {
  it('drops entries older than three days, and an offset among them is gone: 404, FeedPositionLost', async () => {
    await subscribe();
    sandbox.createContact({ email: 'old@journal.example' });
    await settle();
    const old = sandbox.journal.list().at(-1)!.offset;
    sandbox.journal.age(JOURNAL_RETENTION_MS - 60_000);
    expect(sandbox.journal.list().map((e) => e.offset)).toContain(old);
    // From outside, as a tool would let the time pass.
    const age = (body: unknown) =>
      fetch(`${sandbox.url}/__sandbox/journal/age`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await age({ days: 1 })).status).toBe(400);
    expect((await age({ ms: 60_001 })).status).toBe(200);
    expect(sandbox.journal.list().map((e) => e.offset)).not.toContain(old);

    const read = await token('developer.webhooks_journal.read');
    const res = await api(`${J}/offset/${old}/next`, read);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toContain('3 days');
    await expect(client.entries(sandbox.portalId, old, 10)).rejects.toBeInstanceOf(FeedPositionLost);
  });
});
