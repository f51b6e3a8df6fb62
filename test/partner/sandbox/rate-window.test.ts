import { describe, expect, it } from 'vitest';
import { RateWindow } from '../../../src/partner/sandbox/rate-window.js';

function windowAt(limit: number) {
  let now = 0;
  const window = new RateWindow(limit, () => now);
  return {
    window,
    at: (t: number) => {
      now = t;
      return window.admit('k');
    },
  };
}

describe('RateWindow', () => {
  it('serves 50 requests in any sliding second and refuses the 51st until the oldest is a second old', () => {
    const { window, at } = windowAt(50);
    for (let i = 0; i < 50; i++) expect(at(i * 20).allowed).toBe(true);
    expect(at(990)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(at(999.9).allowed).toBe(false);
    expect(at(1000).allowed).toBe(true);
    expect(at(1001).allowed).toBe(false);
    expect(at(1020).allowed).toBe(true);
    expect(window.stats().k).toEqual({ served: 52, rejected: 3, maxWindow: 53 });
  });

  it('reports the busiest sliding second of arrivals, served or refused', () => {
    const { window, at } = windowAt(5);
    for (let i = 0; i < 8; i++) at(100 + i);
    for (let i = 0; i < 3; i++) at(2000 + i);
    expect(window.stats().k).toEqual({ served: 8, rejected: 3, maxWindow: 8 });
  });

  it('keeps keys apart and forgets everything on reset', () => {
    let now = 0;
    const window = new RateWindow(1, () => now);
    expect(window.admit('a').allowed).toBe(true);
    expect(window.admit('b').allowed).toBe(true);
    expect(window.admit('a').allowed).toBe(false);
    now = 10;
    window.reset();
    expect(window.admit('a').allowed).toBe(true);
    expect(window.stats()).toEqual({ a: { served: 1, rejected: 0, maxWindow: 1 } });
  });
});
