import { describe, expect, it } from 'vitest';
import { createSalesforceWebhookHandler, FlowCalloutError } from '../../connectors/salesforce/webhook.js';
import type { WebhookRequest } from '../../src/core/connector.js';

const ORG = '00Do0000000e0vQEAQ';
const SECRET = 's3cret-path-segment';
const handler = createSalesforceWebhookHandler({ orgId: ORG, secret: SECRET });

/** The example from Salesforce's documentation, as the wire facts give it. */
const envelope = (
  org = ORG,
  notificationId = '04l1N00000HVEMpQAP',
  extra = '',
) => `<?xml version="1.0" encoding="UTF-8"?>
<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body>
 <notifications xmlns="http://soap.sforce.com/2005/09/outbound">
  <OrganizationId>${org}</OrganizationId><ActionId>04k1N0000008pXOQAY</ActionId>
  <SessionId xsi:nil="true"/>
  <EnterpriseUrl>https://x.my.salesforce.com/services/Soap/c/42.0/00Do0000000e0vQ</EnterpriseUrl>
  <PartnerUrl>https://x.my.salesforce.com/services/Soap/u/42.0/00Do0000000e0vQ</PartnerUrl>
  <Notification><Id>${notificationId}</Id>
   <sObject xsi:type="sf:Lead" xmlns:sf="urn:sobject.enterprise.soap.sforce.com">
    <sf:Id>00Q1N00000bS2eOUAS</sf:Id><sf:Email>jane@example.com</sf:Email>${extra}</sObject></Notification>
 </notifications></soapenv:Body></soapenv:Envelope>`;

const request = (body: string | Buffer, options: { secret?: string; contentType?: string } = {}): WebhookRequest => ({
  method: 'POST',
  url: `https://enrich.example.com/webhooks/salesforce/${options.secret ?? SECRET}`,
  headers: { 'content-type': options.contentType ?? 'text/xml; charset=utf-8' },
  rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body),
  params: { secret: options.secret ?? SECRET },
});

function refused(req: WebhookRequest) {
  const result = handler.parse(req);
  if (result.ok) throw new Error(`expected a refusal, got ${result.events.length} events`);
  return result.error;
}

describe('Salesforce outbound messages', () => {
  it('turns a real-format envelope into record events and acks it', () => {
    const result = handler.parse(request(envelope()));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.events).toEqual([
      expect.objectContaining({
        crm: 'salesforce',
        connection: 'default',
        objectType: 'Lead',
        recordId: '00Q1N00000bS2eOUAS',
        kind: 'changed',
        dedupKey: 'salesforce:om:04l1N00000HVEMpQAP',
        values: { Id: '00Q1N00000bS2eOUAS', Email: 'jane@example.com' },
      }),
    ]);
    const ack = handler.ackReply(result.events);
    expect(ack.status).toBe(200);
    expect(ack.contentType).toMatch(/^text\/xml/);
    expect(ack.body).toContain(
      '<notificationsResponse xmlns="http://soap.sforce.com/2005/09/outbound"><Ack>true</Ack></notificationsResponse>',
    );
  });

  it('gives a redelivered message the same dedup key, and another notification a different one', () => {
    const first = handler.parse(request(envelope()));
    const again = handler.parse(request(envelope()));
    const other = handler.parse(request(envelope(ORG, '04l1N00000HVEMqQAP')));
    if (!first.ok || !again.ok || !other.ok) throw new Error('expected all three to parse');
    expect(again.events[0]?.dedupKey).toBe(first.events[0]?.dedupKey);
    expect(other.events[0]?.dedupKey).not.toBe(first.events[0]?.dedupKey);
  });

  it('reads nil fields as null, unescapes predefined entities, and tells created from changed', () => {
    const extra =
      '<sf:Company>Smith &amp; Sons &lt;UK&gt;</sf:Company><sf:Phone xsi:nil="true"/>' +
      '<sf:CreatedDate>2024-05-01T12:00:00.000Z</sf:CreatedDate>' +
      '<sf:LastModifiedDate>2024-05-01T12:00:00.000Z</sf:LastModifiedDate>';
    const result = handler.parse(request(envelope(ORG, '04l1N00000HVEMpQAP', extra)));
    if (!result.ok) throw result.error;
    expect(result.events[0]?.values).toMatchObject({ Company: 'Smith & Sons <UK>', Phone: null });
    expect(result.events[0]?.kind).toBe('created');
    expect(result.events[0]?.occurredAt).toBe('2024-05-01T12:00:00.000Z');
  });

  it('accepts the 15-character form of the org id', () => {
    expect(handler.parse(request(envelope('00Do0000000e0vQ'))).ok).toBe(true);
  });

  it('refuses the wrong org with a SOAP fault and no events', () => {
    const error = refused(request(envelope('00Dxx0000001gEREAY')));
    expect(error.status).toBe(403);
    expect(error.code).toBe('wrong_org');
    const reply = handler.errorReply(error);
    expect(reply.status).toBe(403);
    expect(reply.body).toContain('<faultcode>soapenv:Client</faultcode>');
    expect(reply.body).not.toContain('<Ack>');
  });

  it('refuses the wrong secret, and a missing one', () => {
    expect(refused(request(envelope(), { secret: 'guess' }))).toMatchObject({ status: 403, code: 'wrong_secret' });
    const noSecret = { ...request(envelope()), params: {} };
    expect(refused(noSecret)).toMatchObject({ status: 403, code: 'wrong_secret' });
    const unconfigured = createSalesforceWebhookHandler({ orgId: ORG }).parse(request(envelope()));
    expect(unconfigured.ok).toBe(false);
    if (!unconfigured.ok) expect(unconfigured.error.status).toBe(503);
  });

  it('refuses malformed XML', () => {
    const error = refused(request(envelope().replace('</notifications>', '')));
    expect(error).toMatchObject({ status: 400, code: 'malformed_xml' });
    expect(refused(request('not xml at all'))).toMatchObject({ status: 400 });
    // Passes the XML validator, then makes the parser throw (found by the fuzz test); the refusal
    // does not quote the body.
    const tag = refused(request('<:/'));
    expect(tag).toMatchObject({ status: 400, code: 'malformed_xml' });
    expect(tag.message).not.toContain('<:/');
  });

  it('refuses an entity-expansion payload before parsing it', () => {
    const laughs =
      `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from(
        { length: 9 },
        (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`,
      ).join('')}]>` +
      envelope().replace('<?xml version="1.0" encoding="UTF-8"?>', '').replace('jane@example.com', '&lol9;');
    expect(refused(request(laughs))).toMatchObject({ status: 400, code: 'xml_declaration_refused' });
    const external =
      '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>' +
      envelope().replace('<?xml version="1.0" encoding="UTF-8"?>', '');
    expect(refused(request(external))).toMatchObject({ code: 'xml_declaration_refused' });
  });

  it('refuses an oversize body', () => {
    const big = envelope(ORG, '04l1N00000HVEMpQAP', `<sf:Description>${'x'.repeat(1024 * 1024)}</sf:Description>`);
    expect(refused(request(big))).toMatchObject({ status: 413, code: 'too_large' });
  });

  it('refuses XML that is not an outbound message, and more than 100 notifications', () => {
    expect(refused(request('<a><b>1</b></a>'))).toMatchObject({ status: 400, code: 'not_outbound_message' });
    const one = envelope().match(/<Notification>[\s\S]*<\/Notification>/)?.[0] ?? '';
    const many = envelope().replace(one, one.repeat(101));
    expect(refused(request(many))).toMatchObject({ status: 400, code: 'too_many_notifications' });
    const hundred = handler.parse(request(envelope().replace(one, one.repeat(100))));
    expect(hundred.ok && hundred.events.length).toBe(100);
  });

  it('answers a store failure with a 5xx fault so Salesforce redelivers', () => {
    const reply = handler.errorReply(
      new (class extends Error {
        status = 503;
        code = 'store_unavailable';
      })('could not store') as never,
    );
    expect(reply.status).toBe(503);
    expect(reply.body).toContain('<faultcode>soapenv:Server</faultcode>');
  });
});

describe('Flow HTTP callouts (JSON)', () => {
  const json = (body: object, secret?: string) =>
    request(JSON.stringify({ organizationId: ORG, ...body }), { contentType: 'application/json', secret });

  it('turns records into events with a key that survives a resend', () => {
    const body = {
      records: [
        { type: 'Contact', id: '0035g00000AbCdE', eventId: 'interview-1' },
        { type: 'Lead', id: '00Q1N00000bS2eOUAS', lastModifiedDate: '2024-05-01T12:00:00.000+0000', kind: 'created' },
      ],
    };
    const result = handler.parse(json(body));
    if (!result.ok) throw result.error;
    expect(result.events.map((e) => [e.objectType, e.recordId, e.kind, e.dedupKey])).toEqual([
      ['Contact', '0035g00000AbCdEAAV', 'changed', 'salesforce:flow:Contact:0035g00000AbCdEAAV:interview-1'],
      ['Lead', '00Q1N00000bS2eOUAS', 'created', 'salesforce:flow:Lead:00Q1N00000bS2eOUAS:2024-05-01T12:00:00.000+0000'],
    ]);
    const again = handler.parse(json(body));
    expect(again.ok && again.events.map((e) => e.dedupKey)).toEqual(result.events.map((e) => e.dedupKey));
    const ack = handler.ackReply(result.events);
    expect(ack).toMatchObject({ status: 200, contentType: 'application/json' });
    expect(JSON.parse(ack.body)).toEqual({ accepted: 2 });
  });

  it('names the bad field and answers in JSON', () => {
    const error = refused(json({ records: [{ type: 'Opportunity', id: 'bad' }] }));
    expect(error.status).toBe(400);
    expect(error.message).toContain('records.0.type');
    expect(error.message).toContain('records.0.id');
    const reply = handler.errorReply(error);
    expect(reply.contentType).toBe('application/json');
    expect(JSON.parse(reply.body).error.code).toBe('invalid_callout');
    expect(refused(request('{', { contentType: 'application/json' })).code).toBe('malformed_json');
    expect(refused(json({ records: [] })).message).toContain('at least one record');
  });

  it('takes the plain form {records:[{type,id}]}, and knows a resend within the minute', () => {
    const body = { records: [{ type: 'Lead', id: '00Q1N00000bS2eOUAS' }] };
    const first = handler.parse(json(body));
    const again = handler.parse(json(body));
    expect(first.ok && again.ok).toBe(true);
    if (!first.ok || !again.ok) return;
    expect(first.events).toEqual([expect.objectContaining({ objectType: 'Lead', kind: 'changed' })]);
    expect(again.events[0]!.dedupKey).toBe(first.events[0]!.dedupKey);
    const withEvent = handler.parse(
      json({ records: [{ type: 'Lead', id: '00Q1N00000bS2eOUAS', eventId: 'interview-1' }] }),
    );
    expect(withEvent.ok && withEvent.events[0]!.dedupKey).not.toBe(first.events[0]!.dedupKey);
  });

  it('checks the secret and org for JSON too', () => {
    expect(refused(json({ records: [{ type: 'Lead', id: '00Q1N00000bS2eOUAS', eventId: 'e' }] }, 'nope')).code).toBe(
      'wrong_secret',
    );
    expect(
      refused(
        json({
          organizationId: '00Dxx0000001gER',
          records: [{ type: 'Lead', id: '00Q1N00000bS2eOUAS', eventId: 'e' }],
        }),
      ).code,
    ).toBe('wrong_org');
    const withoutOrg = refused(
      request(JSON.stringify({ records: [{ type: 'Lead', id: '00Q1N00000bS2eOUAS' }] }), {
        contentType: 'application/json',
      }),
    );
    expect(withoutOrg.code).toBe('invalid_callout');
    expect(withoutOrg.message).toContain('organizationId');
  });

  it('keeps the good notifications of a message and marks the unreadable ones rejected, naming the field', () => {
    const notification = (id: string, fields: string) =>
      `<Notification><Id>${id}</Id><sObject xsi:type="sf:Lead" xmlns:sf="urn:sobject.enterprise.soap.sforce.com">` +
      `${fields}</sObject></Notification>`;
    const three =
      notification('04l1N00000HVEMpQA1', '<sf:Id>00Q1N00000bS2eOUAS</sf:Id>') +
      // A valid shape whose checksum suffix does not match.
      notification('04l1N00000HVEMpQA2', '<sf:Id>00Q1N00000bS2eOZZZ</sf:Id>') +
      notification(
        '04l1N00000HVEMpQA3',
        '<sf:Id>00Q1N00000bS2eP</sf:Id><sf:LastModifiedDate>jane@example.com</sf:LastModifiedDate>',
      );
    const body = envelope().replace(/<Notification>[\s\S]*<\/Notification>/, three);
    const result = handler.parse(request(body));
    if (!result.ok) throw result.error;
    expect(result.events.map((e) => e.kind)).toEqual(['changed', 'rejected', 'rejected']);
    expect(result.events[1]!.rejection).toMatch(/sf:Id is missing or not a valid Salesforce id/);
    expect(result.events[2]!.rejection).toMatch(/LastModifiedDate is not a date/);
    // The reason names the field, never the value it carried.
    expect(result.events.map((e) => e.rejection ?? '').join(' ')).not.toContain('jane@example.com');
    expect(handler.ackReply(result.events).body).toContain('<Ack>true</Ack>');
  });

  it('answers every malformed outbound message with a SOAP fault, quickly, whatever its shape', () => {
    const deep =
      '<?xml version="1.0"?>' +
      '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>' +
      `${'<a>'.repeat(50_000)}${'</a>'.repeat(50_000)}</soapenv:Body></soapenv:Envelope>`;
    for (const body of [deep, '<'.repeat(200_000), `<a>${'<b/>'.repeat(60_000)}</a>`]) {
      const started = performance.now();
      const error = refused(request(body));
      // A guard against a hang, not a speed claim (bench salesforce measures parse times): the
      // quadratic parse this replaced took seconds; a busy CI machine may take some hundreds of ms.
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(error.status).toBe(400);
      const reply = handler.errorReply(error);
      expect(reply.contentType).toMatch(/^text\/xml/);
      expect(reply.body).toContain('<faultcode>soapenv:Client</faultcode>');
    }
  });

  it(
    "refuses from the head a wrong secret or a declared body over the limit, in the sender's format, " +
      'and passes the rest',
    () => {
      const head = (secret: string, headers: Record<string, string>) =>
        handler.verifyHead({
          method: 'POST',
          url: 'https://enrich.example.com/webhooks/salesforce/x',
          headers,
          params: { secret },
        });
      expect(head('wrong', { 'content-type': 'text/xml', 'content-length': '10' })).toMatchObject({
        status: 403,
        code: 'wrong_secret',
      });
      expect(
        head(SECRET, { 'content-type': 'application/json', 'content-length': String(2 * 1024 * 1024) }),
      ).toMatchObject({ status: 413, code: 'too_large', constructor: FlowCalloutError });
      expect(head(SECRET, { 'content-type': 'text/xml', 'content-length': '2048' })).toBeUndefined();
      expect(
        createSalesforceWebhookHandler({ secret: SECRET }).verifyHead({
          method: 'POST',
          url: 'https://e.example/',
          headers: {},
          params: { secret: SECRET },
        }),
      ).toMatchObject({ status: 503, code: 'not_configured' });
    },
  );
});
