/**
 * INBOX_TRUSTED_PROXIES: the peers whose forwarded headers (the user in header mode, the client's
 * address) are believed. Single addresses and CIDR ranges of both families (`10.88.0.0/16`,
 * `fd00::/8`), as container networks hand them out, matched by fastify's own proxy-addr (which
 * also sees an IPv4 peer behind an IPv4-mapped IPv6 address).
 */
import proxyAddr from '@fastify/proxy-addr';

type Matcher = (address: string) => boolean;
const compiled = new WeakMap<readonly string[], Matcher>();

/** Why `entry` is no address or range, or null when it is one. */
export function trustedProxyProblem(entry: string): string | null {
  try {
    proxyAddr.compile([entry]);
    return null;
  } catch {
    return `INBOX_TRUSTED_PROXIES holds "${entry}", not an IP address or CIDR range (like 10.0.0.5, 10.88.0.0/16 or fd00::/8)`;
  }
}

/** Whether the peer `address` is one of the trusted proxies; the list is compiled once. */
export function isTrustedProxy(trusted: readonly string[], address: string): boolean {
  let match = compiled.get(trusted);
  if (!match) {
    // Entries were checked at start; a list built by hand with a bad entry trusts nothing.
    const valid = trusted.filter((t) => trustedProxyProblem(t) === null);
    const trust = proxyAddr.compile(valid);
    match = (a) => valid.length > 0 && a !== '' && trust(a, 0);
    compiled.set(trusted, match);
  }
  return match(address);
}
