// Server-side request forgery (SSRF) guard: `http-request` sends requests to addresses typed by
// workspace users, from inside your network. Unless the deployment allows it, requests to
// loopback, private, link-local (cloud metadata at 169.254.169.254), shared, multicast and
// reserved addresses are refused. The check runs on the addresses the connection will really
// use (a DNS lookup hook), so a name that resolves to an internal address is caught too, and a
// second lookup cannot swap in another address after the check (DNS rebinding).
import { type LookupAddress, lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';

const internal = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  internal.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 can reach internal IPv4
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  internal.addSubnet(network, prefix, 'ipv6');
}
// IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) need no rule of their own: BlockList checks them
// against the IPv4 rules.

/** True for an address that is not a public unicast address (or not an address at all). */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return internal.check(address, 'ipv4');
  if (family === 6) return internal.check(address, 'ipv6');
  return true;
}

export class InternalAddressError extends Error {
  override readonly name = 'InternalAddressError';
  readonly code = 'EINTERNALADDRESS';
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for `http.request` that resolves as usual and fails with `InternalAddressError`
 * when any resolved address is internal (unless `allowInternal`).
 */
export function guardedLookup(allowInternal: boolean) {
  return (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      if (!allowInternal && addresses.some((a) => isInternalAddress(a.address))) {
        return callback(new InternalAddressError(`${hostname} resolves to an internal address`), []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}
