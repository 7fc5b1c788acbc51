import { isIP } from 'node:net';
import { refusedClass } from './address-class.js';

/** True when a server listening on `host` is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  return isIP(h) !== 0 && refusedClass(h) === 'loopback';
}
