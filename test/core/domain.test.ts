import { expect, it } from 'vitest';
import { domainOf, websiteDomain } from '../../src/core/domain.js';

it('normalises a website as people type it to its bare host', () => {
  for (const typed of [
    'acme.com',
    'https://www.acme.com/',
    'HTTP://Acme.com:8080/about?x=1',
    '//acme.com',
    'ftp://user:pw@www.acme.com',
    'acme.com.',
    ' ACME.COM ',
  ]) {
    expect(websiteDomain(typed), typed).toBe('acme.com');
  }
  expect(websiteDomain('')).toBe('');
});

it('takes only plausible domain names, international ones in their ASCII form', () => {
  expect(domainOf('https://www.Acme.com.au/about')).toBe('acme.com.au');
  expect(domainOf('bücher.de')).toBe('xn--bcher-kva.de');
  for (const junk of ['', 'localhost', 'acme', "o'brien.com", 'a b.com', '..', 'acme..com', `${'a'.repeat(250)}.com`])
    expect(domainOf(junk), junk).toBeUndefined();
});
