/**
 * Every parser at the boundary, fed generated input: HubSpot deliveries (signed, so the body is what
 * is tested), Salesforce outbound messages and flow callouts, mapping YAML, and partner responses.
 * None may throw, none may hang on one input (FUZZ_HANG_MS, default 1 s; they take a few ms), and a
 * refusal is a 4xx with a reason.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signV3 } from '../../connectors/hubspot/signature.js';
import { createHubspotWebhookHandler } from '../../connectors/hubspot/webhook.js';
import { createSalesforceWebhookHandler } from '../../connectors/salesforce/webhook.js';
import type { WebhookParseResult, WebhookRequest } from '../../src/core/connector.js';
import { createRateLimiter } from '../../src/limits/create-rate-limiter.js';
import { parseMappingDocument } from '../../src/mapping/parse.js';
import { PartnerClient } from '../../src/partner/client.js';
import { PartnerError } from '../../src/partner/partner-error.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const HANG_MS = Number(process.env.FUZZ_HANG_MS ?? 1_000);
const SECRET = 'fuzz-secret';
const ORG = '00Do0000000e0vQEAQ';

function timed<T>(fn: () => T): T {
  const started = performance.now();
  const value = fn();
  const ms = performance.now() - started;
  // A hang guard; the inputs take a few ms, and a busy CI machine must not fail them.
  if (ms > HANG_MS) throw new Error(`took ${ms.toFixed(0)} ms`);
  return value;
}

function refusedWell(result: WebhookParseResult): void {
  if (result.ok) return;
  expect(result.error.status).toBeGreaterThanOrEqual(400);
  expect(result.error.status).toBeLessThan(500);
  expect(result.error.message.length).toBeGreaterThan(0);
}

/** JSON values shaped like HubSpot events, with every field sometimes wrong. */
const hubspotEvent = fc.record(
  {
    eventId: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
    subscriptionId: fc.integer(),
    portalId: fc.oneof(fc.constant(62515), fc.integer(), fc.string()),
    occurredAt: fc.oneof(fc.integer({ min: 0 }), fc.double(), fc.string()),
    subscriptionType: fc.oneof(
      fc.constantFrom(
        'contact.creation',
        'contact.propertyChange',
        'company.creation',
        'contact.merge',
        'contact.privacyDeletion',
        'deal.creation',
      ),
      fc.string(),
    ),
    objectId: fc.oneof(fc.integer({ min: 1 }), fc.string(), fc.constant(-1)),
    changeSource: fc.oneof(fc.constantFrom('CRM_UI', 'IMPORT', 'INTEGRATION'), fc.string()),
    propertyName: fc.oneof(fc.constantFrom('email', 'hs_linkedin_url'), fc.string()),
    propertyValue: fc.oneof(fc.string(), fc.string({ maxLength: 5_000 }), fc.constant(null)),
    mergedObjectIds: fc.array(fc.oneof(fc.integer(), fc.string())),
  },
  { requiredKeys: [] },
);

describe('fuzzing the boundary parsers', () => {
  it('HubSpot deliveries: signed bodies of any shape are parsed or refused with a 4xx, quickly', () => {
    const handler = createHubspotWebhookHandler({ clientSecret: SECRET });
    const url = 'https://enrich.example.com/webhooks/hubspot';
    const body = fc.oneof(
      fc.array(hubspotEvent, { maxLength: 120 }).map((events) => JSON.stringify(events)),
      fc.json(),
      fc.string({ maxLength: 20_000 }),
    );
    fc.assert(
      fc.property(body, (text) => {
        const timestamp = String(Date.now());
        const request: WebhookRequest = {
          method: 'POST',
          url,
          headers: {
            'content-type': 'application/json',
            'x-hubspot-request-timestamp': timestamp,
            'x-hubspot-signature-v3': signV3(SECRET, 'POST', url, text, timestamp),
          },
          rawBody: Buffer.from(text),
        };
        refusedWell(timed(() => handler.parse(request)));
      }),
      { numRuns: RUNS },
    );
  });

  it('Salesforce outbound messages and flow callouts: any body is parsed or refused with a 4xx, quickly', () => {
    const handler = createSalesforceWebhookHandler({ orgId: ORG, secret: SECRET });
    const field = fc.tuple(
      fc.constantFrom('Id', 'Email', 'LastModifiedDate', 'CreatedDate', 'Company', 'x'),
      fc.string({ maxLength: 200 }),
    );
    const notification = fc.tuple(
      fc.string({ minLength: 1, maxLength: 30 }),
      fc.constantFrom('Lead', 'Contact', 'Account', '1bad'),
      fc.array(field, { maxLength: 8 }),
    );
    const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    const soap = fc
      .tuple(fc.oneof(fc.constant(ORG), fc.string()), fc.array(notification, { maxLength: 5 }))
      .map(
        ([org, notes]) =>
          '<?xml version="1.0"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
          'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body>' +
          '<notifications xmlns="http://soap.sforce.com/2005/09/outbound">' +
          `<OrganizationId>${escape(org)}</OrganizationId><ActionId>04k</ActionId>` +
          notes
            .map(
              ([id, type, fields]) =>
                `<Notification><Id>${escape(id)}</Id>` +
                `<sObject xsi:type="sf:${type}" xmlns:sf="urn:sobject.enterprise.soap.sforce.com">` +
                fields.map(([k, v]) => `<sf:${k}>${escape(v)}</sf:${k}>`).join('') +
                '</sObject></Notification>',
            )
            .join('') +
          '</notifications></soapenv:Body></soapenv:Envelope>',
      );
    const body = fc.oneof(
      soap.map((b) => ({ b, json: false })),
      fc.string({ maxLength: 20_000 }).map((b) => ({ b, json: false })),
      fc.json().map((b) => ({ b, json: true })),
      fc
        .record({
          organizationId: fc.oneof(fc.constant(ORG), fc.string()),
          records: fc.array(fc.record({ type: fc.string(), id: fc.string(), lastModifiedDate: fc.string() }), {
            maxLength: 5,
          }),
        })
        .map((o) => ({ b: JSON.stringify(o), json: true })),
    );
    fc.assert(
      fc.property(body, ({ b, json }) => {
        const request: WebhookRequest = {
          method: 'POST',
          url: `https://enrich.example.com/webhooks/salesforce/${SECRET}`,
          headers: { 'content-type': json ? 'application/json' : 'text/xml; charset=utf-8' },
          rawBody: Buffer.from(b),
          params: { secret: SECRET },
        };
        const result = timed(() => handler.parse(request));
        refusedWell(result);
        if (!result.ok) expect(handler.errorReply(result.error).contentType).toMatch(json ? /json/ : /xml/);
      }),
      { numRuns: RUNS },
    );
  });

  it('mapping YAML: any text gives a document or problems, never an exception, quickly', () => {
    const yamlish = fc.array(
      fc.oneof(
        fc.constantFrom(
          'crm: hubspot',
          'object: contact',
          'fields:',
          '  - { target: firstname, from: first_name, rule: fill_empty }',
          'match:',
          '  - { property: email, as: work_email }',
          'a: &a [1, 2]',
          'b: [*a, *a, *a]',
          '- ',
          '  ',
          ': :',
          '{',
          '[',
          '"',
          "'",
          '!!binary x',
          '%YAML 1.2',
          '---',
        ),
        fc.string({ maxLength: 80 }),
      ),
      { maxLength: 40 },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          yamlish.map((lines) => lines.join('\n')),
          fc.string({ maxLength: 5_000 }),
        ),
        (text) => {
          const parsed = timed(() => parseMappingDocument(text, 'fuzz.yaml'));
          for (const problem of parsed.problems) expect(problem.message.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: RUNS },
    );
  });

  describe('partner responses', () => {
    let server: Server;
    let next: { status: number; body: string } = { status: 200, body: '{}' };
    let client: PartnerClient;
    const limiter = createRateLimiter({ id: 'fuzz:partner', max: 10_000, windowMs: 1000 });
    beforeAll(async () => {
      server = createServer((_req, res) =>
        res.writeHead(next.status, { 'content-type': 'application/json' }).end(next.body),
      );
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      client = new PartnerClient({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        apiKey: 'k',
        limiter,
        maxRetries: 0,
      });
    });
    afterAll(async () => {
      await limiter.stop();
      await new Promise((r) => server.close(r));
    });

    it('any answer gives a company, no match, or a PartnerError naming what was wrong', async () => {
      const company = fc.record(
        {
          id: fc.oneof(fc.string(), fc.integer()),
          name: fc.oneof(fc.string(), fc.constant(null)),
          domain: fc.string(),
          employees: fc.oneof(fc.integer(), fc.string()),
        },
        { requiredKeys: [] },
      );
      const answer = fc.record({
        status: fc.constantFrom(200, 200, 200, 400, 401, 404, 422, 429, 500),
        body: fc.oneof(
          company.map((c) => JSON.stringify(c)),
          fc.json(),
          fc.string({ maxLength: 2_000 }),
        ),
      });
      await fc.assert(
        fc.asyncProperty(answer, async (a) => {
          next = a;
          try {
            await client.lookupCompany({ by: 'id', value: 'co_1' });
          } catch (error) {
            expect(error).toBeInstanceOf(PartnerError);
            expect((error as PartnerError).message.length).toBeGreaterThan(0);
          }
        }),
        { numRuns: Math.min(RUNS, 150) },
      );
    });
  });
});
