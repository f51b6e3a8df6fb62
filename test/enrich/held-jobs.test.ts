import { describe, expect, it } from 'vitest';
import { CrmError } from '../../src/core/connector.js';
import { dispositionOf } from '../../src/enrich/lane/held-jobs.js';
import { claimLimit } from '../../src/enrich/lane/claim-loop.js';
import { BudgetExhaustedError } from '../../src/enrich/partner-lookups.js';
import { LimiterError } from '../../src/limits/limiter-error.js';

describe('what an error means for a job', () => {
  it('puts back unspent what never started or must wait, and fails the rest', () => {
    const stopped = new LimiterError('limiter_stopped', 'stopped');
    expect(dispositionOf(stopped, true)).toEqual({ action: 'release', delayMs: 0 });
    // Outside a shutdown a stopped limiter is a failure to retry, not a reason to wait.
    expect(dispositionOf(stopped, false)).toMatchObject({
      action: 'fail',
      failure: { code: 'limiter_stopped', retryable: true },
    });
    expect(dispositionOf(new LimiterError('limiter_full', 'full'), false)).toEqual({
      action: 'release',
      delayMs: 1_000,
    });
    expect(dispositionOf(new BudgetExhaustedError('bulk', 3, 3), false)).toEqual({
      action: 'release',
      delayMs: 60_000,
    });
    expect(dispositionOf(new CrmError('hubspot', 'rate_limited', 'slow down', 7_000), false)).toEqual({
      action: 'release',
      delayMs: 7_000,
    });
    expect(dispositionOf(new CrmError('hubspot', 'validation', 'bad value jane@example.com'), false)).toMatchObject({
      action: 'fail',
      failure: { retryable: false },
    });
    expect(
      JSON.stringify(dispositionOf(new CrmError('hubspot', 'validation', 'bad value jane@example.com'), false)),
    ).not.toContain('jane@example.com');
  });
});

describe('how much a lane claims', () => {
  const lane = { lowWater: 50, maxInFlight: 200, interactiveRoom: 10, batchSize: 100 };
  it('claims a full batch when low, never past the cap, and only a little room for people when full', () => {
    expect(claimLimit({ ...lane, inFlight: 0, interactiveWaiting: false })).toBe(100);
    expect(claimLimit({ ...lane, inFlight: 50, interactiveWaiting: false })).toBe(100);
    expect(claimLimit({ ...lane, inFlight: 150, interactiveWaiting: false })).toBe(0);
    expect(claimLimit({ ...lane, inFlight: 150, interactiveWaiting: true })).toBe(10);
    expect(claimLimit({ ...lane, inFlight: 205, interactiveWaiting: true })).toBe(5);
    expect(claimLimit({ ...lane, inFlight: 210, interactiveWaiting: true })).toBe(0);
    expect(claimLimit({ ...lane, maxInFlight: 40, lowWater: 39, inFlight: 30, interactiveWaiting: false })).toBe(10);
  });
});
