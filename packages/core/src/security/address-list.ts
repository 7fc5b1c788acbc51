import { BlockList, isIP } from 'node:net';

/** A set of IP addresses and CIDR ranges (IPv4 and IPv6), e.g. `['10.0.0.0/8', '2001:db8::/32', '192.0.2.7']`. */
export interface AddressList {
  has(address: string): boolean;
}

/** `::ffff:192.0.2.7` (an IPv4 peer on a dual-stack socket) is `192.0.2.7`. */
export function normalizeAddress(address: string): string {
  const trimmed = address.trim().replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(trimmed);
  return mapped ? mapped[1]! : trimmed;
}

/** Parses entries; throws one error naming every entry that is not an address or a range. */
export function addressList(entries: readonly string[]): AddressList {
  const list = new BlockList();
  const wrong: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    const [address = '', prefix] = entry.split('/', 2);
    const ip = normalizeAddress(address);
    const family = isIP(ip);
    if (family === 0) {
      wrong.push(entry);
      continue;
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) {
      list.addAddress(ip, type);
      continue;
    }
    const bits = Number(prefix);
    if (!/^\d+$/.test(prefix) || bits > (family === 4 ? 32 : 128)) {
      wrong.push(entry);
      continue;
    }
    list.addSubnet(ip, bits, type);
  }
  if (wrong.length > 0) {
    throw new TypeError(`Not an IP address or CIDR range: ${wrong.map((w) => `"${w}"`).join(', ')}`);
  }
  return {
    has(address) {
      const ip = normalizeAddress(address);
      const family = isIP(ip);
      return family !== 0 && list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}
