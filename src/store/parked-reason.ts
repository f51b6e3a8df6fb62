/**
 * Why a dead letter was parked, in words for the admin page and API. The error a job last met says what
 * went wrong at that attempt (a partner's 5xx advice may speak of attempts still to come); this says what
 * became of the job: every attempt spent, or an error no retry can fix, parked at its first sight.
 */

/** How a job came to the dead letter; written beside its last error when it is parked. */
export type ParkedHow = 'attempts_exhausted' | 'not_retryable';

export function parkedReason(error: unknown, attempts: number): string {
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    kind?: unknown;
    parked?: unknown;
  };
  const code = typeof e.code === 'string' ? e.code : undefined;
  // A dead letter parked before the way was written down: a permanent or configuration error parks at once.
  const how: ParkedHow =
    e.parked === 'attempts_exhausted' || e.parked === 'not_retryable'
      ? e.parked
      : e.kind === 'permanent' || e.kind === 'config'
        ? 'not_retryable'
        : 'attempts_exhausted';
  if (how === 'not_retryable')
    return `parked at once: a permanent error${code ? ` (${code})` : ''} that no retry can fix`;
  if (attempts === 1) return `parked because its only attempt failed${code ? ` with ${code}` : ''}`;
  return `parked because all ${attempts} attempts failed${code ? `, the last with ${code}` : ''}`;
}
