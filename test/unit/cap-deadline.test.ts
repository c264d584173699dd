// A call's deadline header cut to the service's longest before the router
// sets a timer for it; well-formed shorter ones and malformed ones untouched.
import { describe, expect, it } from "vitest";
import { capDeadline } from "../../src/transport/rpc/rpc-gate.js";

const cut = (headers: Record<string, string>) => {
  capDeadline(headers, 30_000);
  return headers;
};

describe("capDeadline", () => {
  it.each([
    ["99999999H", "30000m"],
    ["31S", "30000m"],
    ["30S", "30S"],
    ["29999m", "29999m"],
    ["30000001u", "30000m"],
    ["5n", "5n"],
    ["abc", "abc"],
    ["123456789S", "123456789S"], // nine digits: malformed, the router refuses it
  ])("grpc-timeout %s becomes %s", (value, expected) => {
    expect(cut({ "grpc-timeout": value })["grpc-timeout"]).toBe(expected);
  });

  it.each([
    ["2147483648", "30000"],
    ["30001", "30000"],
    ["30000", "30000"],
    ["0", "0"],
    ["-1", "-1"],
    ["12345678901", "12345678901"], // eleven digits: malformed, the router refuses it
  ])("connect-timeout-ms %s becomes %s", (value, expected) => {
    expect(cut({ "connect-timeout-ms": value })["connect-timeout-ms"]).toBe(expected);
  });

  it("writes a cut longer than eight digits of milliseconds in seconds", () => {
    const headers = { "grpc-timeout": "99999999H" };
    capDeadline(headers, 200_000_000);
    expect(headers["grpc-timeout"]).toBe("200000S");
  });
});
