// The one rule by which every per-address bound counts a client
// (docs/reliability.md, One client address): an IPv4 address as it is, an
// IPv4-mapped IPv6 address as its IPv4 address, and an IPv6 address by its
// /64 network, as one client commonly holds a whole /64 and could otherwise
// take a bound afresh from each of its addresses.

/**
 * The key `address` is counted under: `192.0.2.1` for `192.0.2.1` and
 * `::ffff:192.0.2.1`, `2001:db8:1:2::/64` for any address of that /64 (a
 * zone such as `%eth0` ignored). Text that is not an IPv6 address is its own key.
 */
export function addressKey(address: string): string {
  // IPv4 (most calls) costs one scan; so does an IPv4-mapped address in Node's dotted form.
  if (!address.includes(":")) return address;
  if (address.startsWith("::ffff:") && address.includes(".") && address.indexOf(":", 7) < 0) return address.slice(7);
  const groups = ipv6Groups(address);
  if (groups === undefined) return address;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".");
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a dotted IPv4 tail as two groups); undefined if it is none. */
function ipv6Groups(text: string): number[] | undefined {
  const zone = text.indexOf("%");
  const address = zone < 0 ? text : text.slice(0, zone);
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const parse = (half: string | undefined): number[] | undefined => {
    if (half === undefined || half === "") return [];
    const groups: number[] = [];
    for (const part of half.split(":")) {
      if (part.includes(".")) {
        const octets = part.split(".").map(Number);
        if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) return undefined;
        groups.push((octets[0]! << 8) | octets[1]!, (octets[2]! << 8) | octets[3]!);
      } else {
        if (!/^[0-9a-f]{1,4}$/i.test(part)) return undefined;
        groups.push(Number.parseInt(part, 16));
      }
    }
    return groups;
  };
  const left = parse(halves[0]);
  const right = parse(halves[1]);
  if (left === undefined || right === undefined) return undefined;
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  return [...left, ...Array<number>(Math.max(0, missing)).fill(0), ...right];
}
