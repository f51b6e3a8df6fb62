import { describe, expect, it } from 'vitest';
import { FailureThrottle } from '../../src/auth/admin-token.js';

describe('wrong-token throttle', () => {
  it('lets ten wrong tokens a minute through, then asks to wait only until the oldest leaves the minute', () => {
    let now = 1_000_000;
    const throttle = new FailureThrottle({ now: () => now });
    for (let i = 0; i < 10; i++) {
      expect(throttle.waitFor('10.0.0.1')).toBe(0);
      throttle.fail('10.0.0.1');
      now += 1_000;
    }
    // Ten failures in the last 10 s: wait until the first is a minute old.
    expect(throttle.waitFor('10.0.0.1')).toBe(50_000);
    expect(throttle.waitFor('10.0.0.2')).toBe(0);
    now += 50_000;
    expect(throttle.waitFor('10.0.0.1')).toBe(0);
  });

  it('remembers a bounded number of addresses', () => {
    const throttle = new FailureThrottle({ maxFailures: 1 });
    for (let i = 0; i < 10_050; i++) throttle.fail(`a${i}`);
    expect(throttle.waitFor('a0')).toBe(0);
    expect(throttle.waitFor('a10049')).toBeGreaterThan(0);
  });
});
