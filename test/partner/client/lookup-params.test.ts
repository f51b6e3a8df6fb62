import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config.js';
import { DEFAULT_LOOKUP_PARAMS, parseLookupParams } from '../../../src/partner/lookup-params.js';

describe('PARTNER_LOOKUP_PARAMS', () => {
  it('gives the defaults when unset', () => {
    expect(parseLookupParams(undefined)).toEqual(DEFAULT_LOOKUP_PARAMS);
    expect(parseLookupParams(' ')).toEqual(DEFAULT_LOOKUP_PARAMS);
  });

  it('overrides only the names it gives', () => {
    const names = parseLookupParams('{"company":{"fqdn":"domain"},"person":{"work_email":"email"}}');
    expect(names.company).toEqual({ ...DEFAULT_LOOKUP_PARAMS.company, fqdn: 'domain' });
    expect(names.person).toEqual({ ...DEFAULT_LOOKUP_PARAMS.person, work_email: 'email' });
  });

  it.each([
    ['{company:', /PARTNER_LOOKUP_PARAMS: expected a JSON object/],
    [
      '{"company":{"domain":"x"}}',
      /PARTNER_LOOKUP_PARAMS: company: unknown key domain; expected one of id, ln_slug, ln_url, fqdn, abn, website/,
    ],
    ['{"people":{}}', /PARTNER_LOOKUP_PARAMS: \(top level\): unknown key people; expected one of company, person/],
    [
      '{"person":{"work_email":"has space"}}',
      /PARTNER_LOOKUP_PARAMS: person.work_email: expected a query parameter name/,
    ],
  ])('refuses %s naming the variable and the entry', (json, message) => {
    expect(() => parseLookupParams(json)).toThrow(ConfigError);
    expect(() => parseLookupParams(json)).toThrow(message);
  });
});
