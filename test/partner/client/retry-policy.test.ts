import { describe, expect, it } from 'vitest';
import {
  backoffDelayMs,
  parseRetryAfter,
  partnerErrorFor,
  PARTNER_RETRY_TABLE,
} from '../../../src/partner/retry-policy.js';

describe('partner retry policy', () => {
  it('retries exactly 429, 5xx, timeouts and connection errors', () => {
    const retried = Object.entries(PARTNER_RETRY_TABLE)
      .filter(([, rule]) => rule.retry)
      .map(([situation]) => situation);
    expect(retried.sort()).toEqual(['429', '5xx', 'connection', 'timeout']);
  });

  it('backs off exponentially with full jitter, capped', () => {
    for (let attempt = 1; attempt <= 8; attempt++) {
      const ceiling = Math.min(2000, 100 * 2 ** (attempt - 1));
      const delays = Array.from({ length: 200 }, () => backoffDelayMs(attempt, 100, 2000));
      expect(Math.max(...delays)).toBeLessThanOrEqual(ceiling);
      expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
      // Full jitter spreads delays over the whole range, not around the ceiling.
      expect(Math.min(...delays)).toBeLessThan(ceiling / 4);
    }
  });

  it('never waits less than Retry-After', () => {
    for (let i = 0; i < 100; i++) expect(backoffDelayMs(1, 100, 2000, 1500)).toBeGreaterThanOrEqual(1500);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter('0')).toBe(0);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });

  it('keeps the provider code and reason of a 422 and turns a bare 500 into server_error', () => {
    const body = JSON.stringify({ error: { code: 'invalid_filter_value', reason: 'industry: unknown value l1:ZZ' } });
    const refused = partnerErrorFor({ type: 'response', status: 422, body }, 'POST /people/search', 1);
    expect(refused.code).toBe('invalid_filter_value');
    expect(refused.message).toContain('industry: unknown value l1:ZZ');
    expect(refused.retryable).toBe(false);
    const failed = partnerErrorFor(
      { type: 'response', status: 502, body: '<html>Bad gateway</html>' },
      'GET /company',
      5,
    );
    expect(failed.code).toBe('server_error');
    expect(failed.message).toContain('Bad gateway');
    expect(failed.attempts).toBe(5);
    // The message ends up as a dead letter's reason: it promises no retry that a parked job will not get.
    expect(failed.message).not.toContain('tried again later');
    // Nor does it say the job will be tried again: a dead letter's reason (parked-reason.ts) says what became of it.
    expect(failed.message).not.toMatch(/attempts left|tried again/);
    expect(failed.message).toMatch(/can be replayed from the admin page once the partner answers again/);
  });
});
