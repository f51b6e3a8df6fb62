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

describe('what the scrubber leaves alone', () => {
  it('keeps file paths in stack traces, scoped and versioned package folders included', () => {
    const stack = [
      "Error: INVALID_FIELD: No such column 'CE_Foo__c' on entity 'Lead'",
      '    at SalesforceApi.query (/app/connectors/salesforce/session.ts:212:15)',
      '    at async Object.run (/app/node_modules/@salesforce/core/lib/org/connection.js:450:22)',
      '    at Module.load (/home/dev/.pnpm/@hubspot+api-client@13.1.0/node_modules/@hubspot/api-client/lib/a.js:9:3)',
      '    at file:///tmp/crm-enrich-e2e-1732800000000/run.mjs:12:7',
      '    at C:\\Users\\dev\\crm-enrich\\node_modules\\@scope\\pkg\\index.js:3:1',
    ].join('\n');
    expect(scrubValues(stack)).toBe(stack);
  });

  it('keeps Salesforce ids, 15 and 18 characters, however many digits they hold', () => {
    const text =
      'org 00D8d000001abcEAA, contact 0035g00000XyZ12AAB, lead 00Q8d000000000AEAQ, org 00D000000000001AAA, ' +
      'account 0018d0000000001 (00D8d0000000001EAA)';
    expect(scrubValues(text)).toBe(text);
  });

  it('still takes out e-mail addresses, phone numbers and long numbers beside those paths and ids', () => {
    const text =
      'INVALID_EMAIL_ADDRESS on 0035g00000XyZ12AAB: j.o-hara+crm@mail.example.co.uk, also "josé@exämple.de"; ' +
      'phone +61 2 9876 5432, 02 9876 5432, mobile 0412345678; at /app/src/x.ts:10:5 (tel +1-555-010-9999)';
    const scrubbed = scrubValues(text);
    for (const value of ['j.o-hara', 'mail.example', 'josé', 'exämple', '9876', '0412345678', '010-9999'])
      expect(scrubbed).not.toContain(value);
    expect(scrubbed).toContain('0035g00000XyZ12AAB');
    expect(scrubbed).toContain('/app/src/x.ts:10:5');
    expect(scrubbed.match(/<email>/g)).toHaveLength(2);
    expect(scrubbed.match(/<number>/g)).toHaveLength(4);
  });
});
