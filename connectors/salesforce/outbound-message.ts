/**
 * Salesforce outbound messages on the wire: reading the SOAP `notifications` envelope and writing
 * the `notificationsResponse` Ack and SOAP faults. Reading refuses anything that declares a DOCTYPE
 * or entity before the parser sees it, so no entity is ever expanded (billion laughs, external entities).
 */
import { AppError } from '../../src/core/errors.js';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { z } from 'zod';

export const OUTBOUND_NAMESPACE = 'http://soap.sforce.com/2005/09/outbound';
export const MAX_NOTIFICATIONS = 100;
/** Deeper than any outbound message (Envelope > Body > notifications > Notification > sObject > field). */
export const MAX_DEPTH = 32;
/** Far more elements than 100 notifications of a few hundred fields each. */
export const MAX_ELEMENTS = 50_000;

export interface OutboundNotificationMessage {
  organizationId: string;
  actionId: string;
  notifications: { id: string; objectType: string; fields: Record<string, string | null> }[];
}

export type OutboundMessageErrorCode =
  'xml_declaration_refused' | 'malformed_xml' | 'not_outbound_message' | 'too_many_notifications' | 'too_deep';

export class OutboundMessageError extends AppError {
  declare readonly code: OutboundMessageErrorCode;
  constructor(code: OutboundMessageErrorCode, message: string) {
    super(code, message, 'permanent');
  }
}

const FORBIDDEN_DECLARATION = /<!\s*(?:DOCTYPE|ENTITY)/i;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name, path) => path === 'Envelope.Body.notifications.Notification' && name === 'Notification',
});

const Text = z.string();
const NilOrText = z.union([z.string(), z.object({ '@nil': z.literal('true') }).transform(() => null)]);
const NotificationSchema = z.object({
  Id: Text.min(1),
  sObject: z.looseObject({ '@type': z.string().regex(/^(?:\w+:)?\w+$/, 'expected xsi:type such as sf:Lead') }),
});
const EnvelopeSchema = z.object({
  Envelope: z.object({
    Body: z.object({
      notifications: z.object({
        OrganizationId: Text.min(15),
        ActionId: Text,
        SessionId: NilOrText.optional(),
        Notification: z.array(NotificationSchema).min(1, 'expected at least one Notification'),
      }),
    }),
  }),
});

const XML_ESCAPES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'", '&amp;': '&' };
/** The five predefined XML escapes and numeric references; no declared entity can reach this. */
function unescapeXml(text: string): string {
  return text.replace(/&(?:lt|gt|quot|apos|amp|#\d+|#x[0-9a-fA-F]+);/g, (ref) => {
    if (ref in XML_ESCAPES) return XML_ESCAPES[ref] ?? ref;
    const code = ref[2] === 'x' ? parseInt(ref.slice(3, -1), 16) : parseInt(ref.slice(2, -1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : ref;
  });
}

function fieldValue(raw: unknown): string | null | undefined {
  if (typeof raw === 'string') return unescapeXml(raw);
  if (raw && typeof raw === 'object' && (raw as Record<string, unknown>)['@nil'] === 'true') return null;
  return undefined;
}

/**
 * Bounds nesting and element count in one pass over the text, before any parser (whose recursion
 * a deeply nested body would exhaust) sees it. Each tag is skipped to its `>` with indexOf, so the
 * pass is linear whatever the input.
 */
function checkShape(xml: string): void {
  let depth = 0;
  let elements = 0;
  for (let i = xml.indexOf('<'); i !== -1; i = xml.indexOf('<', i)) {
    const end = xml.indexOf('>', i + 1);
    if (end === -1) return; // unterminated: the validator reports it
    const first = xml[i + 1];
    if (first === '/') depth--;
    else if (first !== '?' && first !== '!') {
      if (xml[end - 1] !== '/') depth++;
      if (++elements > MAX_ELEMENTS)
        throw new OutboundMessageError('too_deep', `An outbound message has at most ${MAX_ELEMENTS} elements.`);
      if (depth > MAX_DEPTH)
        throw new OutboundMessageError(
          'too_deep',
          `Elements are nested more than ${MAX_DEPTH} deep; an outbound message never is.`,
        );
    }
    i = end + 1;
  }
}

/** Throws OutboundMessageError with a reason a sender's admin can act on. */
export function parseOutboundMessage(xml: string): OutboundNotificationMessage {
  if (FORBIDDEN_DECLARATION.test(xml)) {
    throw new OutboundMessageError(
      'xml_declaration_refused',
      'DOCTYPE and ENTITY declarations are not accepted in an outbound message.',
    );
  }
  checkShape(xml);
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new OutboundMessageError(
      'malformed_xml',
      `The body is not well-formed XML: ${valid.err.msg} (line ${valid.err.line}).`,
    );
  }
  let document: unknown;
  try {
    document = parser.parse(xml);
  } catch {
    // The validator lets a few malformed inputs through (e.g. `<:/`) that the parser then throws on;
    // its message quotes the body, so it is not passed on.
    throw new OutboundMessageError('malformed_xml', 'The body is not well-formed XML: a tag could not be read.');
  }
  const parsed = EnvelopeSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new OutboundMessageError(
      'not_outbound_message',
      `Not a Salesforce outbound message (${OUTBOUND_NAMESPACE}): ${issue?.path.join('.') || 'body'}: ` +
        `${issue?.message ?? 'invalid'}.`,
    );
  }
  const body = parsed.data.Envelope.Body.notifications;
  if (body.Notification.length > MAX_NOTIFICATIONS) {
    throw new OutboundMessageError(
      'too_many_notifications',
      `An outbound message carries at most ${MAX_NOTIFICATIONS} notifications; got ${body.Notification.length}.`,
    );
  }
  return {
    organizationId: body.OrganizationId,
    actionId: body.ActionId,
    notifications: body.Notification.map((n) => {
      const fields: Record<string, string | null> = {};
      for (const [name, raw] of Object.entries(n.sObject)) {
        if (name.startsWith('@')) continue;
        const value = fieldValue(raw);
        if (value !== undefined) fields[name] = value;
      }
      return { id: n.Id, objectType: n.sObject['@type'].replace(/^\w+:/, ''), fields };
    }),
  };
}

const ENVELOPE_OPEN =
  '<?xml version="1.0" encoding="UTF-8"?>' +
  '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>';
const ENVELOPE_CLOSE = '</soapenv:Body></soapenv:Envelope>';

/** The one answer that tells Salesforce the message is delivered. */
export function ackEnvelope(): string {
  return (
    `${ENVELOPE_OPEN}<notificationsResponse xmlns="${OUTBOUND_NAMESPACE}">` +
    `<Ack>true</Ack></notificationsResponse>${ENVELOPE_CLOSE}`
  );
}

export function faultEnvelope(status: number, message: string): string {
  const code = status >= 500 ? 'soapenv:Server' : 'soapenv:Client';
  const text = message.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return (
    `${ENVELOPE_OPEN}<soapenv:Fault><faultcode>${code}</faultcode>` +
    `<faultstring>${text}</faultstring></soapenv:Fault>${ENVELOPE_CLOSE}`
  );
}
