/**
 * Outbound message delivery as Salesforce does it: notifications for records that were created or whose
 * watched fields changed, up to 100 per SOAP POST, resent with growing delays until the receiver
 * answers 200 with `<Ack>true</Ack>`, dropped after 24 hours.
 */
import type { Fields } from './org-data.js';

export interface OutboundNotification {
  id: string;
  objectType: string;
  fields: Fields;
}

export interface OutboundStats {
  sent: number;
  redelivered: number;
  acked: number;
  dropped: number;
  pending: number;
}

export interface OutboundOptions {
  orgId: string;
  actionId: string;
  instanceUrl: () => string;
  url?: string;
  /** Delay before each redelivery; the last one repeats. Salesforce backs off up to 2 hours apart. */
  delaysMs?: number[];
  /** Time to gather notifications into one message. */
  batchWindowMs?: number;
  giveUpAfterMs?: number;
}

const MAX_PER_MESSAGE = 100;
const DEFAULT_DELAYS = Array.from({ length: 14 }, (_, i) => Math.min(1000 * 2 ** i, 2 * 3600_000));
const ACK = /<(?:\w+:)?Ack>\s*true\s*<\/(?:\w+:)?Ack>/;

const escapeXml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

export function outboundEnvelope(
  options: { orgId: string; actionId: string; instanceUrl: string },
  notifications: OutboundNotification[],
): string {
  const org15 = options.orgId.slice(0, 15);
  const body = notifications
    .map((n) => {
      const fields = Object.entries(n.fields)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => `<sf:${k}>${escapeXml(String(v))}</sf:${k}>`)
        .join('');
      return (
        `<Notification><Id>${n.id}</Id><sObject xsi:type="sf:${n.objectType}" ` +
        `xmlns:sf="urn:sobject.enterprise.soap.sforce.com">${fields}</sObject></Notification>`
      );
    })
    .join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
    'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
    '<soapenv:Body><notifications xmlns="http://soap.sforce.com/2005/09/outbound">' +
    `<OrganizationId>${options.orgId}</OrganizationId><ActionId>${options.actionId}</ActionId>` +
    '<SessionId xsi:nil="true"/>' +
    `<EnterpriseUrl>${escapeXml(options.instanceUrl)}/services/Soap/c/62.0/${org15}</EnterpriseUrl>` +
    `<PartnerUrl>${escapeXml(options.instanceUrl)}/services/Soap/u/62.0/${org15}</PartnerUrl>` +
    body +
    '</notifications></soapenv:Body></soapenv:Envelope>'
  );
}

interface Batch {
  notifications: OutboundNotification[];
  attempts: number;
  firstTriedAt: number;
}

export class OutboundDelivery {
  private readonly queue: OutboundNotification[] = [];
  private readonly retries: Batch[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight: AbortController | undefined;
  private closed = false;
  private url: string | undefined;
  readonly stats: Omit<OutboundStats, 'pending'> = { sent: 0, redelivered: 0, acked: 0, dropped: 0 };

  constructor(private readonly options: OutboundOptions) {
    this.url = options.url;
  }

  setUrl(url: string | undefined): void {
    this.url = url;
    this.schedule(0);
  }

  enqueue(notification: OutboundNotification): void {
    this.queue.push(notification);
    this.schedule(this.options.batchWindowMs ?? 20);
  }

  pending(): number {
    return this.queue.length + this.retries.reduce((n, b) => n + b.notifications.length, 0);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.inFlight?.abort();
  }

  private schedule(delayMs: number): void {
    if (this.closed || this.timer || this.inFlight || !this.url) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.deliverNext();
    }, delayMs);
  }

  private nextBatch(): Batch | undefined {
    const now = Date.now();
    const due = this.retries.findIndex((b) => b.firstTriedAt + this.delayAfter(b.attempts) <= now);
    if (due >= 0) return this.retries.splice(due, 1)[0];
    if (this.queue.length === 0) return undefined;
    return { notifications: this.queue.splice(0, MAX_PER_MESSAGE), attempts: 0, firstTriedAt: now };
  }

  /** Time from the first attempt until the next one is due. */
  private delayAfter(attempts: number): number {
    const delays = this.options.delaysMs ?? DEFAULT_DELAYS;
    let total = 0;
    for (let i = 0; i < attempts; i++) total += delays[Math.min(i, delays.length - 1)] ?? 1000;
    return total;
  }

  private async deliverNext(): Promise<void> {
    const url = this.url;
    const batch = this.nextBatch();
    if (!batch || !url || this.closed) {
      this.scheduleRetry();
      return;
    }
    if (batch.attempts > 0) this.stats.redelivered += 1;
    else this.stats.sent += 1;
    batch.attempts += 1;
    const controller = new AbortController();
    this.inFlight = controller;
    let acked: boolean;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'text/xml; charset=utf-8', SOAPAction: '""' },
        body: outboundEnvelope({ ...this.options, instanceUrl: this.options.instanceUrl() }, batch.notifications),
        signal: AbortSignal.any([controller.signal, AbortSignal.timeout(60_000)]),
      });
      acked = response.status === 200 && ACK.test(await response.text());
    } catch {
      acked = false;
    } finally {
      this.inFlight = undefined;
    }
    if (acked) this.stats.acked += batch.notifications.length;
    else if (Date.now() - batch.firstTriedAt > (this.options.giveUpAfterMs ?? 24 * 3600_000))
      this.stats.dropped += batch.notifications.length;
    else this.retries.push(batch);
    if (this.queue.length > 0) this.schedule(0);
    else this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.retries.length === 0) return;
    const now = Date.now();
    const next = Math.min(...this.retries.map((b) => b.firstTriedAt + this.delayAfter(b.attempts)));
    this.schedule(Math.max(0, next - now));
  }
}
