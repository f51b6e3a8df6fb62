/**
 * Delivers app webhooks as HubSpot does: events gathered into batches of up to 100, POSTed with a v3
 * signature, and redelivered (attemptNumber + 1, same eventId) when the receiver fails, answers non-2xx
 * or takes longer than the timeout, up to 10 times with growing delays.
 */
import { signV3 } from '../signature.js';
import type { ChangeEvent, ObjectType } from './object-store.js';

export const MAX_REDELIVERIES = 10;
/** Roughly HubSpot's spread of retries over a day. */
export const DEFAULT_REDELIVERY_DELAYS_MS = [
  60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 28_800_000,
];

export interface WebhookSenderOptions {
  url?: string;
  clientSecret: string;
  portalId: number;
  appId: number;
  subscribed: Record<ObjectType, ReadonlySet<string>>;
  delaysMs?: number[];
  timeoutMs?: number;
  batchDelayMs?: number;
}

export interface WebhookStats {
  deliveries: number;
  delivered: number;
  redelivered: number;
  failed: number;
  eventsSent: number;
}

interface WireEvent {
  eventId: number;
  subscriptionId: number;
  portalId: number;
  appId: number;
  occurredAt: number;
  subscriptionType: string;
  attemptNumber: number;
  objectId: number;
  changeSource: string;
  sourceId?: string;
  changeFlag?: string;
  propertyName?: string;
  propertyValue?: string;
}

const SUBSCRIPTION_IDS: Record<string, number> = {
  'contact.creation': 101,
  'contact.propertyChange': 102,
  'company.creation': 201,
  'company.propertyChange': 202,
};

export class WebhookSender {
  private url: string | undefined;
  private pending: WireEvent[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<AbortController>();
  private nextEventId = 1;
  private closed = false;
  readonly stats: WebhookStats = { deliveries: 0, delivered: 0, redelivered: 0, failed: 0, eventsSent: 0 };

  constructor(private readonly options: WebhookSenderOptions) {
    this.url = options.url;
  }

  setUrl(url: string | undefined): void {
    this.url = url;
  }

  enqueue(change: ChangeEvent): void {
    if (!this.url || this.closed) return;
    const singular = change.objectType === 'contacts' ? 'contact' : 'company';
    if (change.kind === 'propertyChange' && !this.options.subscribed[change.objectType].has(change.name)) return;
    const subscriptionType = `${singular}.${change.kind}`;
    const event: WireEvent = {
      eventId: this.nextEventId++,
      subscriptionId: SUBSCRIPTION_IDS[subscriptionType] ?? 1,
      portalId: this.options.portalId,
      appId: this.options.appId,
      occurredAt: change.at,
      subscriptionType,
      attemptNumber: 0,
      objectId: Number(change.id),
      changeSource: change.source,
      // An app's change names the app; this sandbox's token belongs to the app it delivers to.
      ...(change.source === 'INTEGRATION' ? { sourceId: String(change.appId ?? this.options.appId) } : {}),
    };
    if (change.kind === 'creation') event.changeFlag = 'CREATED';
    else Object.assign(event, { propertyName: change.name, propertyValue: change.value });
    this.pending.push(event);
    if (this.pending.length >= 100) this.flush();
    else this.flushTimer ??= setTimeout(() => this.flush(), this.options.batchDelayMs ?? 25);
  }

  /** Waits until nothing is queued or in flight (redeliveries scheduled later are not waited for). */
  async idle(): Promise<void> {
    while (this.pending.length > 0 || this.inFlight.size > 0) await new Promise((r) => setTimeout(r, 5));
  }

  close(): void {
    this.closed = true;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    for (const t of this.timers) clearTimeout(t);
    for (const c of this.inFlight) c.abort();
    this.timers.clear();
    this.pending = [];
  }

  private flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    while (this.pending.length > 0) void this.deliver(this.pending.splice(0, 100), 0);
  }

  private async deliver(events: WireEvent[], attempt: number): Promise<void> {
    const url = this.url;
    if (!url || this.closed) return;
    const body = JSON.stringify(events.map((e) => ({ ...e, attemptNumber: attempt })));
    const timestamp = String(Date.now());
    const controller = new AbortController();
    const timeout = setTimeout(() => controller.abort(), this.options.timeoutMs ?? 5_000);
    this.inFlight.add(controller);
    this.stats.deliveries++;
    if (attempt > 0) this.stats.redelivered++;
    let ok: boolean;
    try {
      const res = await fetch(url, {
        method: 'POST',
        body,
        signal: controller.signal,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'HubSpot Connect 2.0 (http://dev.hubspot.com/) (namespace: webhooks-nio-http-client)',
          'X-HubSpot-Signature-v3': signV3(this.options.clientSecret, 'POST', url, body, timestamp),
          'X-HubSpot-Signature-Version': 'v3',
          'X-HubSpot-Request-Timestamp': timestamp,
        },
      });
      await res.arrayBuffer();
      ok = res.ok;
    } catch {
      ok = false;
    } finally {
      clearTimeout(timeout);
      this.inFlight.delete(controller);
    }
    if (ok) {
      this.stats.delivered++;
      this.stats.eventsSent += events.length;
      return;
    }
    if (attempt >= MAX_REDELIVERIES || this.closed) {
      this.stats.failed++;
      return;
    }
    const delays = this.options.delaysMs ?? DEFAULT_REDELIVERY_DELAYS_MS;
    const delay = delays[Math.min(attempt, delays.length - 1)] ?? 60_000;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.deliver(events, attempt + 1);
    }, delay);
    this.timers.add(timer);
  }
}
