/**
 * What a failed HubSpot call means for us, in one table (status -> CrmError code and what to do):
 *   429 TEN_SECONDLY_ROLLING -> rate_limited: wait Retry-After or the window, then go on
 *   429 DAILY                -> daily_limit: stop until the daily reset
 *   401 / 403                -> auth: a person must fix the token or its scopes
 *   404                      -> not_found;  400 / 409 / 422 -> validation: do not resend as it is
 *   400 naming required properties left empty -> validation, the message naming them
 *   5xx, timeouts, no answer -> unavailable: back off and retry
 */
import { CrmError } from '../../src/core/connector.js';
import { requiredPropertiesIn, requiredPropertiesMessage } from './batch-outcome.js';

export interface HubspotFailure {
  status: number;
  body: Record<string, unknown>;
  header(name: string): string | undefined;
}

/** Reads the SDK's ApiException (`code`, `body`, `headers`) without depending on its class identity. */
export function asHubspotFailure(error: unknown): HubspotFailure | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; body?: unknown; headers?: unknown };
  if (typeof e.code !== 'number' || e.code < 100) return undefined;
  let body: Record<string, unknown> = {};
  if (typeof e.body === 'string') {
    try {
      body = JSON.parse(e.body) as Record<string, unknown>;
    } catch {
      body = { message: e.body };
    }
  } else if (typeof e.body === 'object' && e.body !== null) {
    body = e.body as Record<string, unknown>;
  }
  const headers = Object.fromEntries(
    Object.entries((e.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), String(v)]),
  );
  return { status: e.code, body, header: (name) => headers[name.toLowerCase()] };
}

/**
 * The next midnight in the portal's time zone, when HubSpot resets the daily limit (UTC when the zone is
 * not known yet). Found by stepping to the zone's next calendar day: no fixed offset, so daylight saving
 * changes are right.
 */
export function nextDailyReset(now: number, timeZone = 'UTC'): string {
  const dayOf = (t: number) =>
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
      new Date(t),
    );
  const today = dayOf(now);
  // The first minute whose date in the zone is not today: search by hour, then by minute.
  let t = now - (now % 60_000);
  while (dayOf(t) === today) t += 3_600_000;
  t -= 3_600_000;
  while (dayOf(t) === today) t += 60_000;
  return new Date(t).toISOString();
}

/** How long to wait after a ten-secondly 429: Retry-After when given, else the window the headers report. */
export function rateLimitWaitMs(failure: HubspotFailure): number {
  const retryAfter = Number(failure.header('retry-after'));
  if (Number.isFinite(retryAfter) && retryAfter > 0) return retryAfter * 1000;
  // Search's own limit is per second: its 429 carries no interval, and a second is all it asks.
  if (failure.body.policyName === 'SECONDLY') return 1_000;
  const interval = Number(failure.header('x-hubspot-ratelimit-interval-milliseconds'));
  return Number.isFinite(interval) && interval > 0 ? interval : 10_000;
}

export function isDailyLimit(failure: HubspotFailure): boolean {
  return failure.status === 429 && failure.body.policyName === 'DAILY';
}

export function toCrmError(failure: HubspotFailure, operation: string, now: number, timeZone?: string): CrmError {
  const message = typeof failure.body.message === 'string' ? failure.body.message : `HTTP ${failure.status}`;
  // The body goes along for callers that read per-record errors; the logger redacts `body`.
  const details = {
    operation,
    status: failure.status,
    category: failure.body.category,
    correlationId: failure.body.correlationId,
    body: failure.body,
  };
  if (failure.status === 429) {
    if (isDailyLimit(failure)) {
      const resetAt = nextDailyReset(now, timeZone);
      return new CrmError(
        'hubspot',
        'daily_limit',
        `HubSpot's daily API limit for this portal is spent; bulk work stops until ${resetAt}. Raise the ` +
          "portal's limit or wait for the reset.",
        undefined,
        resetAt,
        details,
      );
    }
    const wait = rateLimitWaitMs(failure);
    return new CrmError(
      'hubspot',
      'rate_limited',
      `HubSpot's ten-second rate limit was reached during ${operation}; try again in ${wait} ms.`,
      wait,
      undefined,
      details,
    );
  }
  if (failure.status === 401) {
    return new CrmError(
      'hubspot',
      'auth',
      'HubSpot rejected the access token (401). Check HUBSPOT_ACCESS_TOKEN: a private app token of this ' +
        'portal, not expired.',
      undefined,
      undefined,
      details,
    );
  }
  if (failure.status === 403) {
    return new CrmError(
      'hubspot',
      'auth',
      `HubSpot refused ${operation} (403): ${message}. Give the app the crm.objects.contacts, ` +
        'crm.objects.companies and crm.schemas read/write scopes.',
      undefined,
      undefined,
      details,
    );
  }
  if (failure.status === 404)
    return new CrmError(
      'hubspot',
      'not_found',
      `HubSpot found nothing for ${operation}: ${message}`,
      undefined,
      undefined,
      details,
    );
  if (failure.status >= 500)
    return new CrmError(
      'hubspot',
      'unavailable',
      `HubSpot answered ${failure.status} to ${operation}: ${message}`,
      undefined,
      undefined,
      details,
    );
  const required = failure.status === 400 ? requiredPropertiesIn(failure.body) : [];
  if (required.length > 0)
    return new CrmError('hubspot', 'validation', requiredPropertiesMessage(required, operation), undefined, undefined, {
      ...details,
      fields: required,
    });
  return new CrmError(
    'hubspot',
    'validation',
    `HubSpot refused ${operation} (${failure.status}): ${message}`,
    undefined,
    undefined,
    details,
  );
}
