import { describe, expect, it } from 'vitest';
import { TRANSFORMS } from '../../src/mapping/transforms/registry.js';
import type { ValueKind } from '../../src/mapping/source-paths.js';

function run(
  name: string,
  value: unknown,
  args: Record<string, unknown> = {},
  root: Record<string, unknown> = {},
): unknown {
  const t = TRANSFORMS.get(name)!;
  return t.run(value, t.args.parse(args), { root });
}
function infer(name: string, input: ValueKind, args: Record<string, unknown> = {}): ValueKind | string {
  const t = TRANSFORMS.get(name)!;
  return t.infer(input, t.args.parse(args));
}
const text: ValueKind = { base: 'string', list: false };
const texts: ValueKind = { base: 'string', list: true };

describe('list transforms', () => {
  it('first and last skip empty values and read entry values', () => {
    expect(run('first', ['', 'a', 'b'])).toBe('a');
    expect(run('last', ['a', 'b', ''])).toBe('b');
    expect(run('first', [{ value: 'x@y.com', deliverability: 'risky' }])).toBe('x@y.com');
    expect(run('first', [])).toBeUndefined();
    expect(infer('first', texts)).toEqual(text);
    expect(infer('first', text)).toMatch(/takes a list/);
  });

  it('join joins non-empty values with the separator', () => {
    expect(run('join', ['a', '', 'b'])).toBe('a, b');
    expect(run('join', ['a', 'b'], { separator: '; ' })).toBe('a; b');
    expect(run('join', [])).toBeUndefined();
    expect(infer('join', text)).toMatch(/takes a list/);
  });

  it('pick_email prefers deliverable, then risky, and never undeliverable unless allowed', () => {
    const emails = [
      { value: 'bad@x.com', deliverability: 'undeliverable' },
      { value: 'maybe@x.com', deliverability: 'risky' },
      { value: 'good@x.com', deliverability: 'deliverable' },
    ];
    expect(run('pick_email', emails)).toBe('good@x.com');
    expect(run('pick_email', emails.slice(0, 2))).toBe('maybe@x.com');
    expect(run('pick_email', emails.slice(0, 2), { allow_risky: false })).toBeUndefined();
    expect(run('pick_email', emails.slice(0, 1))).toBeUndefined();
    expect(run('pick_email', emails.slice(0, 1), { allow_undeliverable: true })).toBe('bad@x.com');
    expect(infer('pick_email', { base: 'email_entry', list: true })).toEqual(text);
    expect(infer('pick_email', texts)).toMatch(/e-mail entries/);
  });

  it('pick_phone picks by kind using the mobile numbers the record lists', () => {
    const root = { current_company: { mobile_phones: ['+61 400 000 001'] } };
    const phones = [{ value: '+61400000001' }, { value: '+61 2 9999 0000' }];
    expect(run('pick_phone', phones, {}, root)).toBe('+61400000001');
    expect(run('pick_phone', phones, { kind: 'mobile' }, root)).toBe('+61400000001');
    expect(run('pick_phone', phones, { kind: 'main' }, root)).toBe('+61 2 9999 0000');
    expect(run('pick_phone', ['+1 555 0100'])).toBe('+1 555 0100');
    expect(infer('pick_phone', { base: 'phone_entry', list: true })).toEqual({
      base: 'string',
      list: false,
      phone: true,
    });
    expect(infer('pick_phone', texts)).toMatch(/phone numbers/);
  });
});

describe('text transforms', () => {
  it('lowercase and uppercase change case and the known values', () => {
    expect(run('lowercase', 'Manager')).toBe('manager');
    expect(run('uppercase', 'au')).toBe('AU');
    expect(infer('lowercase', { base: 'string', list: false, domain: ['Manager'] })).toEqual({
      base: 'string',
      list: false,
      domain: ['manager'],
    });
    expect(infer('uppercase', texts)).toMatch(/one value/);
    expect(infer('lowercase', { base: 'number', list: false })).toMatch(/text value/);
  });

  it('trim and truncate', () => {
    expect(run('trim', '  a  ')).toBe('a');
    expect(run('truncate', 'abcdef', { max: 3 })).toBe('abc');
    expect(run('truncate', 'ab', { max: 3 })).toBe('ab');
  });

  it('domain_from_url takes the host without www', () => {
    expect(run('domain_from_url', 'https://www.Acme.com/about')).toBe('acme.com');
    expect(run('domain_from_url', 'acme.com.au')).toBe('acme.com.au');
    expect(run('domain_from_url', 'not a url')).toBeUndefined();
  });

  it('url_from_handle prefixes handles and keeps full addresses', () => {
    const args = { prefix: 'https://www.linkedin.com/company/' };
    expect(run('url_from_handle', 'acme-pty', args)).toBe('https://www.linkedin.com/company/acme-pty');
    expect(run('url_from_handle', '@acme', args)).toBe('https://www.linkedin.com/company/acme');
    expect(run('url_from_handle', 'https://x.com/acme', args)).toBe('https://x.com/acme');
  });

  it('market normalises country names and codes to the 13 markets', () => {
    expect(run('market', 'Australia')).toBe('AU');
    expect(run('market', 'nz')).toBe('NZ');
    expect(run('market', 'United States of America')).toBe('US');
    expect(run('market', 'U.S.')).toBe('US');
    expect(run('market', 'Viet Nam')).toBe('VN');
    expect(run('market', 'France')).toBeUndefined();
    expect((infer('market', text) as ValueKind).domain).toContain('SG');
  });
});

describe('number and date transforms', () => {
  it('number reads numbers, suffixes and ranges', () => {
    expect(run('number', '1,234')).toBe(1234);
    expect(run('number', '$1.5M - $10M')).toBe(1_500_000);
    expect(run('number', '51-200', { pick: 'high' })).toBe(200);
    expect(run('number', '51-200', { pick: 'mid' })).toBe(125.5);
    expect(run('number', 42)).toBe(42);
    expect(run('number', 'n/a')).toBeUndefined();
    expect(infer('number', { base: 'boolean', list: false })).toMatch(/takes string or number/);
  });

  it('round rounds to the given digits', () => {
    expect(run('round', 4.567, { digits: 1 })).toBe(4.6);
    expect(run('round', 4.5)).toBe(5);
  });

  it('date parses years, ISO dates, epoch milliseconds and the partner role-start text', () => {
    expect((run('date', 1999) as Date).toISOString()).toBe('1999-01-01T00:00:00.000Z');
    expect((run('date', '2021-03-04') as Date).toISOString()).toBe('2021-03-04T00:00:00.000Z');
    expect((run('date', "Mar '21 - Present") as Date).toISOString()).toBe('2021-03-01T00:00:00.000Z');
    expect((run('date', 1_600_000_000_000) as Date).getTime()).toBe(1_600_000_000_000);
    expect(run('date', 'soon')).toBeUndefined();
    expect(infer('date', text)).toEqual({ base: 'date', list: false });
  });

  it('year gives the year of a date', () => {
    expect(run('year', '2019-06-01')).toBe(2019);
    expect(run('year', 'nope')).toBeUndefined();
  });
});

it('every registered transform is covered by this file', () => {
  expect([...TRANSFORMS.keys()].sort()).toEqual(
    [
      'date',
      'domain_from_url',
      'first',
      'join',
      'last',
      'lowercase',
      'market',
      'number',
      'pick_email',
      'pick_phone',
      'round',
      'trim',
      'truncate',
      'uppercase',
      'url_from_handle',
      'year',
    ].sort(),
  );
});
