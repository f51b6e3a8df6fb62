/**
 * The HubSpot app webhook: verify the signature on the raw bytes, parse the event array, turn it into
 * record events. Pure and synchronous so the route can store and answer well within HubSpot's 5 s.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  WebhookError,
  type HttpReply,
  type RecordEvent,
  type WebhookHandler,
  type WebhookHead,
  type WebhookParseResult,
  type WebhookRequest,
} from '../../src/core/connector.js';
import { checkSignatureHeaders, verifyHubspotSignature } from './signature.js';
import { actorOf } from './change-source.js';

export const MAX_EVENTS_PER_DELIVERY = 100;

/** Properties whose change means "enrich again" when the mapping does not say otherwise. */
export const DEFAULT_WATCHED_PROPERTIES: WatchedProperties = {
  contact: ['email', 'hs_linkedin_url'],
  company: ['domain', 'website'],
};

export interface WatchedProperties {
  contact: string[];
  company: string[];
}

const id = z.union([z.number().int(), z.string().regex(/^\d+$/).transform(Number)]);

const EventSchema = z
  .looseObject({
    eventId: id,
    subscriptionId: id.optional(),
    portalId: id,
    appId: id.optional(),
    occurredAt: z.number().int().nonnegative().max(8_640_000_000_000_000, 'occurredAt is not a time'),
    subscriptionType: z.string().optional(),
    eventType: z.string().optional(),
    attemptNumber: z.number().int().nonnegative().optional(),
    objectId: id,
    /** Generic `object.*` events name the object type by id: 0-1 contacts, 0-2 companies. */
    objectTypeId: z.string().max(20).optional(),
    changeSource: z.string().optional(),
    /** For INTEGRATION changes, the app that made them. */
    sourceId: z.union([z.string().max(64), z.number()]).optional(),
    changeFlag: z.string().optional(),
    propertyName: z.string().optional(),
    // HubSpot's own limit for a property value; anything longer did not come from HubSpot.
    propertyValue: z
      .string()
      .max(65_536, 'propertyValue is longer than HubSpot allows (65,536 characters)')
      .nullable()
      .optional(),
    primaryObjectId: id.optional(),
    mergedObjectIds: z.array(id).optional(),
    newObjectId: id.optional(),
  })
  .refine((e) => e.subscriptionType ?? e.eventType, {
    message: 'subscriptionType is required',
    path: ['subscriptionType'],
  });

const DeliverySchema = z
  .array(EventSchema)
  .min(1, 'expected at least one event')
  .max(MAX_EVENTS_PER_DELIVERY, `expected at most ${MAX_EVENTS_PER_DELIVERY} events per delivery`);

type HubspotEvent = z.infer<typeof EventSchema>;

export interface HubspotWebhookOptions {
  /** The app's client secret: the key of the v3 signature. Without it every delivery is refused. */
  clientSecret: string | undefined;
  connection?: string;
  /** Properties whose change produces a `changed` event; others are acknowledged and ignored. */
  watchProperties?: Partial<WatchedProperties>;
  /** Accept v1/v2 signatures, which workflow webhook actions send. */
  acceptLegacySignatures?: boolean;
  /** Public base URL HubSpot calls (behind a proxy); replaces the scheme and host of the request URL. */
  publicUrl?: string;
  /**
   * The connected portal's id, once known: a delivery with an event of any other portal is refused
   * (a second portal that installed the app, or a replay from elsewhere), never processed.
   */
  portalId?: () => number | undefined;
  now?: () => number;
}

/** Same HubSpot event, same key: attemptNumber and eventId are left out on purpose (redeliveries differ in them). */
export function hubspotDedupKey(e: HubspotEvent): string {
  const parts = [
    e.portalId,
    e.subscriptionType ?? e.eventType,
    e.objectId,
    e.occurredAt,
    e.propertyName ?? '',
    e.propertyValue ?? '',
  ];
  return 'hubspot:' + createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

function signedUrl(requestUrl: string, publicUrl: string | undefined): string {
  if (!publicUrl) return requestUrl;
  const req = new URL(requestUrl);
  return new URL(publicUrl).origin + req.pathname + req.search;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
  return `${path ? `events${path}` : 'events'}: ${issue.message}`;
}

/** Generic webhook events' objectTypeId for the objects enriched. */
const OBJECT_TYPE_IDS: Record<string, 'contact' | 'company' | undefined> = { '0-1': 'contact', '0-2': 'company' };

export function createHubspotWebhookHandler(options: HubspotWebhookOptions): WebhookHandler {
  const connection = options.connection ?? 'default';
  const watched = {
    contact: new Set(options.watchProperties?.contact ?? DEFAULT_WATCHED_PROPERTIES.contact),
    company: new Set(options.watchProperties?.company ?? DEFAULT_WATCHED_PROPERTIES.company),
  };

  function toRecordEvent(e: HubspotEvent): RecordEvent | undefined {
    const type = e.subscriptionType ?? e.eventType ?? '';
    const [prefix, action] = type.split('.');
    // `object.creation` for objectTypeId 0-1 is `contact.creation` by another name, and so on.
    const objectType = prefix === 'object' ? OBJECT_TYPE_IDS[e.objectTypeId ?? ''] : prefix;
    if (objectType !== 'contact' && objectType !== 'company') return undefined;
    const base = {
      crm: 'hubspot' as const,
      connection,
      objectType,
      recordId: String(e.objectId),
      dedupKey: hubspotDedupKey(e),
      occurredAt: new Date(e.occurredAt).toISOString(),
      ...actorOf(e),
    };
    switch (action) {
      case 'creation':
        return { ...base, kind: 'created' };
      case 'deletion':
        return { ...base, kind: 'deleted' };
      case 'privacyDeletion':
        return { ...base, kind: 'privacy_deletion' };
      case 'propertyChange':
        if (!e.propertyName || !watched[objectType].has(e.propertyName)) return undefined;
        return { ...base, kind: 'changed', changedProperties: { [e.propertyName]: e.propertyValue ?? null } };
      case 'merge': {
        const survivor = String(e.newObjectId ?? e.primaryObjectId ?? e.objectId);
        const merged = [...(e.mergedObjectIds ?? []), e.primaryObjectId, e.objectId]
          .filter((v) => v !== undefined)
          .map(String)
          .filter((v) => v !== survivor);
        return { ...base, recordId: survivor, kind: 'merged', mergedIds: [...new Set(merged)] };
      }
      default:
        return undefined;
    }
  }

  const notConfigured = () =>
    new WebhookError(
      401,
      'webhook_not_configured',
      "HubSpot webhooks cannot be verified: set HUBSPOT_CLIENT_SECRET to the app's client secret.",
    );
  const badSignature = (reason: string) =>
    new WebhookError(
      401,
      'invalid_signature',
      `HubSpot signature rejected: ${reason}. Check HUBSPOT_CLIENT_SECRET and PUBLIC_URL.`,
    );
  const signatureOptions = (clientSecret: string) => ({
    clientSecret,
    legacy: options.acceptLegacySignatures ? (['v1', 'v2'] as const) : [],
    now: options.now,
  });
  const lowerCase = (headers: WebhookHead['headers']) =>
    Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));

  return {
    verifyHead(head: WebhookHead): WebhookError | undefined {
      if (!options.clientSecret) return notConfigured();
      const lower = lowerCase(head.headers);
      const check = checkSignatureHeaders((name) => lower[name], signatureOptions(options.clientSecret));
      return check && !check.ok ? badSignature(check.reason) : undefined;
    },

    parse(request: WebhookRequest): WebhookParseResult {
      if (!options.clientSecret) return { ok: false, error: notConfigured() };
      const lower = lowerCase(request.headers);
      const check = verifyHubspotSignature(
        {
          method: request.method,
          url: signedUrl(request.url, options.publicUrl),
          rawBody: request.rawBody,
          header: (name) => lower[name],
        },
        signatureOptions(options.clientSecret),
      );
      if (!check.ok) return { ok: false, error: badSignature(check.reason) };
      let json: unknown;
      try {
        json = JSON.parse(request.rawBody.toString('utf8'));
      } catch {
        return {
          ok: false,
          error: new WebhookError(400, 'invalid_json', 'The body is not JSON; HubSpot sends a JSON array of events.'),
        };
      }
      const parsed = DeliverySchema.safeParse(json);
      if (!parsed.success) {
        const message = parsed.error.issues.slice(0, 5).map(describeIssue).join('; ');
        return {
          ok: false,
          error: new WebhookError(400, 'invalid_events', `The event array is malformed: ${message}`),
        };
      }
      const portal = options.portalId?.();
      if (portal !== undefined) {
        const foreign = parsed.data.filter((e) => e.portalId !== portal).length;
        if (foreign > 0) {
          return {
            ok: false,
            error: new WebhookError(
              403,
              'wrong_portal',
              `${foreign} event(s) of this delivery come from another HubSpot portal than the connected one ` +
                `(${portal}); nothing was stored.`,
            ),
          };
        }
      }
      const seen = new Set<string>();
      const events: RecordEvent[] = [];
      for (const e of parsed.data) {
        const event = toRecordEvent(e);
        if (event && !seen.has(event.dedupKey)) {
          seen.add(event.dedupKey);
          events.push(event);
        }
      }
      return { ok: true, events };
    },

    ackReply(events: RecordEvent[]): HttpReply {
      return {
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({ status: 'ok', accepted: events.length }),
      };
    },

    errorReply(error: WebhookError): HttpReply {
      return {
        status: error.status,
        contentType: 'application/json',
        body: JSON.stringify({ status: 'error', code: error.code, message: error.message }),
      };
    },
  };
}
