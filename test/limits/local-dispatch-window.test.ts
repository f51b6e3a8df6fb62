import { describe, expect, it } from 'vitest';
import { windowRule, type WindowRule } from '../../src/limits/dispatch-window.js';
import { LocalDispatchWindow } from '../../src/limits/local-dispatch-window.js';

/** Drives the window on a clock the test sets, claiming whenever it is allowed. */
function run(window: LocalDispatchWindow, clock: { t: number }, claims: number, lateBy = 0): number[] {
  const at: number[] = [];
  while (at.length < claims) {
    const wait = window.claimAt(`t${clock.t}-${at.length}`);
    if (wait === 0) at.push(clock.t);
    else clock.t += wait + lateBy;
  }
  return at;
}

function maxInAnyWindow(times: number[], windowMs: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('LocalDispatchWindow', () => {
  const rule = windowRule(50, 1000, 20);

  it('paces claims evenly at horizon / max apart', () => {
    const clock = { t: 0 };
    const window = new LocalDispatchWindow(rule, () => clock.t);
    const at = run(window, clock, 10);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    for (const gap of gaps) expect(gap).toBeCloseTo(rule.spacingMs, 6);
  });

  it('does not let late timers push later slots back', () => {
    const clock = { t: 0 };
    const window = new LocalDispatchWindow(rule, () => clock.t);
    const at = run(window, clock, 500, 3);
    // Each wake-up is 3 ms late; if lateness accumulated, 500 claims would take 499 * (spacing + 3) ms
    // (572 spacings). Only the strict log's waits (one per 50 claims) may add their lateness.
    expect(at[499]! - at[0]!).toBeLessThan(499 * rule.spacingMs + 10 * 3 + 1);
    expect(maxInAnyWindow(at, 1000)).toBeLessThanOrEqual(50);
  });

  it('holds max per horizon even after an idle gap lets claims go together', () => {
    const clock = { t: 0 };
    const small = windowRule(3, 100, 0);
    const window = new LocalDispatchWindow(small, () => clock.t);
    run(window, clock, 3);
    clock.t = 1000;
    const at = run(window, clock, 9, 7);
    expect(at[1]).toBe(at[0]);
    // (Within a microsecond: the waits are sums of fractional spacings.)
    for (let i = 3; i < at.length; i++) expect(at[i]! - at[i - 3]!).toBeGreaterThanOrEqual(100 - 1e-6);
    expect(maxInAnyWindow(at, 100 - 1e-6)).toBeLessThanOrEqual(3);
  });

  it('catches up after dispatches counted late, by up to its catch-up slots at once, never past the log', async () => {
    const catchUp = windowRule(50, 1000, 20, 4);
    /** 150 claims; with `held`, the first five requests were held on their way out and left together at 100 ms. */
    const claims = async (held: boolean, rule: WindowRule) => {
      const clock = { t: 0 };
      const window = new LocalDispatchWindow(rule, () => clock.t);
      const at = run(window, clock, 50);
      if (held) for (let i = 0; i < 5; i++) await window.postpone(`t${at[i]}-${i}`, 100 - at[i]!);
      return [...at, ...run(window, clock, 100)];
    };
    const onTime = await claims(false, catchUp);
    const late = await claims(true, catchUp);
    // Without room to catch up (the default), the late departures' time is lost for good.
    expect((await claims(true, rule)).at(-1)! - onTime.at(-1)!).toBeGreaterThan(50);
    expect(maxInAnyWindow(late, rule.horizonMs - 1e-6)).toBeLessThanOrEqual(50);
    // The claims the late one held back go together once it lets them (up to four at once) ...
    const together = new Map<number, number>();
    for (const t of late) together.set(Math.round(t * 1000), (together.get(Math.round(t * 1000)) ?? 0) + 1);
    const most = Math.max(...together.values());
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(4 + 1);
    // ... so the pace is back on its schedule: the last claim is less than a spacing later than on time,
    // not the 100 ms the late departures held the 51st back.
    expect(late.at(-1)! - onTime.at(-1)!).toBeLessThan(rule.spacingMs);
  });

  it('counts a postponed dispatch from its new time', async () => {
    const clock = { t: 0 };
    const window = new LocalDispatchWindow(windowRule(2, 100, 0), () => clock.t);
    expect(window.claimAt('a')).toBe(0);
    clock.t = 50;
    expect(window.claimAt('b')).toBe(0);
    clock.t = 100;
    // 'a' reached the provider 80 ms late. Counted at 0 it would have left the window now; counted
    // at 80, two dispatches are still inside it and the next waits for the older one, 'b', to leave.
    await window.postpone('a', 80);
    expect(window.claimAt('c')).toBe(50);
    clock.t = 150;
    expect(window.claimAt('c')).toBe(0);
    // Then 'a', counted at 80, is the older of the two in the window: the next waits for 80 + 100.
    clock.t = 170;
    expect(window.claimAt('d')).toBe(10);
    await window.postpone('gone', 10);
  });
});
