import type { ErrorKind } from '../core/errors.js';
import { PartnerError } from './partner-error.js';
import { FilterErrorBody, GenericErrorBody } from './schemas.js';

/** What one request came back with, before any judgement. */
export type AttemptOutcome =
  | { type: 'response'; status: number; body: string; retryAfterMs?: number }
  | { type: 'timeout'; timeoutMs: number }
  | { type: 'connection'; error: Error };

type Situation = 400 | 401 | 403 | 404 | 422 | 429 | '4xx' | '5xx' | 'timeout' | 'connection';

interface Rule {
  code: string;
  kind: ErrorKind;
  retry: boolean;
  /** What the user should do; `reason` is the provider's own explanation, when it gave one. */
  advice: (reason: string) => string;
}

/**
 * The partner API's retry behaviour, in one place. Retried situations wait with exponential
 * backoff and full jitter, and at least as long as the provider's `Retry-After`.
 */
export const PARTNER_RETRY_TABLE: Record<Situation, Rule> = {
  400: {
    code: 'invalid_request',
    kind: 'permanent',
    retry: false,
    advice: (r) => `The partner API refused the request: ${r}. Correct the request; it is not retried.`,
  },
  401: {
    code: 'unauthorized',
    kind: 'config',
    retry: false,
    advice: () =>
      'The partner API rejected the API key (401). Check PARTNER_API_KEY: it must be a current key from the ' +
      'partner dashboard (integrations); a recreated key replaces the old one.',
  },
  403: {
    code: 'forbidden',
    kind: 'config',
    retry: false,
    advice: (r) =>
      `The partner API refused this key (403): ${r}. Check the key's permissions in the partner dashboard.`,
  },
  404: {
    code: 'not_found',
    kind: 'permanent',
    retry: false,
    advice: (r) => `The partner API has no such resource (404): ${r}. Check PARTNER_BASE_URL.`,
  },
  422: {
    code: 'invalid_filter_value',
    kind: 'permanent',
    retry: false,
    advice: (r) =>
      `The partner API could not process the request: ${r}. Use codes from the filter options; it is not retried.`,
  },
  429: {
    code: 'rate_limited',
    kind: 'transient',
    retry: true,
    advice: () =>
      'The partner API is limiting this key (429) and retries ran out. Lower the load or check that every ' +
      "instance shares REDIS_URL so the limiter holds the key's limit.",
  },
  '4xx': {
    code: 'request_refused',
    kind: 'permanent',
    retry: false,
    advice: (r) => `The partner API refused the request: ${r}.`,
  },
  '5xx': {
    code: 'server_error',
    kind: 'transient',
    retry: true,
    advice: (r) =>
      `The partner API failed (${r}) and this attempt's retries ran out; a job parked in the dead letters for ` +
      'it can be replayed from the admin page once the partner answers again.',
  },
  timeout: {
    code: 'timeout',
    kind: 'transient',
    retry: true,
    advice: (r) =>
      `The partner API did not answer within ${r} and retries ran out. Raise PARTNER_TIMEOUT_MS if this keeps ` +
      'happening.',
  },
  connection: {
    code: 'connection_failed',
    kind: 'transient',
    retry: true,
    advice: (r) => `The partner API could not be reached (${r}). Check PARTNER_BASE_URL and the network.`,
  },
};

/** A `org_required` refusal gets its own advice: no dashboard setting on the key will fix it. */
const ORG_REQUIRED =
  'The partner API key belongs to no organisation (403 org_required). Create the key from an account that ' +
  'belongs to an organisation, then set PARTNER_API_KEY to it.';

export function situationOf(outcome: AttemptOutcome): Situation {
  if (outcome.type !== 'response') return outcome.type;
  const { status } = outcome;
  if (status === 400 || status === 401 || status === 403 || status === 404 || status === 422 || status === 429)
    return status;
  return status >= 500 ? '5xx' : '4xx';
}

export function isRetryable(outcome: AttemptOutcome): boolean {
  return PARTNER_RETRY_TABLE[situationOf(outcome)].retry;
}

/** Exponential backoff with full jitter, never shorter than the provider's Retry-After. */
export function backoffDelayMs(attempt: number, baseDelayMs: number, maxDelayMs: number, retryAfterMs = 0): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
  return Math.max(retryAfterMs, Math.random() * ceiling);
}

/** `Retry-After` as seconds or as an HTTP date, in milliseconds from now. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function partnerErrorFor(outcome: AttemptOutcome, request: string, attempts: number): PartnerError {
  const rule = PARTNER_RETRY_TABLE[situationOf(outcome)];
  const base = { kind: rule.kind, attempts };
  if (outcome.type === 'timeout') {
    return new PartnerError({
      ...base,
      status: 0,
      code: rule.code,
      message: `${request}: ${rule.advice(`${outcome.timeoutMs} ms`)}`,
    });
  }
  if (outcome.type === 'connection') {
    const reason = connectionReason(outcome.error);
    return new PartnerError({
      ...base,
      status: 0,
      code: rule.code,
      message: `${request}: ${rule.advice(reason)}`,
      cause: outcome.error,
    });
  }
  const { code: providerCode, reason } = providerReason(outcome);
  const orgRequired = outcome.status === 403 && providerCode === 'org_required';
  return new PartnerError({
    ...base,
    status: outcome.status,
    // The provider's own code is kept where it explains a refusal; retried failures keep ours.
    code: orgRequired ? 'org_required' : rule.retry ? rule.code : (providerCode ?? rule.code),
    message: `${request}: ${orgRequired ? ORG_REQUIRED : rule.advice(reason)}`,
    retryAfterMs: outcome.retryAfterMs,
  });
}

/** The provider's code and reason from either error body shape, or the start of the raw text. */
function providerReason(outcome: { status: number; body: string }): { code?: string; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(outcome.body);
  } catch {
    const text = outcome.body.trim().slice(0, 200);
    return { reason: text ? `HTTP ${outcome.status} ${text}` : `HTTP ${outcome.status}` };
  }
  const filter = FilterErrorBody.safeParse(json);
  if (filter.success)
    return { code: filter.data.error.code, reason: `${filter.data.error.code}: ${filter.data.error.reason}` };
  const generic = GenericErrorBody.safeParse(json);
  if (generic.success) return { reason: `HTTP ${outcome.status} ${generic.data.message}` };
  return { reason: `HTTP ${outcome.status}` };
}

function connectionReason(error: Error): string {
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause?.code ?? cause?.message ?? error.message;
}
