// The key every per-address bound counts a client under: IPv4 as it is,
// IPv4-mapped IPv6 as IPv4, IPv6 by its /64; the expected keys written out by hand.
import { describe, expect, it } from "vitest";
import { addressKey } from "../../src/network/index.js";

describe("addressKey", () => {
  it.each([
    ["10.1.2.3", "10.1.2.3"],
    ["::ffff:10.1.2.3", "10.1.2.3"],
    ["::ffff:c000:0201", "192.0.2.1"],
    ["0:0:0:0:0:ffff:192.0.2.1", "192.0.2.1"],
    ["2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"],
    ["2001:0DB8:0001:0002::1", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["fd00::2", "fd00:0:0:0::/64"],
    ["fd00::ffff", "fd00:0:0:0::/64"],
    ["fd00:0:0:1::2", "fd00:0:0:1::/64"],
    ["::1", "0:0:0:0::/64"],
    ["::ffff:abcd", "0:0:0:0::/64"],
    ["fe80::1:2:3:4%eth0", "fe80:0:0:0::/64"],
    ["64:ff9b::192.0.2.1", "64:ff9b:0:0::/64"],
  ])("counts %s as %s", (address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  it("counts every address of one /64 under one key, and the next /64 under another", () => {
    const keys = ["2001:db8:5:6::1", "2001:db8:5:6:ffff:ffff:ffff:ffff", "2001:db8:5:6:1::"].map(addressKey);
    expect(new Set(keys)).toEqual(new Set(["2001:db8:5:6::/64"]));
    expect(addressKey("2001:db8:5:7::1")).toBe("2001:db8:5:7::/64");
  });

  it.each(["", "not an address", "1:2:3", "1::2::3", "12345::1", "1:2:3:4:5:6:7:8:9"])(
    "keeps %j, which is no IPv6 address, as its own key",
    (text) => {
      expect(addressKey(text)).toBe(text);
    },
  );
});
