import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { Agent } from 'undici';
import { inRanges, parseRange, refusedClass } from './address-class.js';
import { OutboundRefusedError } from './outbound-errors.js';

// Which addresses the workspace may reach when it fetches on a user's behalf (files from a URL,
// an app's descriptor from the page, webhook deliveries, scripts' http service). The check runs
// inside the connection's own DNS lookup, so the address judged is the address connected to: a
// name that resolves to a public address for a pre-check and to 127.0.0.1 for the connection
// (DNS rebinding) cannot pass. Literal addresses, which connect without a lookup, are judged
// before the connection (see outbound-fetch.ts), after the URL parser has normalised decimal,
// octal and hex host forms (http://2130706433/ is http://127.0.0.1/).

export interface OutboundOptions {
  /**
   * Lets private, loopback, link-local and other special-use addresses through. Default: true
   * when the workspace listens on loopback only (a developer's machine, where receivers and
   * apps run locally), false when it listens beyond it. Env: WEFT_OUTBOUND_ALLOW_PRIVATE=1|0.
   */
  allowPrivateNetworks?: boolean;
  /**
   * Host names (exact, any case) and addresses or CIDR ranges ("10.1.0.0/16", "fd00::/8") let
   * through although refused otherwise. Env: WEFT_OUTBOUND_ALLOW, comma-separated.
   */
  allow?: string[];
  /** the DNS resolution (dns.lookup's signature); tests resolve names of their own with it */
  lookup?: typeof dnsLookup;
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

export class OutboundPolicy {
  readonly allowPrivateNetworks: boolean;
  private readonly hosts: Set<string>;
  private readonly ranges: NonNullable<ReturnType<typeof parseRange>>[];
  private readonly resolve: typeof dnsLookup;
  private agentInstance: Promise<Agent> | undefined;

  constructor(options: OutboundOptions = {}) {
    this.allowPrivateNetworks = options.allowPrivateNetworks ?? false;
    this.hosts = new Set();
    this.ranges = [];
    for (const entry of options.allow ?? []) {
      const text = entry.trim();
      if (!text) continue;
      const range = parseRange(text.replace(/^\[|\]$/g, ''));
      if (range) this.ranges.push(range);
      else if (/^[a-z0-9.-]+$/i.test(text) && !text.includes('/')) this.hosts.add(text.toLowerCase());
      else
        throw new Error(
          `The outbound allow-list entry ${JSON.stringify(text)} is neither a host name nor an address range`,
        );
    }
    this.resolve = options.lookup ?? dnsLookup;
  }

  /** The settings of WEFT_OUTBOUND_ALLOW_PRIVATE and WEFT_OUTBOUND_ALLOW (unset: the listening host decides, see startWorkspace). */
  static optionsFromEnv(env: NodeJS.ProcessEnv): Pick<OutboundOptions, 'allowPrivateNetworks' | 'allow'> {
    const flag = env.WEFT_OUTBOUND_ALLOW_PRIVATE?.trim().toLowerCase();
    let allowPrivateNetworks: boolean | undefined;
    if (flag === '1' || flag === 'true' || flag === 'yes') allowPrivateNetworks = true;
    else if (flag === '0' || flag === 'false' || flag === 'no') allowPrivateNetworks = false;
    else if (flag) throw new Error('WEFT_OUTBOUND_ALLOW_PRIVATE must be 1 or 0');
    const allow = (env.WEFT_OUTBOUND_ALLOW ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    return {
      ...(allowPrivateNetworks !== undefined ? { allowPrivateNetworks } : {}),
      ...(allow.length > 0 ? { allow } : {}),
    };
  }

  /** Throws OutboundRefusedError when `address` (an IP address) may not be connected to for `host`. */
  check(host: string, address: string): void {
    if (this.allowPrivateNetworks || this.hosts.has(host.toLowerCase())) return;
    const refused = refusedClass(address);
    if (refused && !inRanges(address, this.ranges)) throw new OutboundRefusedError(refused);
  }

  /** Checks a URL's host when it is a literal address (a name is checked at its lookup). */
  checkLiteral(url: URL): void {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) this.check(host, host);
  }

  /**
   * The connection pool whose every connection's addresses pass `check`. undici is loaded with the
   * first fetch, not at start: the workspace listens without it.
   */
  agent(): Promise<Agent> {
    this.agentInstance ??= import('undici').then(
      ({ Agent }) =>
        new Agent({
          keepAliveTimeout: 4_000,
          connect: {
            lookup: (hostname: string, options: object, callback: LookupCallback) =>
              this.lookup(hostname, options, callback),
          },
        }),
    );
    return this.agentInstance;
  }

  async close(): Promise<void> {
    await (await this.agentInstance?.catch(() => undefined))?.close().catch(() => {});
  }

  private lookup(hostname: string, options: object, callback: LookupCallback): void {
    const all = (options as { all?: boolean }).all === true;
    this.resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, all ? [] : '');
      const list = addresses as LookupAddress[];
      try {
        for (const a of list) this.check(hostname, a.address);
      } catch (refused) {
        return callback(refused as Error, all ? [] : '');
      }
      if (all) callback(null, list);
      else if (list[0]) callback(null, list[0].address, list[0].family);
      else callback(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }), '');
    });
  }
}
