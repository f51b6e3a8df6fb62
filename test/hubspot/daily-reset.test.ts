import { describe, expect, it } from 'vitest';
import { nextDailyReset } from '../../connectors/hubspot/http-errors.js';

describe("HubSpot's daily reset", () => {
  it("is the next midnight in the portal's zone, following daylight saving", () => {
    // Sydney in summer (UTC+11) and winter (UTC+10).
    expect(nextDailyReset(Date.parse('2026-11-25T06:00:00Z'), 'Australia/Sydney')).toBe('2026-11-25T13:00:00.000Z');
    expect(nextDailyReset(Date.parse('2026-06-10T06:00:00Z'), 'Australia/Sydney')).toBe('2026-06-10T14:00:00.000Z');
    // After Sydney's midnight but before UTC's: the reset is the following Sydney midnight.
    expect(nextDailyReset(Date.parse('2026-11-25T13:30:00Z'), 'Australia/Sydney')).toBe('2026-11-26T13:00:00.000Z');
    // New York on the day clocks go back (2026-11-01): a 25-hour day.
    expect(nextDailyReset(Date.parse('2026-11-01T04:30:00Z'), 'America/New_York')).toBe('2026-11-02T05:00:00.000Z');
    // A half-hour zone.
    expect(nextDailyReset(Date.parse('2026-03-01T00:00:00Z'), 'Asia/Kolkata')).toBe('2026-03-01T18:30:00.000Z');
    expect(nextDailyReset(Date.parse('2026-03-01T12:34:56Z'))).toBe('2026-03-02T00:00:00.000Z');
  });
});
