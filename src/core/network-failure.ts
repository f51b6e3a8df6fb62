/**
 * Failures to reach a service over the network (refused, unknown host, reset, timed out) are expected
 * in operation: a CRM or the partner is down, or a setting points nowhere. They are told in one line,
 * what failed and the system's code, never with a stack trace that says nothing more.
 */
import { AppError } from './errors.js';

/** Node's and undici's codes for a connection that could not be made or was lost. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/**
 * The system code of a network failure anywhere in the error's cause chain (`fetch failed` hides it
 * there), with its host when the error names one.
 */
export function networkCause(error: unknown): string | undefined {
  let e: unknown = error;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, hostname, cause } = e as { code?: unknown; hostname?: unknown; cause?: unknown };
    if (typeof code === 'string' && NETWORK_CODES.has(code))
      return typeof hostname === 'string' ? `${code} ${hostname}` : code;
    e = cause;
  }
  return undefined;
}

/** A failure the service expects and retries: a transient AppError, or a network failure underneath. */
export function isExpectedFailure(error: unknown): boolean {
  return (error instanceof AppError && error.kind === 'transient') || networkCause(error) !== undefined;
}

/** An error's message with the network code behind it, e.g. `fetch failed (ENOTFOUND api.hubapi.com)`. */
export function networkMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = networkCause(error);
  return cause && !message.includes(cause) ? `${message} (${cause})` : message;
}
