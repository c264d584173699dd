// The client address of a call: the peer's, unless a trusted proxy names
// the client in X-Forwarded-For; never an address the client wrote itself.
import { describe, expect, it } from "vitest";
import { clientAddress, trustedProxies } from "../../src/transport/index.js";

const proxies = trustedProxies(["10.0.0.0/8", "2001:db8:1::/48", "192.0.2.7"]);
const none = trustedProxies([]);

describe("client address", () => {
  it.each([
    ["an untrusted peer's header is ignored", "203.0.113.9", "198.51.100.1", "203.0.113.9"],
    ["no header leaves the proxy itself", "10.1.1.1", undefined, "10.1.1.1"],
    ["one trusted proxy names the client", "10.1.1.1", "198.51.100.1", "198.51.100.1"],
    [
      "what the client wrote left of its own address is not believed",
      "10.1.1.1",
      "1.1.1.1, 198.51.100.1",
      "198.51.100.1",
    ],
    [
      "trusted hops are passed through, right to left",
      "10.1.1.1",
      "1.1.1.1, 198.51.100.1, 192.0.2.7, 10.2.2.2",
      "198.51.100.1",
    ],
    ["an IPv4 peer mapped into IPv6 is a trusted IPv4 proxy", "::ffff:10.1.1.1", "198.51.100.1", "198.51.100.1"],
    ["an IPv6 proxy and client", "2001:db8:1::5", "2001:db8:2::9", "2001:db8:2::9"],
    ["ports and brackets are dropped", "10.1.1.1", "[2001:db8:2::9]:4711, 198.51.100.1:80", "198.51.100.1"],
    ["a bracketed IPv6 hop with a port", "10.1.1.1", "[2001:db8:2::9]:4711", "2001:db8:2::9"],
    [
      "a hop that is not an address stops the walk at the last trusted hop",
      "10.1.1.1",
      "198.51.100.1, unknown",
      "10.1.1.1",
    ],
    ["an empty hop does too", "10.1.1.1", "198.51.100.1,, 10.2.2.2", "10.2.2.2"],
    ["all hops trusted: the leftmost", "10.1.1.1", "10.3.3.3, 10.2.2.2", "10.3.3.3"],
  ])("%s", (_label, peer, forwardedFor, expected) => {
    expect(clientAddress(peer, forwardedFor, proxies)).toBe(expected);
  });

  it("believes nobody when no proxy is trusted, and gives mapped IPv4 peers as IPv4", () => {
    expect(clientAddress("10.1.1.1", "198.51.100.1", none)).toBe("10.1.1.1");
    expect(clientAddress("::ffff:203.0.113.9", "198.51.100.1", none)).toBe("203.0.113.9");
  });

  it("checks membership of addresses and ranges of both families", () => {
    expect([
      proxies.has("10.255.0.1"),
      proxies.has("11.0.0.1"),
      proxies.has("192.0.2.7"),
      proxies.has("192.0.2.8"),
    ]).toEqual([true, false, true, false]);
    expect([proxies.has("2001:db8:1:ffff::1"), proxies.has("2001:db8:2::1"), proxies.has("not an address")]).toEqual([
      true,
      false,
      false,
    ]);
  });
});
