// Page tokens: sealed for one call's parameters and caller, opened only by
// the service that sealed them, unaltered; and the cursor's time as it
// travels from the warehouse's rows to the SQL's parameter.
import { describe, expect, it } from "vitest";
import { createPageTokens, type PageBinding, readPageToken } from "../../src/endpoints/page-token.js";
import { dateTime64Of, microsOfIso } from "../../src/endpoints/result-page.js";

const secret = Buffer.alloc(32, 7);
const tokens = createPageTokens({ secret });
const cursor = { micros: 1_795_178_096_789_123n, id: "6f0c2a4e-1b3d-4c5e-8f7a-9b1c3d5e7f90" };
const binding: PageBinding = { parameters: '[["project","p"],["project_tier","FREE"]]', caller: "key-a" };
const token = tokens.seal(cursor, binding);

/** `token` with the byte at `index` changed. */
function altered(index: number): string {
  const bytes = Buffer.from(token, "base64url");
  bytes[index] = bytes[index]! ^ 1;
  return bytes.toString("base64url");
}

describe("page tokens", () => {
  it("open to the cursor they were sealed with, for the same parameters and caller", () => {
    expect(tokens.open(token, binding)).toEqual(cursor);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it("open an id of any text, and a time before the epoch", () => {
    const other = { micros: -1_000_001n, id: "é|\n" };
    expect(tokens.open(tokens.seal(other, binding), binding)).toEqual(other);
  });

  const length = Buffer.from(token, "base64url").length;
  it.each([
    ["another caller", token, { ...binding, caller: "key-b" }],
    ["no caller", token, { ...binding, caller: "" }],
    ["other parameters", token, { ...binding, parameters: '[["project","p"],["project_tier","PRO"]]' }],
    ["a changed time", altered(7), binding],
    ["a changed id", altered(10), binding],
    ["a changed MAC", altered(length - 1), binding],
    [
      "a token cut short",
      Buffer.from(token, "base64url")
        .subarray(0, length - 1)
        .toString("base64url"),
      binding,
    ],
    [
      "a token with a byte more",
      Buffer.concat([Buffer.from(token, "base64url"), Buffer.alloc(1)]).toString("base64url"),
      binding,
    ],
    ["characters outside base64url", `${token}!`, binding],
    ["base64 with padding", `${Buffer.from(token, "base64url").toString("base64")}`, binding],
    ["text too short to hold a MAC", "AAAA", binding],
    ["empty text", "", binding],
  ] as const)("do not open for %s", (_label, text, openedFor) => {
    expect(tokens.open(text, openedFor)).toBeUndefined();
  });

  it("do not open in a service with another secret (a restart draws a new one)", () => {
    expect(createPageTokens({ secret: Buffer.alloc(32, 8) }).open(token, binding)).toBeUndefined();
    expect(createPageTokens().open(token, binding)).toBeUndefined();
  });

  it("open in another service given the same secret, as text or bytes", () => {
    const text = "a-page-token-secret-of-32-characters";
    const sealed = createPageTokens({ secret: text }).seal(cursor, binding);
    expect(createPageTokens({ secret: text }).open(sealed, binding)).toEqual(cursor);
    expect(createPageTokens({ secret: Buffer.from(text, "utf8") }).open(sealed, binding)).toEqual(cursor);
  });

  it("open while rotating if sealed with the previous secret, and are sealed with the new one", () => {
    const previous = Buffer.alloc(32, 7);
    const current = Buffer.alloc(32, 9);
    const rotating = createPageTokens({ secret: current, previousSecret: previous });
    expect(rotating.open(token, binding)).toEqual(cursor);
    const resealed = rotating.seal(cursor, binding);
    expect(resealed).not.toBe(token);
    // The new token is the one the new secret alone seals; the old secret no longer opens it.
    expect(resealed).toBe(createPageTokens({ secret: current }).seal(cursor, binding));
    expect(tokens.open(resealed, binding)).toBeUndefined();
    // Once the previous secret is dropped, its tokens no longer open.
    expect(createPageTokens({ secret: current }).open(token, binding)).toBeUndefined();
  });

  it("are read for their shape without the secret", () => {
    expect(readPageToken(token)?.cursor).toEqual(cursor);
    expect(readPageToken("not a token")).toBeUndefined();
  });
});

describe("cursor times", () => {
  it.each([
    ["2026-11-20T12:34:56.789123Z", 1_795_178_096_789_123n, "2026-11-20 12:34:56.789123"],
    ["2026-11-20T12:34:56Z", 1_795_178_096_000_000n, "2026-11-20 12:34:56.000000"],
    ["2026-11-20T12:34:56.5Z", 1_795_178_096_500_000n, "2026-11-20 12:34:56.500000"],
    ["1969-12-31T23:59:59.999999Z", -1n, "1969-12-31 23:59:59.999999"],
  ])("%s is %i microseconds, %s as a parameter", (iso, micros, parameter) => {
    expect(microsOfIso(iso)).toBe(micros);
    expect(dateTime64Of(micros)).toBe(parameter);
  });
});

describe("cursor times a token may hold", () => {
  /** A token of `micros`, sealed with the test's secret: its MAC is right, only its time is in question. */
  const sealedAt = (micros: bigint) => tokens.seal({ micros, id: "x" }, binding);
  const firstOf1900 = BigInt(Date.UTC(1900, 0, 1)) * 1000n;
  const lastOf2299 = BigInt(Date.UTC(2299, 11, 31, 23, 59, 59, 999)) * 1000n + 999n;

  it.each([
    ["1900-01-01 00:00:00.000000", firstOf1900],
    ["2299-12-31 23:59:59.999999", lastOf2299],
  ])("include %s, DateTime64's bounds", (parameter, micros) => {
    expect(tokens.open(sealedAt(micros), binding)?.micros).toBe(micros);
    expect(dateTime64Of(micros)).toBe(parameter);
  });

  it.each([
    ["a microsecond before 1900", firstOf1900 - 1n],
    ["a microsecond after 2299", lastOf2299 + 1n],
    ["the largest 64-bit time, past Date's range", 2n ** 63n - 1n],
    ["the smallest 64-bit time", -(2n ** 63n)],
  ])("exclude %s: no shape of a token", (_label, micros) => {
    expect(readPageToken(sealedAt(micros))).toBeUndefined();
    expect(tokens.open(sealedAt(micros), binding)).toBeUndefined();
  });
});
