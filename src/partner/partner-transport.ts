import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DispatchSlot, Priority, RateLimiter } from '../core/limiter.js';
import { sendReportingDeparture } from './departure.js';
import { PartnerError } from './partner-error.js';
import { backoffDelayMs, isRetryable, parseRetryAfter, partnerErrorFor, type AttemptOutcome } from './retry-policy.js';
import { GenericErrorBody } from './schemas.js';

export type PartnerEndpoint = 'company' | 'people' | 'people_search' | 'filter_options';

/** One HTTP attempt, for metrics. Carries no identifiers and no personal data. */
export interface PartnerRequestEvent {
  endpoint: PartnerEndpoint;
  /** HTTP status; 0 when there was no answer (timeout, connection failure). */
  status: number;
  attempt: number;
  durationMs: number;
  kind: 'ok' | 'no_match' | 'retry' | 'failed';
  /** The error code when kind is retry or failed. */
  code?: string;
}

export interface TransportSettings {
  baseUrl: string;
  apiKey: string;
  limiter: RateLimiter;
  timeoutMs: number;
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
  onRequest: (event: PartnerRequestEvent) => void;
}

export interface PartnerRequest {
  endpoint: PartnerEndpoint;
  method: 'GET' | 'POST';
  path: string;
  query?: URLSearchParams;
  body?: unknown;
  priority: Priority;
  /** A lookup: the provider's 404 means "no match" rather than an error. */
  lookup?: boolean;
  /** Runs inside the limiter slot before each attempt; what it throws ends the request unsent. */
  beforeSend?: () => Promise<void>;
  /** Runs after an attempt the provider did not serve (see CallOptions.unserved). */
  unserved?: () => Promise<void>;
}

/**
 * Sends requests with the bearer key, a timeout and the retry table. Every attempt, retries
 * included, waits for the limiter; backoff waits happen outside it, so they hold no slot.
 */
export class PartnerTransport {
  readonly #settings: TransportSettings;
  readonly #base: string;

  constructor(settings: TransportSettings) {
    this.#settings = settings;
    this.#base = settings.baseUrl.replace(/\/+$/, '');
  }

  /** The parsed JSON body, or null for a lookup with no match. */
  async send(request: PartnerRequest): Promise<unknown> {
    const { maxRetries, baseDelayMs, maxDelayMs, maxRetryAfterMs, limiter, onRequest } = this.#settings;
    const label = `${request.method} /${request.path}`;
    for (let attempt = 1; ; attempt++) {
      const { outcome, durationMs } = await limiter.schedule(request.priority, (slot) => this.attempt(request, slot));
      const event = {
        endpoint: request.endpoint,
        status: outcome.type === 'response' ? outcome.status : 0,
        attempt,
        durationMs,
      };
      if (outcome.type === 'response' && outcome.status >= 200 && outcome.status < 300) {
        onRequest({ ...event, kind: 'ok' });
        return parseJson(outcome.body, label, attempt);
      }
      if (request.lookup && outcome.type === 'response' && isNoMatch(outcome)) {
        onRequest({ ...event, kind: 'no_match' });
        return null;
      }
      if (request.unserved && notServed(outcome)) await request.unserved();
      const retryAfterMs = outcome.type === 'response' ? outcome.retryAfterMs : undefined;
      const retry = isRetryable(outcome) && attempt <= maxRetries && (retryAfterMs ?? 0) <= maxRetryAfterMs;
      const error = partnerErrorFor(outcome, label, attempt);
      onRequest({ ...event, kind: retry ? 'retry' : 'failed', code: error.code });
      if (!retry) throw error;
      await sleep(backoffDelayMs(attempt, baseDelayMs, maxDelayMs, retryAfterMs));
    }
  }

  private async attempt(
    request: PartnerRequest,
    slot: DispatchSlot,
  ): Promise<{ outcome: AttemptOutcome; durationMs: number }> {
    const { apiKey, timeoutMs } = this.#settings;
    await request.beforeSend?.();
    const started = performance.now();
    const url = `${this.#base}/${request.path}${request.query?.size ? `?${request.query.toString()}` : ''}`;
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}`, accept: 'application/json' };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    let outcome: AttemptOutcome;
    try {
      // The limiter learns when the request is written to the socket: time lost since its slot (the
      // credit reservation's database round trip, a held event loop) is counted against the limit then,
      // before later slots are given.
      const response = await sendReportingDeparture(
        () => slot.sending(),
        () =>
          fetch(url, {
            method: request.method,
            headers,
            body: request.body === undefined ? undefined : JSON.stringify(request.body),
            signal: AbortSignal.timeout(timeoutMs),
          }),
      );
      const body = await response.text();
      outcome = {
        type: 'response',
        status: response.status,
        body,
        retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
      };
    } catch (error) {
      outcome =
        (error as Error).name === 'TimeoutError'
          ? { type: 'timeout', timeoutMs }
          : { type: 'connection', error: error as Error };
    }
    return { outcome, durationMs: performance.now() - started };
  }
}

/** Refused before any work (rate, key) or never delivered: nothing was served, so nothing was spent. */
function notServed(outcome: AttemptOutcome): boolean {
  if (outcome.type === 'connection') return true;
  return outcome.type === 'response' && (outcome.status === 429 || outcome.status === 401 || outcome.status === 403);
}

/**
 * The provider answers an unknown lookup with 404 and its generic error body. A 404 without that
 * body (a proxy's page, a wrong PARTNER_BASE_URL) is an error, or every lookup would quietly find nothing.
 */
function isNoMatch(outcome: { status: number; body: string }): boolean {
  if (outcome.status !== 404) return false;
  try {
    return GenericErrorBody.safeParse(JSON.parse(outcome.body)).success;
  } catch {
    return false;
  }
}

function parseJson(body: string, label: string, attempts: number): unknown {
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new PartnerError({
      status: 200,
      code: 'invalid_response',
      kind: 'permanent',
      attempts,
      message:
        `${label}: the partner API answered with a body that is not JSON. Check PARTNER_BASE_URL ` +
        'points at the API.',
      cause: error,
    });
  }
}
