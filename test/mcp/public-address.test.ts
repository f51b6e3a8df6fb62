import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/mcp/public-address.js';

describe('isPublicAddress', () => {
  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001::200e'])('accepts %s', (a) => {
    expect(isPublicAddress(a)).toBe(true);
  });

  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '0.0.0.0',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '192.0.2.1',
    '198.18.0.1',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    '2001:db8::1',
    '2002:7f00:1::',
    '2001:0:4136:e378::1',
    'fe80::1%eth0',
    'not-an-address',
  ])('refuses %s', (a) => {
    expect(isPublicAddress(a)).toBe(false);
  });
});
