/**
 * HubSpot's webhooks journal API (2026-03) as the service calls it. The official client has no methods
 * for it, so the calls are plain HTTPS: a client-credentials token with the journal scopes (kept until
 * shortly before it expires), batch reads of the local journal of the connected portal from an
 * offset, the entries' files behind their links, and the upsert of the subscriptions that make the
 * journal keep contact and company events. An answer other than 2xx becomes a CrmError that says what
 * to do; a next-read of an offset HubSpot no longer holds is a FeedPositionLost.
 */
import { z } from 'zod';
import { CrmError } from '../../src/core/connector.js';
import { FeedPositionLost } from '../../src/core/event-feed.js';

export const JOURNAL_VERSION = '2026-03';
export const JOURNAL_FEED = 'hubspot-journal';
/** The client-credentials scopes the service asks for: read the journal, and keep its subscriptions. */
export const JOURNAL_SCOPES = [
  'developer.webhooks_journal.read',
  'developer.webhooks_journal.subscriptions.read',
  'developer.webhooks_journal.subscriptions.write',
];

const TokenAnswer = z.object({ access_token: z.string().min(1), expires_in: z.number().positive() });
const FetchAnswer = z.object({ currentOffset: z.string().min(1), expiresAt: z.string(), url: z.string().min(1) });
const BatchAnswer = z.object({ results: z.array(FetchAnswer) });

export type JournalLink = z.infer<typeof FetchAnswer>;

export interface JournalSubscriptionInput {
  objectTypeId: string;
  actions: string[];
  properties: string[];
}

export interface JournalClientOptions {
  /** HubSpot's API base URL (HUBSPOT_BASE_URL). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs?: number;
}

export class JournalClient {
  private token: { value: string; expiresAt: number } | undefined;
  private readonly base: string;

  constructor(private readonly options: JournalClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
  }

  /** Up to `count` entries after `offset` (from the oldest kept when undefined) of the portal's local journal. */
  async entries(portalId: number, offset: string | undefined, count: number): Promise<JournalLink[]> {
    const journal = `/webhooks-journal/journal-local/${JOURNAL_VERSION}`;
    const path =
      offset === undefined
        ? `${journal}/batch/earliest/${count}`
        : `${journal}/batch/${encodeURIComponent(offset)}/next/${count}`;
    const res = await this.call('GET', `${path}?installPortalId=${portalId}`);
    if (res.status === 404 && offset !== undefined) {
      await res.arrayBuffer();
      throw new FeedPositionLost('the HubSpot webhooks journal', offset);
    }
    return (await this.answer(res, BatchAnswer, 'journal read')).results;
  }

  /** The file behind an entry's link: fetched without the token, as the link is signed. */
  async file(link: JournalLink): Promise<unknown> {
    const res = await fetch(link.url, { signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000) }).catch(
      (error: unknown) => {
        throw unreachable(error);
      },
    );
    if (!res.ok) {
      await res.arrayBuffer();
      throw new CrmError(
        'hubspot',
        'unavailable',
        `A webhooks journal file could not be fetched (HTTP ${res.status}); its entry is read again shortly.`,
      );
    }
    return res.json();
  }

  /** Creates or updates the portal's subscription for one object type. */
  async upsertSubscription(portalId: number, input: JournalSubscriptionInput): Promise<void> {
    const res = await this.call('POST', `/webhooks-journal/subscriptions/${JOURNAL_VERSION}`, {
      subscriptionType: 'OBJECT',
      portalId,
      objectIds: [],
      ...input,
    });
    await this.answer(res, z.object({ id: z.number() }), 'journal subscription');
  }

  private async call(method: 'GET' | 'POST', path: string, body?: unknown, retried = false): Promise<Response> {
    const token = await this.accessToken();
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
    }).catch((error: unknown) => {
      throw unreachable(error);
    });
    if (res.status === 401 && !retried) {
      // A token HubSpot no longer takes (revoked, or expired early): one new token, one more try.
      await res.arrayBuffer();
      this.token = undefined;
      return this.call(method, path, body, true);
    }
    return res;
  }

  private async answer<T>(res: Response, schema: z.ZodType<T>, what: string): Promise<T> {
    const text = await res.text();
    if (!res.ok) throw failure(res.status, what, text, res.headers.get('retry-after'));
    const parsed = schema.safeParse(text ? JSON.parse(text) : undefined);
    if (!parsed.success) {
      throw new CrmError('hubspot', 'invalid_response', `HubSpot's ${what} answer is not in the expected shape`);
    }
    return parsed.data;
  }

  private async accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt > Date.now()) return this.token.value;
    const res = await fetch(`${this.base}/oauth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: this.options.clientId,
        client_secret: this.options.clientSecret,
        scope: JOURNAL_SCOPES.join(' '),
      }),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
    }).catch((error: unknown) => {
      throw unreachable(error);
    });
    const text = await res.text();
    if (!res.ok) {
      throw new CrmError(
        'hubspot',
        res.status >= 500 ? 'unavailable' : 'auth',
        `HubSpot refused the client-credentials token for the webhooks journal (HTTP ${res.status}). Check ` +
          `HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET, and that the app has the scopes ${JOURNAL_SCOPES.join(', ')}.`,
      );
    }
    const parsed = TokenAnswer.safeParse(JSON.parse(text));
    if (!parsed.success)
      throw new CrmError('hubspot', 'invalid_response', "HubSpot's token answer has no access_token");
    // A minute early, so no call goes out with a token about to expire.
    this.token = { value: parsed.data.access_token, expiresAt: Date.now() + (parsed.data.expires_in - 60) * 1000 };
    return this.token.value;
  }
}

function unreachable(error: unknown): CrmError {
  return new CrmError(
    'hubspot',
    'unavailable',
    `HubSpot's webhooks journal could not be reached: ${(error as Error).message}; it is read again shortly.`,
  );
}

function failure(status: number, what: string, body: string, retryAfter: string | null): CrmError {
  let message = '';
  try {
    const said = (JSON.parse(body) as { message?: unknown }).message;
    message = typeof said === 'string' ? said : '';
  } catch {
    // Not HubSpot's JSON error body: the status says enough.
  }
  const said = message ? `: ${message}` : '';
  if (status === 401 || status === 403)
    return new CrmError(
      'hubspot',
      'auth',
      `HubSpot refused the ${what} (HTTP ${status})${said}. The app needs the scopes ${JOURNAL_SCOPES.join(', ')}.`,
    );
  if (status === 429) {
    const seconds = Number(retryAfter);
    return new CrmError(
      'hubspot',
      'rate_limited',
      `HubSpot limited the ${what} (HTTP 429)`,
      Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 10_000,
    );
  }
  if (status >= 500) return new CrmError('hubspot', 'unavailable', `HubSpot failed the ${what} (HTTP ${status})`);
  return new CrmError('hubspot', 'validation', `HubSpot refused the ${what} (HTTP ${status})${said}`);
}
