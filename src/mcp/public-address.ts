/**
 * Whether an IP address is on the public internet, for fetches the service makes to URLs someone else
 * chose (a client's metadata document): loopback, private, link-local, shared (CGNAT), multicast,
 * documentation, benchmarking and reserved ranges are refused, and so is every IPv6 address outside
 * global unicast (2000::/3), which covers IPv4-mapped, NAT64, unique-local and link-local addresses.
 */
import { BlockList, isIP } from 'node:net';

const NON_PUBLIC_V4: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
/** Inside 2000::/3 but not public: IETF protocol assignments (Teredo among them), documentation, 6to4. */
const NON_PUBLIC_V6: [string, number][] = [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
];

const refused = new BlockList();
for (const [net, prefix] of NON_PUBLIC_V4) refused.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of NON_PUBLIC_V6) refused.addSubnet(net, prefix, 'ipv6');
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');

export function isPublicAddress(address: string): boolean {
  // A zone id (fe80::1%eth0) marks a link-local address, never a public one.
  if (address.includes('%')) return false;
  const family = isIP(address);
  if (family === 4) return !refused.check(address, 'ipv4');
  if (family === 6) return globalUnicast.check(address, 'ipv6') && !refused.check(address, 'ipv6');
  return false;
}
