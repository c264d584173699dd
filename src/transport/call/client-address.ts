// The client address of a call: its peer, or past a trusted proxy (TRUSTED_PROXIES) the rightmost untrusted
// X-Forwarded-For entry; entries left of it are never read, so a client cannot choose its address.
import { BlockList, isIP } from "node:net";

/** The proxies whose X-Forwarded-For is believed: addresses and CIDR ranges. */
export interface TrustedProxies {
  has(address: string): boolean;
  readonly empty: boolean;
}

/** Why `entry` is not an address or a CIDR range, or undefined when it is one. */
export function trustedProxyProblem(entry: string): string | undefined {
  const [address = "", prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return `"${entry}" is not an IP address or CIDR range`;
  if (prefix === undefined) return undefined;
  const bits = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) return `"${entry}" has a prefix length outside 0-${bits}`;
  return undefined;
}

/** The trusted proxies of `entries`, each an address or a CIDR range (see trustedProxyProblem). */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const entry of entries) {
    const problem = trustedProxyProblem(entry);
    if (problem !== undefined) throw new Error(`trusted proxy ${problem}`);
    const [address = "", prefix] = entry.split("/");
    const family = isIP(address) === 4 ? "ipv4" : "ipv6";
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  // No list, no lookup: BlockList.check builds a SocketAddress per call, and the per-address bounds ask on every call.
  if (entries.length === 0) return { empty: true, has: () => false };
  return {
    empty: false,
    has: (address) => {
      const family = isIP(address);
      return family !== 0 && list.check(address, family === 4 ? "ipv4" : "ipv6");
    },
  };
}

/** The client's address of a call from `peer` with X-Forwarded-For `forwardedFor`; mapped IPv4 given as IPv4. */
export function clientAddress(peer: string, forwardedFor: string | null | undefined, trusted: TrustedProxies): string {
  let client = plainAddress(peer);
  if (trusted.empty || forwardedFor == null || !trusted.has(client)) return client;
  // Right to left: each hop was added by the one after it, which is trusted so far.
  let end = forwardedFor.length;
  while (end > 0) {
    const start = forwardedFor.lastIndexOf(",", end - 1) + 1;
    const hop = plainAddress(withoutPort(forwardedFor.slice(start, end).trim()));
    // Not an address: whoever wrote it is not believed, and the last trusted hop is the client.
    if (isIP(hop) === 0) return client;
    client = hop;
    if (!trusted.has(hop)) return client;
    end = start - 1;
  }
  return client;
}

function plainAddress(address: string): string {
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice("::ffff:".length) : address;
}

/** `[2001:db8::1]:443` and `192.0.2.1:443` as addresses alone; a bare IPv6 address as it is. */
function withoutPort(hop: string): string {
  if (hop.startsWith("[")) {
    const close = hop.indexOf("]");
    return close < 0 ? hop : hop.slice(1, close);
  }
  const colon = hop.indexOf(":");
  return colon > 0 && hop.indexOf(":", colon + 1) < 0 ? hop.slice(0, colon) : hop;
}
