/**
 * The Salesforce trigger endpoint (`POST /webhooks/salesforce/<secret>`): outbound messages (SOAP) and
 * Flow HTTP callouts (JSON), told apart by content type. Parsing is pure and refuses quickly: secret,
 * size and declarations are checked before any XML parsing. Change Data Capture, when added, is a
 * third trigger producing the same RecordEvents with its own dedup key prefix (`salesforce:cdc:`).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  WebhookError,
  type HttpReply,
  type RecordEvent,
  type WebhookHandler,
  type WebhookHead,
  type WebhookParseResult,
  type WebhookRequest,
} from '../../src/core/connector.js';
import { parseFlowCallout } from './flow-callout.js';
import { toId18 } from './ids.js';
import { ackEnvelope, faultEnvelope, OutboundMessageError, parseOutboundMessage } from './outbound-message.js';

export interface SalesforceWebhookOptions {
  /** The connected org; messages from any other org are refused, and all of them while it is not set. */
  orgId?: string;
  /** The secret path segment; without one every request is refused. */
  secret?: string;
  connection?: string;
  maxBytes?: number;
  now?: () => Date;
}

const OUTBOUND_PREFIX = 'salesforce:om:';
const FLOW_PREFIX = 'salesforce:flow:';

/** Errors for JSON callouts, answered in JSON rather than as a SOAP fault. */
export class FlowCalloutError extends WebhookError {}

const digest = (s: string) => createHash('sha256').update(s).digest();
const sameSecret = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected));
/** Salesforce's `2026-05-01T10:00:00.000+0000` as ISO 8601, or undefined when it is not a date. */
function isoFromSalesforce(d: string): string | undefined {
  if (d.length > 40) return undefined;
  const ms = Date.parse(d.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

export function createSalesforceWebhookHandler(options: SalesforceWebhookOptions): WebhookHandler {
  const connection = options.connection ?? 'default';
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const org15 = options.orgId?.slice(0, 15);
  const now = options.now ?? (() => new Date());

  const refuse = (status: number, code: string, message: string, json: boolean): WebhookParseResult => ({
    ok: false,
    error: json ? new FlowCalloutError(status, code, message) : new WebhookError(status, code, message),
  });

  function parseSoap(body: string): WebhookParseResult {
    let message;
    try {
      message = parseOutboundMessage(body);
    } catch (err) {
      if (err instanceof OutboundMessageError) return refuse(400, err.code, err.message, false);
      throw err;
    }
    if (message.organizationId.slice(0, 15) !== org15) {
      return refuse(
        403,
        'wrong_org',
        'The OrganizationId does not match the connected Salesforce org; check SALESFORCE_ORG_ID.',
        false,
      );
    }
    const events: RecordEvent[] = [];
    for (const n of message.notifications) {
      const dedupKey = `${OUTBOUND_PREFIX}${n.id}`;
      const rawId = (n.fields.Id ?? '').slice(0, 18);
      const recordId = toId18(n.fields.Id ?? '');
      const created = n.fields.CreatedDate && n.fields.CreatedDate === n.fields.LastModifiedDate;
      const stamp = n.fields.LastModifiedDate ?? n.fields.SystemModstamp;
      const occurredAt = stamp ? isoFromSalesforce(stamp) : now().toISOString();
      // One unreadable notification must not sink the others: it is stored as rejected (and parked
      // with its reason), the rest as usual, and the message is acknowledged.
      const rejection = !recordId
        ? `notification ${n.id.slice(0, 40)}: sf:Id is missing or not a valid Salesforce id`
        : !occurredAt
          ? `notification ${n.id.slice(0, 40)}: LastModifiedDate is not a date`
          : undefined;
      const base = {
        crm: 'salesforce' as const,
        connection,
        objectType: n.objectType,
        dedupKey,
        occurredAt: occurredAt ?? now().toISOString(),
      };
      if (rejection) {
        events.push({ ...base, recordId: recordId ?? (rawId || '(none)'), kind: 'rejected', rejection });
        continue;
      }
      events.push({ ...base, recordId: recordId!, kind: created ? 'created' : 'changed', values: n.fields });
    }
    return { ok: true, events };
  }

  function parseJson(body: string): WebhookParseResult {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return refuse(400, 'malformed_json', 'The body is not valid JSON.', true);
    }
    const parsed = parseFlowCallout(json);
    if (!parsed.ok) return refuse(400, 'invalid_callout', parsed.message, true);
    if (parsed.value.organizationId.slice(0, 15) !== org15) {
      return refuse(403, 'wrong_org', 'organizationId does not match the connected Salesforce org.', true);
    }
    return {
      ok: true,
      events: parsed.value.records.map((r) => {
        const recordId = toId18(r.id) ?? r.id;
        const version = r.eventId ?? r.lastModifiedDate ?? `minute:${Math.floor(now().getTime() / 60_000)}`;
        return {
          crm: 'salesforce',
          connection,
          objectType: r.type,
          recordId,
          kind: r.kind,
          dedupKey: `${FLOW_PREFIX}${r.type}:${recordId}:${version}`,
          occurredAt: (r.lastModifiedDate ? isoFromSalesforce(r.lastModifiedDate) : undefined) ?? now().toISOString(),
          ...(r.values ? { values: r.values } : {}),
        };
      }),
    };
  }

  const isJson = (head: WebhookHead) => /^application\/json\b/i.test(head.headers['content-type'] ?? '');

  /** What the head decides (configuration, method, secret) and the size, declared or read. */
  function refuseHead(head: WebhookHead, bytes: number): WebhookParseResult | undefined {
    const json = isJson(head);
    if (!options.secret)
      return refuse(
        503,
        'not_configured',
        'SALESFORCE_WEBHOOK_SECRET is not set; set it and use it as the last path segment.',
        json,
      );
    if (!org15)
      return refuse(
        503,
        'not_configured',
        "SALESFORCE_ORG_ID is not set; set it to the connected org's id so messages can be checked.",
        json,
      );
    if (head.method.toUpperCase() !== 'POST') return refuse(405, 'method_not_allowed', 'Use POST.', json);
    if (!sameSecret(head.params?.secret ?? '', options.secret))
      return refuse(403, 'wrong_secret', 'The secret in the path is wrong.', json);
    if (bytes > maxBytes) return refuse(413, 'too_large', `The body is larger than ${maxBytes} bytes.`, json);
    return undefined;
  }

  return {
    verifyHead(head: WebhookHead): WebhookError | undefined {
      const refused = refuseHead(head, Number(head.headers['content-length'] ?? 0));
      return refused && !refused.ok ? refused.error : undefined;
    },

    parse(request: WebhookRequest): WebhookParseResult {
      const refused = refuseHead(request, request.rawBody.length);
      if (refused) return refused;
      const json = isJson(request);
      const body = request.rawBody.toString('utf8');
      return json ? parseJson(body) : parseSoap(body);
    },

    ackReply(events: RecordEvent[]): HttpReply {
      if (events.length > 0 && events.every((e) => e.dedupKey.startsWith(FLOW_PREFIX))) {
        return { status: 200, contentType: 'application/json', body: JSON.stringify({ accepted: events.length }) };
      }
      return { status: 200, contentType: 'text/xml; charset=utf-8', body: ackEnvelope() };
    },

    errorReply(error: WebhookError): HttpReply {
      if (error instanceof FlowCalloutError) {
        return {
          status: error.status,
          contentType: 'application/json',
          body: JSON.stringify({ error: { code: error.code, message: error.message } }),
        };
      }
      return {
        status: error.status,
        contentType: 'text/xml; charset=utf-8',
        body: faultEnvelope(error.status, error.message),
      };
    },
  };
}
