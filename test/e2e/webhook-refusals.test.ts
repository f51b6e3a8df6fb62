/**
 * Webhooks the service must refuse (bad signature, wrong secret or org, malformed or hostile body,
 * oversize body) are answered in the CRM's own wire format and store nothing: no received event,
 * no job. A well-formed delivery sent the same way is stored, so the counts are shown to move.
 */
import { describe, expect, it } from 'vitest';
import { signV3 } from '../../connectors/hubspot/signature.js';
import { outboundEnvelope } from '../../connectors/salesforce/sandbox/outbound.js';
import { serverUnavailable } from '../support/db.js';
import { schemaQuery, stateReaches } from './probes.js';
import { slowSend } from './slow-sender.js';
import { HUBSPOT_SECRET, SALESFORCE_SECRET, eventually } from './stack.js';
import { useStack } from './use-stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping end-to-end tests: ${skip}`);

const ONE_MB = 1024 * 1024;

describe.skipIf(skip)('webhook refusals', () => {
  // A short body deadline, so the test of a body that never arrives does not wait the default 10 s.
  const stack = useStack({ service: { env: { WEBHOOK_BODY_TIMEOUT_SECONDS: '2' } } });
  let eventId = 1;

  /** Received event keys and jobs on every queue: what a stored delivery leaves behind. */
  async function stored(): Promise<{ events: number; jobs: number }> {
    const [row] = await schemaQuery<{ events: number; jobs: number }>(
      stack.running,
      `SELECT (SELECT count(*)::int FROM $schema.received_event) AS events, ` +
        `(SELECT count(*)::int FROM $schema.job) AS jobs`,
    );
    return row!;
  }

  async function post(path: string, body: string | Buffer, headers: Record<string, string>) {
    const res = await fetch(`${stack.running.url}${path}`, { method: 'POST', headers, body });
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
  }

  function hubspotEvents(n = 1): string {
    return JSON.stringify(
      Array.from({ length: n }, () => ({
        eventId: eventId++,
        subscriptionId: 4001,
        portalId: stack.sandboxes.hubspot.portalId,
        appId: 1000001,
        occurredAt: Date.now(),
        subscriptionType: 'contact.creation',
        attemptNumber: 0,
        objectId: 90_000 + eventId,
        changeSource: 'CRM',
      })),
    );
  }

  function hubspotPost(
    body: string | Buffer,
    options: { secret?: string; timestamp?: number; signature?: string | null } = {},
  ) {
    const url = `${stack.running.url}/webhooks/hubspot`;
    const timestamp = String(options.timestamp ?? Date.now());
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-hubspot-request-timestamp': timestamp,
    };
    if (options.signature !== null)
      headers['x-hubspot-signature-v3'] =
        options.signature ?? signV3(options.secret ?? HUBSPOT_SECRET, 'POST', url, body, timestamp);
    return post('/webhooks/hubspot', body, headers);
  }

  function outbound(options: { orgId?: string; recordId?: string } = {}): string {
    const now = new Date().toISOString();
    return outboundEnvelope(
      {
        orgId: options.orgId ?? stack.sandboxes.salesforce.orgId,
        actionId: '04k8d0000000001AAA',
        instanceUrl: stack.sandboxes.salesforce.url,
      },
      [
        {
          id: `04l8d00000000${String(eventId++).padStart(2, '0')}AAA`,
          objectType: 'Lead',
          fields: {
            Id: options.recordId ?? '00Q8d00000AbCdE',
            Email: 'lead@example.com',
            CreatedDate: now,
            LastModifiedDate: now,
          },
        },
      ],
    );
  }

  const salesforcePost = (body: string | Buffer, secret = SALESFORCE_SECRET) =>
    post(`/webhooks/salesforce/${secret}`, body, { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' });

  it('stores a correctly signed HubSpot delivery (the control the refusals are measured against)', async () => {
    const before = await stored();
    const res = await hubspotPost(hubspotEvents());
    expect(res.status).toBe(200);
    const after = await stored();
    expect(after.events).toBe(before.events + 1);
    expect(after.jobs).toBeGreaterThan(before.jobs);
  });

  it('answers alike whether a delivery takes the direct path or goes through Express (an encoded path)', async () => {
    // `/webhooks/hubspot` is taken by the listener ahead of Express; `/webhooks/%68ubspot` names the
    // same source but only Express's router decodes it. HubSpot signs the URL exactly as it called it.
    const send = async (path: string) => {
      const body = hubspotEvents();
      const timestamp = String(Date.now());
      const signature = signV3(HUBSPOT_SECRET, 'POST', `${stack.running.url}${path}`, body, timestamp);
      const res = await fetch(`${stack.running.url}${path}`, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'x-hubspot-request-timestamp': timestamp,
          'x-hubspot-signature-v3': signature,
        },
      });
      const headers = [
        'content-type',
        'content-security-policy',
        'x-content-type-options',
        'x-frame-options',
        'referrer-policy',
        'cross-origin-resource-policy',
      ];
      return {
        status: res.status,
        text: await res.text(),
        headers: Object.fromEntries(headers.map((h) => [h, res.headers.get(h)])),
      };
    };
    const before = await stored();
    const direct = await send('/webhooks/hubspot');
    const viaExpress = await send('/webhooks/%68ubspot');
    expect(direct.status).toBe(200);
    expect(viaExpress).toEqual(direct);
    expect(direct.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    });
    expect(direct.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect((await stored()).events).toBe(before.events + 2);
  });

  it('refuses HubSpot deliveries with a bad, missing or stale signature (401)', async () => {
    const before = await stored();
    const cases = [
      await hubspotPost(hubspotEvents(), { secret: 'not-the-client-secret' }),
      await hubspotPost(hubspotEvents(), { signature: null }),
      await hubspotPost(hubspotEvents(), { timestamp: Date.now() - 6 * 60_000 }),
      await hubspotPost(hubspotEvents(), {
        signature: signV3(
          HUBSPOT_SECRET,
          'POST',
          `${stack.running.url}/webhooks/hubspot`,
          hubspotEvents(),
          String(Date.now()),
        ),
      }),
    ];
    for (const res of cases) {
      expect(res.status).toBe(401);
      expect(JSON.parse(res.text)).toMatchObject({ status: 'error', code: 'invalid_signature' });
    }
    expect(JSON.parse(cases[2]!.text).message).toMatch(/older than 5 minutes/);
    expect(await stored()).toEqual(before);
  });

  it('refuses correctly signed HubSpot bodies that are not an event array (400), naming what was wrong', async () => {
    const before = await stored();
    const notJson = await hubspotPost('[{"eventId": 1,');
    expect(notJson.status).toBe(400);
    expect(JSON.parse(notJson.text).code).toBe('invalid_json');
    const badEvent = await hubspotPost(
      JSON.stringify([{ eventId: 1, portalId: 1, occurredAt: Date.now(), subscriptionType: 'contact.creation' }]),
    );
    expect(badEvent.status).toBe(400);
    expect(JSON.parse(badEvent.text)).toMatchObject({ code: 'invalid_events' });
    expect(JSON.parse(badEvent.text).message).toMatch(/events\[0\]\.objectId/);
    const empty = await hubspotPost('[]');
    expect(empty.status).toBe(400);
    expect(await stored()).toEqual(before);
  });

  it('refuses a HubSpot body over 1 MB (413), signed or not', async () => {
    const before = await stored();
    const huge = Buffer.from(JSON.stringify([{ padding: 'x'.repeat(ONE_MB) }]));
    const res = await hubspotPost(huge);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text).code).toBe('body_too_large');
    expect(await stored()).toEqual(before);
  });

  it('answers what the head decides before any of the body is sent, and closes the connection', async () => {
    const before = await stored();
    const url = stack.running.url;
    const large = { 'content-type': 'application/json', 'content-length': '1048000' };
    const fresh = {
      'x-hubspot-request-timestamp': String(Date.now()),
      'x-hubspot-signature-v3': 'bm90IGEgc2lnbmF0dXJl',
    };
    const unsigned = await slowSend(url, '/webhooks/hubspot', { headers: large, bodyBytes: 0 });
    const stale = await slowSend(url, '/webhooks/hubspot', {
      headers: { ...large, ...fresh, 'x-hubspot-request-timestamp': String(Date.now() - 6 * 60_000) },
      bodyBytes: 0,
    });
    const tooLarge = await slowSend(url, '/webhooks/hubspot', {
      headers: { ...large, ...fresh, 'content-length': String(2 * ONE_MB) },
      bodyBytes: 0,
    });
    const compressed = await slowSend(url, '/webhooks/hubspot', {
      headers: { ...large, ...fresh, 'content-encoding': 'gzip' },
      bodyBytes: 0,
    });
    const soap = { 'content-type': 'text/xml; charset=utf-8', 'content-length': '1048000' };
    const wrongSecret = await slowSend(url, '/webhooks/salesforce/not-the-secret', { headers: soap, bodyBytes: 0 });
    const sfTooLarge = await slowSend(url, `/webhooks/salesforce/${SALESFORCE_SECRET}`, {
      headers: { ...soap, 'content-length': String(2 * ONE_MB) },
      bodyBytes: 0,
    });
    for (const res of [unsigned, stale, tooLarge, compressed, wrongSecret, sfTooLarge]) {
      expect(res.sentBeforeAnswer).toBe(0);
      expect(res.headers.connection).toBe('close');
    }
    expect([unsigned.status, stale.status, tooLarge.status, compressed.status]).toEqual([401, 401, 413, 415]);
    expect(JSON.parse(unsigned.body)).toMatchObject({
      code: 'invalid_signature',
      message: expect.stringMatching(/no X-HubSpot-Signature-v3/),
    });
    expect(JSON.parse(stale.body).message).toMatch(/older than 5 minutes/);
    expect(JSON.parse(tooLarge.body).code).toBe('body_too_large');
    expect(JSON.parse(compressed.body).code).toBe('unsupported_encoding');
    expect(wrongSecret.status).toBe(403);
    expect(wrongSecret.body).toMatch(/secret in the path is wrong/);
    expect(sfTooLarge.status).toBe(413);
    expect(sfTooLarge.body).toMatch(/<soapenv:Fault>/);
    expect(await stored()).toEqual(before);
  });

  it(
    'cuts off a body that does not arrive within its deadline (408), refuses a chunked body past 1 MB, ' +
      'and stores neither',
    async () => {
      const before = await stored();
      const headers = {
        'content-type': 'application/json',
        'x-hubspot-request-timestamp': String(Date.now()),
        'x-hubspot-signature-v3': 'bm90IGEgc2lnbmF0dXJl',
      };
      // 100 bytes of a declared 10,000, then nothing: the socket would otherwise be held for minutes.
      const stalled = await slowSend(stack.running.url, '/webhooks/hubspot', {
        headers: { ...headers, 'content-length': '10000' },
        bodyBytes: 100,
        chunkBytes: 100,
      });
      expect(stalled.status).toBe(408);
      expect(JSON.parse(stalled.body).code).toBe('body_too_slow');
      expect(stalled.headers.connection).toBe('close');
      // No length declared: the limit is found while reading, and the rest is never read.
      const chunked = await slowSend(stack.running.url, '/webhooks/hubspot', {
        headers: { ...headers, 'transfer-encoding': 'chunked' },
        bodyBytes: ONE_MB + 256 * 1024,
        chunkBytes: 64 * 1024,
        intervalMs: 1,
        chunked: true,
      });
      expect(chunked.status).toBe(413);
      expect(JSON.parse(chunked.body).code).toBe('body_too_large');
      expect(await stored()).toEqual(before);
    },
  );

  it('stores a Salesforce outbound message from the connected org (the control)', async () => {
    const before = await stored();
    const res = await salesforcePost(outbound());
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/<Ack>true<\/Ack>/);
    const after = await stored();
    expect(after.events).toBe(before.events + 1);
    expect(after.jobs).toBeGreaterThan(before.jobs);
  });

  it(
    'stores the good notifications of a Salesforce message, parks an unreadable one with its reason, ' +
      'and acknowledges',
    async () => {
      const now = new Date().toISOString();
      const { orgId, url } = stack.sandboxes.salesforce;
      const body = outboundEnvelope({ orgId, actionId: '04k8d0000000001AAA', instanceUrl: url }, [
        {
          id: `04l8d0000000${String(eventId++).padStart(3, '0')}AAA`,
          objectType: 'Lead',
          fields: { Id: '00Q8d00000AbCdE', Email: 'good@example.com', CreatedDate: now, LastModifiedDate: now },
        },
        {
          id: `04l8d0000000${String(eventId++).padStart(3, '0')}AAA`,
          objectType: 'Lead',
          fields: { Id: '00Q8d00000AbCdEZZZ', Email: 'bad@example.com', CreatedDate: now, LastModifiedDate: now },
        },
      ]);
      const before = await stored();
      const res = await salesforcePost(body);
      expect(res.status).toBe(200);
      expect(res.text).toMatch(/<Ack>true<\/Ack>/);
      expect((await stored()).events).toBe(before.events + 2);
      type Letter = {
        queue: string;
        data: { recordId: string; reason: string };
        error: { code: string; message: string };
      };
      const letter = await eventually(
        async () => {
          const { body: dead } = await stack.running.admin<{ deadLetters: Letter[] }>('GET', '/dead-letters');
          return dead.deadLetters.find((d) => d.data.reason === 'rejected');
        },
        10_000,
        'the unreadable notification to be parked',
      );
      expect(letter.queue).toBe('enrich.salesforce.lead');
      expect(letter.error.code).toBe('invalid_event');
      expect(letter.error.message).toMatch(/sf:Id is missing or not a valid Salesforce id/);
    },
  );

  it(
    'refuses Salesforce messages with a wrong secret, from another org, malformed, with a DOCTYPE or entity, ' +
      'or oversize',
    async () => {
      const before = await stored();
      const expectFault = (
        res: { status: number; contentType: string; text: string },
        status: number,
        text: RegExp,
      ) => {
        expect(res.status).toBe(status);
        expect(res.contentType).toMatch(/text\/xml/);
        expect(res.text).toMatch(/<soapenv:Fault>/);
        expect(res.text).toMatch(text);
      };
      expectFault(await salesforcePost(outbound(), 'not-the-secret'), 403, /secret in the path is wrong/);
      expectFault(
        await salesforcePost(outbound({ orgId: '00D000000000001AAA' })),
        403,
        /OrganizationId does not match/,
      );
      expectFault(await salesforcePost(outbound().replace('</notifications>', '')), 400, /not well-formed XML/);
      expectFault(
        await salesforcePost('<?xml version="1.0"?><a>no envelope</a>'),
        400,
        /Not a Salesforce outbound message/,
      );
      const laughs =
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]>' +
        outbound()
          .replace(/^<\?xml[^>]*\?>/, '')
          .replace('lead@example.com', '&lol2;');
      expectFault(await salesforcePost(laughs), 400, /DOCTYPE and ENTITY declarations are not accepted/);
      const external =
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>' +
        outbound()
          .replace(/^<\?xml[^>]*\?>/, '')
          .replace('lead@example.com', '&xxe;');
      expectFault(await salesforcePost(external), 400, /DOCTYPE and ENTITY declarations are not accepted/);
      const oversize = outbound().replace('lead@example.com', `lead@example.com${' '.repeat(ONE_MB)}`);
      expectFault(await salesforcePost(oversize), 413, /larger than/);
      expect(await stored()).toEqual(before);
    },
  );

  it('keeps answering /readyz within 200 ms while it processes a 60,000-character e-mail-like value', async () => {
    const hostile = `a@${'a.'.repeat(30_000)} `;
    const { id } = stack.sandboxes.hubspot.createContact({ email: hostile });
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      expect((await fetch(`${stack.running.url}/readyz`)).status).toBe(200);
      times.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 50));
    }
    // Typically a few ms; the median must stay under 200 ms and no answer may stall (the old checks
    // blocked the event loop for 7-10 s), with room for a busy CI machine.
    const sorted = [...times].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(200);
    expect(sorted.at(-1)).toBeLessThan(1_000);
    // Nothing to look up in it: the record is settled without a partner call.
    await stateReaches(stack.running, { connection: 'hubspot', objectType: 'contact', recordId: id }, 'skipped');
  });

  it('keeps /metrics labels to a closed set whatever path junk is posted to', async () => {
    const labels = async () =>
      (await (await fetch(`${stack.running.url}/metrics`)).text())
        .split('\n')
        .filter((l) => l.startsWith('crm_enrich_events_received_total{'))
        .map((l) => l.split(' ')[0]);
    const before = new Set(await labels());
    for (let i = 0; i < 40; i++) {
      // An encoding the body parser refuses: the error path that used to label by the raw path segment.
      await post(`/webhooks/junk-${i}-${Math.random().toString(36).slice(2)}`, 'x', {
        'content-type': 'application/json',
        'content-encoding': 'x-bogus',
      });
      await post(`/webhooks/hubspot/junk-${i}`, 'x', {
        'content-type': 'application/json',
        'content-encoding': 'x-bogus',
      });
    }
    const after = await labels();
    const added = after.filter((l) => !before.has(l));
    expect(
      added.every((l) => /source="(hubspot|salesforce|unknown)"/.test(l!)),
      added.join(', '),
    ).toBe(true);
    expect(added.length).toBeLessThanOrEqual(3);
  });
});
