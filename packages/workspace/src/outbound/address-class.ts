import ipaddr from 'ipaddr.js';

// Which addresses the workspace refuses to fetch from on a user's behalf: everything but public
// unicast. ipaddr.js knows the special-use ranges (RFC 6890 and successors); an IPv4-mapped IPv6
// address is judged as the IPv4 address it carries, and the IPv6 forms that embed or tunnel to an
// IPv4 address (NAT64, 6to4, Teredo) are refused outright since they may lead back inside.

const NAMES: Record<string, string> = {
  private: 'private',
  loopback: 'loopback',
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local (private IPv6)',
  carrierGradeNat: 'shared (carrier-grade NAT)',
  unspecified: 'unspecified (this host)',
  multicast: 'multicast',
  broadcast: 'broadcast',
};

/** The refused class of an IP address ("loopback", "private", ...), or undefined for a public one. */
export function refusedClass(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'invalid';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  return NAMES[range] ?? 'special-use';
}

/** True for an address in one of the CIDR ranges (e.g. "10.0.0.0/8", "fd00::/8"). */
export function inRanges(address: string, ranges: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][]): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return ranges.some(([net, bits]) => net.kind() === parsed.kind() && parsed.match(net, bits));
}

/** "10.0.0.0/8" or a bare address (a /32 or /128); undefined when the text is neither. */
export function parseRange(text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] | undefined {
  try {
    if (text.includes('/')) return ipaddr.parseCIDR(text);
    if (!ipaddr.isValid(text)) return undefined;
    const address = ipaddr.parse(text);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return undefined;
  }
}
