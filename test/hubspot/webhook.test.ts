import { describe, expect, it } from 'vitest';
import { createHubspotWebhookHandler } from '../../connectors/hubspot/webhook.js';
import { signV3 } from '../../connectors/hubspot/signature.js';

const SECRET = 'webhook-secret';
const URL = 'https://enrich.example.com/webhooks/hubspot';
const NOW = 1_700_000_000_000;

function deliver(events: unknown, options: Partial<Parameters<typeof createHubspotWebhookHandler>[0]> = {}) {
  const body = typeof events === 'string' ? events : JSON.stringify(events);
  const timestamp = String(NOW);
  const handler = createHubspotWebhookHandler({ clientSecret: SECRET, now: () => NOW, connection: 'eu', ...options });
  return handler.parse({
    method: 'POST',
    url: URL,
    rawBody: Buffer.from(body),
    headers: {
      'X-HubSpot-Signature-v3': signV3(SECRET, 'POST', URL, body, timestamp),
      'X-HubSpot-Request-Timestamp': timestamp,
    },
  });
}

const base = {
  eventId: 100,
  subscriptionId: 7,
  portalId: 62515,
  appId: 54321,
  occurredAt: NOW - 1000,
  attemptNumber: 0,
  changeSource: 'CRM',
};

function events(result: ReturnType<typeof deliver>) {
  if (!result.ok) throw result.error;
  return result.events;
}

describe('HubSpot webhook parsing', () => {
  it('handles generic object.* events for contacts (0-1) and companies (0-2) like contact.* and company.*', () => {
    const out = events(
      deliver([
        { ...base, subscriptionType: 'object.creation', objectTypeId: '0-1', objectId: 11, changeFlag: 'CREATED' },
        {
          ...base,
          eventId: 102,
          subscriptionType: 'object.propertyChange',
          objectTypeId: '0-2',
          objectId: 12,
          propertyName: 'domain',
          propertyValue: 'example.org',
        },
        { ...base, eventId: 103, subscriptionType: 'object.creation', objectTypeId: '0-3', objectId: 13 },
      ]),
    );
    expect(out).toEqual([
      expect.objectContaining({ objectType: 'contact', recordId: '11', kind: 'created' }),
      expect.objectContaining({
        objectType: 'company',
        recordId: '12',
        kind: 'changed',
        changedProperties: { domain: 'example.org' },
      }),
    ]);
  });

  it('refuses a delivery with an event of another portal than the connected one, and accepts its own', () => {
    const foreign = deliver(
      [
        { ...base, subscriptionType: 'contact.creation', objectId: 1 },
        { ...base, eventId: 104, portalId: 999, subscriptionType: 'contact.creation', objectId: 2 },
      ],
      { portalId: () => 62515 },
    );
    expect(foreign.ok).toBe(false);
    if (!foreign.ok) expect(foreign.error).toMatchObject({ status: 403, code: 'wrong_portal' });
    expect(
      events(deliver([{ ...base, subscriptionType: 'contact.creation', objectId: 1 }], { portalId: () => 62515 })),
    ).toHaveLength(1);
    // Until the portal is known, the signature is the check.
    expect(
      events(
        deliver([{ ...base, portalId: 999, subscriptionType: 'contact.creation', objectId: 1 }], {
          portalId: () => undefined,
        }),
      ),
    ).toHaveLength(1);
  });

  it('refuses an occurredAt that is no time, instead of failing on it', () => {
    const result = deliver([{ ...base, subscriptionType: 'contact.creation', objectId: 1, occurredAt: 9e15 }]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.status).toBe(400);
  });

  it('turns creations into created events for contacts and companies', () => {
    const out = events(
      deliver([
        { ...base, subscriptionType: 'contact.creation', objectId: 1, changeFlag: 'NEW' },
        { ...base, eventId: 101, subscriptionType: 'company.creation', objectId: 2 },
      ]),
    );
    expect(out).toEqual([
      expect.objectContaining({
        crm: 'hubspot',
        connection: 'eu',
        objectType: 'contact',
        recordId: '1',
        kind: 'created',
        occurredAt: new Date(NOW - 1000).toISOString(),
      }),
      expect.objectContaining({ objectType: 'company', recordId: '2', kind: 'created' }),
    ]);
  });

  it('says who made each change: this app (its own app id as sourceId), another app, a person, bulk work', () => {
    const out = events(
      deliver([
        { ...base, subscriptionType: 'company.creation', objectId: 1, changeSource: 'INTEGRATION', sourceId: '54321' },
        {
          ...base,
          eventId: 101,
          subscriptionType: 'contact.creation',
          objectId: 2,
          changeSource: 'INTEGRATION',
          sourceId: '777',
        },
        { ...base, eventId: 102, subscriptionType: 'contact.creation', objectId: 3, changeSource: 'CRM_UI' },
        {
          ...base,
          eventId: 103,
          subscriptionType: 'contact.propertyChange',
          objectId: 4,
          propertyName: 'email',
          propertyValue: 'a@b.example',
          changeSource: 'INTEGRATION',
          sourceId: 54321,
        },
        { ...base, eventId: 104, subscriptionType: 'contact.creation', objectId: 5, changeSource: 'IMPORT' },
        { ...base, eventId: 105, subscriptionType: 'contact.creation', objectId: 6 },
      ]),
    );
    expect(out.map((e) => [e.recordId, e.actor ?? 'unknown', e.actorId ?? ''])).toEqual([
      ['1', 'this_service', ''],
      ['2', 'app', 'INTEGRATION:777'],
      ['3', 'person', ''],
      ['4', 'this_service', ''],
      ['5', 'bulk', 'IMPORT'],
      ['6', 'unknown', ''],
    ]);
  });

  it('keeps property changes on watched properties only', () => {
    const out = events(
      deliver([
        {
          ...base,
          subscriptionType: 'contact.propertyChange',
          objectId: 3,
          propertyName: 'email',
          propertyValue: 'new@example.com',
        },
        {
          ...base,
          subscriptionType: 'contact.propertyChange',
          objectId: 3,
          propertyName: 'lifecyclestage',
          propertyValue: 'lead',
        },
        {
          ...base,
          subscriptionType: 'company.propertyChange',
          objectId: 4,
          propertyName: 'domain',
          propertyValue: 'example.org',
        },
      ]),
    );
    expect(out.map((e) => [e.kind, e.recordId, e.changedProperties])).toEqual([
      ['changed', '3', { email: 'new@example.com' }],
      ['changed', '4', { domain: 'example.org' }],
    ]);
  });

  it('watches what the mapping says when told', () => {
    const out = events(
      deliver(
        [
          {
            ...base,
            subscriptionType: 'contact.propertyChange',
            objectId: 3,
            propertyName: 'lifecyclestage',
            propertyValue: 'lead',
          },
        ],
        { watchProperties: { contact: ['lifecyclestage'] } },
      ),
    );
    expect(out).toHaveLength(1);
  });

  it('maps privacy deletions, deletions and merges, and ignores other subscriptions', () => {
    const out = events(
      deliver([
        { ...base, subscriptionType: 'contact.privacyDeletion', objectId: 5 },
        { ...base, subscriptionType: 'company.deletion', objectId: 6 },
        {
          ...base,
          subscriptionType: 'contact.merge',
          objectId: 7,
          primaryObjectId: 7,
          mergedObjectIds: [8, 9],
          newObjectId: 10,
        },
        { ...base, subscriptionType: 'company.merge', objectId: 11, primaryObjectId: 11, mergedObjectIds: [12] },
        { ...base, subscriptionType: 'contact.associationChange', objectId: 13, fromObjectId: 13, toObjectId: 2 },
        { ...base, subscriptionType: 'deal.creation', objectId: 14 },
      ]),
    );
    expect(out.map((e) => [e.kind, e.objectType, e.recordId, e.mergedIds])).toEqual([
      ['privacy_deletion', 'contact', '5', undefined],
      ['deleted', 'company', '6', undefined],
      ['merged', 'contact', '10', ['8', '9', '7']],
      ['merged', 'company', '11', ['12']],
    ]);
  });

  it('accepts the older eventType field name', () => {
    const out = events(deliver([{ ...base, eventType: 'contact.creation', objectId: 15 }]));
    expect(out[0]?.kind).toBe('created');
  });

  it('gives a redelivery the same dedup key and a different event a different one', () => {
    const event = {
      ...base,
      subscriptionType: 'contact.propertyChange',
      objectId: 3,
      propertyName: 'email',
      propertyValue: 'a@example.com',
    };
    const [first] = events(deliver([event]));
    const [again] = events(deliver([{ ...event, attemptNumber: 3, eventId: 999 }]));
    const [other] = events(deliver([{ ...event, propertyValue: 'b@example.com' }]));
    expect(again?.dedupKey).toBe(first?.dedupKey);
    expect(other?.dedupKey).not.toBe(first?.dedupKey);
  });

  it('collapses an event repeated within one delivery', () => {
    const event = { ...base, subscriptionType: 'contact.creation', objectId: 1 };
    expect(events(deliver([event, { ...event, attemptNumber: 1 }]))).toHaveLength(1);
  });

  it.each([
    ['not JSON', '{nope', 'invalid_json', /JSON array/],
    ['an object instead of an array', { objectId: 1 }, 'invalid_events', /expected array/],
    ['an empty array', [], 'invalid_events', /at least one event/],
    [
      'an event without objectId',
      [{ ...base, subscriptionType: 'contact.creation' }],
      'invalid_events',
      /events\[0\]\.objectId/,
    ],
    [
      'an event without a subscription type',
      [{ ...base, objectId: 1 }],
      'invalid_events',
      /events\[0\]\.subscriptionType/,
    ],
    [
      'more than 100 events',
      Array.from({ length: 101 }, (_, i) => ({ ...base, subscriptionType: 'contact.creation', objectId: i })),
      'invalid_events',
      /at most 100/,
    ],
  ])('answers 400 for %s, naming what is wrong', (_what, body, code, message) => {
    const result = deliver(body);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.status).toBe(400);
      expect(result.error.code).toBe(code);
      expect(result.error.message).toMatch(message);
    }
  });

  it('builds the acknowledgement and error replies', () => {
    const handler = createHubspotWebhookHandler({ clientSecret: SECRET });
    expect(handler.ackReply([]).status).toBe(200);
    const result = handler.parse({ method: 'POST', url: URL, rawBody: Buffer.from('[]'), headers: {} });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      const reply = handler.errorReply(result.error);
      expect(reply.status).toBe(401);
      expect(JSON.parse(reply.body)).toMatchObject({ code: 'invalid_signature' });
    }
  });

  it(
    'decides from the head alone what it can: no signature, a stale or missing timestamp, ' +
      'legacy when not accepted',
    () => {
      const handler = createHubspotWebhookHandler({ clientSecret: SECRET, now: () => NOW });
      const head = (headers: Record<string, string>) => handler.verifyHead({ method: 'POST', url: URL, headers });
      expect(head({})?.message).toMatch(/no X-HubSpot-Signature-v3 header/);
      expect(
        head({ 'x-hubspot-signature-v3': 'x', 'x-hubspot-request-timestamp': String(NOW - 6 * 60_000) })?.message,
      ).toMatch(/older than 5 minutes/);
      expect(head({ 'x-hubspot-signature-v3': 'x' })?.code).toBe('invalid_signature');
      expect(head({ 'x-hubspot-signature': 'x' })?.message).toMatch(
        /v1 signatures are not accepted here \(only X-HubSpot-Signature-v3/,
      );
      // A fresh v3 signature passes the head; whether it matches is for the body to show.
      expect(head({ 'X-HubSpot-Signature-v3': 'x', 'X-HubSpot-Request-Timestamp': String(NOW) })).toBeUndefined();
      const legacy = createHubspotWebhookHandler({ clientSecret: SECRET, acceptLegacySignatures: true });
      expect(
        legacy.verifyHead({
          method: 'POST',
          url: URL,
          headers: { 'x-hubspot-signature': 'x', 'x-hubspot-signature-version': 'v2' },
        }),
      ).toBeUndefined();
      expect(
        createHubspotWebhookHandler({ clientSecret: undefined }).verifyHead({ method: 'POST', url: URL, headers: {} })
          ?.code,
      ).toBe('webhook_not_configured');
    },
  );
});
