import { describe, expect, it } from 'vitest';
import { scrubValues } from '../../src/core/scrub.js';
import { failureOf } from '../../src/enrich/lane/job-failure.js';
import { CrmError } from '../../src/core/connector.js';

describe('values out of error text', () => {
  it('takes out e-mail addresses, phone numbers, tokens and quoted values, and keeps field names and codes', () => {
    const hubspot =
      'Property values were not valid: ' +
      '[{"isValid":false,"message":"jane.doe@example.com was not a valid email address",' +
      '"error":"INVALID_EMAIL","name":"email","value":"jane.doe@example.com"},' +
      '{"name":"phone","message":"+61 2 9876 5432 is too long"}]';
    const scrubbed = scrubValues(hubspot);
    expect(scrubbed).not.toContain('jane.doe@example.com');
    expect(scrubbed).not.toContain('9876');
    expect(scrubbed).toContain('"name":"email"');
    expect(scrubbed).toContain('INVALID_EMAIL');
    expect(scrubbed).toContain('"value":"<value>"');
    expect(scrubValues('401 with Authorization: Bearer pat-na1-1234abcd')).not.toContain('pat-na1-1234abcd');
    // Dates, counts and ids an admin needs stay.
    expect(scrubValues("today's lookups (10000) reached the budget on 2026-11-24; record 1001")).toBe(
      "today's lookups (10000) reached the budget on 2026-11-24; record 1001",
    );
  });

  it('stores a failed job with the values taken out', () => {
    const failure = failureOf(
      new CrmError('salesforce', 'validation', 'INVALID_EMAIL_ADDRESS: invalid email address: jane@example.com'),
    );
    expect(failure.message).toContain('INVALID_EMAIL_ADDRESS');
    expect(failure.message).not.toContain('jane@example.com');
    expect(
      failureOf({ code: 'write_failed', message: 'bad value bob@example.org', retryable: true }).message,
    ).not.toContain('bob@example.org');
  });

  it('stays linear on hostile text', () => {
    const started = performance.now();
    scrubValues('a'.repeat(1_000_000) + '@'.repeat(1_000) + '1'.repeat(100_000));
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
